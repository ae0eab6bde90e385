"""The separability LP by cutting planes, warm-started in HiGHS (through highspy).

The LP of :func:`verify.check_separable` is

    max t  s.t.  z_i . w >= t (every example i),  |w_j| <= 1,  t <= 1,

over the signed, row-scaled examples ``z_i``. Its answer depends on very few rows:
at most d + 1 carry the optimum (Caratheodory), and the rest only need checking. So
:func:`solve_by_cuts` solves it on a sample of rows, checks the solution's margin on
every row (one ``Z @ w``), adds the most violated rows to the same HiGHS model and
solves again from the previous basis (the dual simplex continues where it stopped),
until no row is violated (a candidate witness) or the sampled LP itself has optimum
``t = 0`` (then its dual solution, on the sampled rows only, is a Gordan certificate
for the whole data set: a subset that cannot be separated proves the rest).

Rows may be a dense array or a :mod:`scipy.sparse` CSR matrix; HiGHS stores them
sparse either way.

>>> import numpy as np
>>> Z = np.array([[1.0, 1.0], [1.0, -1.0], [-1.0, 0.5]])   # rows to make positive
>>> t, w, rows, lam = solve_by_cuts(Z)                       # impossible: t = 0
>>> abs(t) < 1e-12, rows.tolist(), np.round(lam / lam.max(), 12).tolist()
(True, [0, 1, 2], [0.25, 0.75, 1.0])
>>> t, w, rows, lam = solve_by_cuts(Z[:2])                   # possible: w = (1, 0)
>>> bool(t > 0), bool((Z[:2] @ w > 0).all())
(True, True)
"""

from __future__ import annotations

import numpy as np

from verify._internal.budget import BUDGET, TIMEOUT, expired, seconds_left
from verify._internal.basis import LPBasis
from verify.errors import LPStopped

__all__ = ["solve_by_cuts", "CutLP", "row_scaled", "lp_iteration_limit", "first_rows", "REPAIR_TOLERANCES"]

#: HiGHS's primal and dual feasibility tolerances of each re-solve that repairs a
#: basis exact arithmetic refused (:meth:`CutLP.tighten`); the default is 1e-7, and
#: 1e-10 is the smallest HiGHS accepts. A fixed number of re-solves: work, not time.
REPAIR_TOLERANCES = (1e-9, 1e-10)


def lp_iteration_limit(n: int, d: int) -> int:
    """Simplex (and interior-point) iterations each LP solve may take on ``n`` rows
    in ``d`` columns: ``100 (n + d + 1) + 10,000``, a deterministic budget far above
    the few multiples of ``n + d`` that the dual simplex needs on these LPs.

    >>> lp_iteration_limit(4, 2)
    10700
    """
    return 100 * (n + d + 1) + 10_000


def first_rows(d: int) -> int:
    """Rows of the first LP on ``d`` columns: ``5 (d + 1)`` on narrow data, falling to
    ``2 (d + 1)`` from 250 columns on.

    A dual simplex pivot costs about (rows in the LP) x d, and the LP needs a few
    multiples of d pivots, so on wide data a first LP of twice the d + 1 rows that carry
    the optimum, and a round or two more, is cheaper than one LP of five times as many:
    on 10,000 x 1,001 integer rows with 50 labels flipped, one LP of 2,002 rows decided
    in 35 s of CPU, where three rounds starting from 5,005 rows took 632 s of
    wall-clock time on the same busy machine. On narrow data the rounds (each reads
    all the data) cost more than the LP's rows.

    >>> first_rows(20), first_rows(100), first_rows(300), first_rows(1000)
    (105, 404, 602, 2002)
    """
    return (d + 1) * max(2, min(5, 500 // (d + 1)))


def _is_sparse(Z):
    return hasattr(Z, "indptr")


def _lp_rows(Zs):
    """The rows ``[-z, 1]`` of ``Zs`` in CSR form ``(row starts, columns, values)``,
    zeros left out; dense rows without scipy (its import costs more than a small LP)."""
    if _is_sparse(Zs):
        import scipy.sparse as sp

        A = sp.hstack([-Zs.tocsr(), np.ones((Zs.shape[0], 1))], format="csr")
        return A.indptr[:-1], A.indices, A.data
    M = np.hstack([-np.asarray(Zs, dtype=np.float64), np.ones((Zs.shape[0], 1))])
    rows, cols = np.nonzero(M)
    starts = np.searchsorted(rows, np.arange(M.shape[0]))
    return starts, cols, M[rows, cols]


class _HighsLP:
    """The LP ``max t, -z . w + t <= 0 (rows added over time), |w| <= 1, t <= 1``."""

    def __init__(self, d, iterations):
        import highspy

        self._highspy = highspy
        # the bare solver class: highspy.Highs() prints a banner on stdout (in C, so
        # no Python redirection stops it), which would corrupt a CLI's output
        core = getattr(getattr(highspy, "_core", None), "_Highs", highspy.Highs)
        h = core()
        h.setOptionValue("output_flag", False)
        h.setOptionValue("presolve", "off")  # keep the basis between solves
        h.setOptionValue("threads", 1)
        h.setOptionValue("random_seed", 0)
        h.setOptionValue("simplex_iteration_limit", int(iterations))
        h.setOptionValue("ipm_iteration_limit", int(iterations))
        inf = highspy.kHighsInf
        cost = np.zeros(d + 1)
        cost[-1] = -1.0  # minimise -t
        lower = np.r_[-np.ones(d), -inf]
        upper = np.ones(d + 1)
        h.addCols(d + 1, cost, lower, upper, 0, np.zeros(0, np.int32),
                  np.zeros(0, np.int32), np.zeros(0))
        self.h, self.d, self.rows = h, d, []

    def add(self, Zs, idx):
        """Add the rows ``-Zs[k] . w + t <= 0`` for the examples ``idx``."""
        k = Zs.shape[0]
        starts, cols, values = _lp_rows(Zs)
        self.h.addRows(k, np.full(k, -self._highspy.kHighsInf), np.zeros(k), len(values),
                       starts.astype(np.int32), cols.astype(np.int32),
                       values.astype(np.float64))
        self.rows.extend(int(i) for i in idx)

    def solve(self, deadline):
        left = seconds_left(deadline)
        if left is not None:
            if expired(deadline):
                raise LPStopped(TIMEOUT)
            self.h.setOptionValue("time_limit", left)
        self.h.run()
        status = self.h.getModelStatus()
        statuses = self._highspy.HighsModelStatus
        if status != statuses.kOptimal:
            if status == statuses.kIterationLimit:
                raise LPStopped(BUDGET)
            if status == statuses.kTimeLimit:
                raise LPStopped(TIMEOUT)
            raise ArithmeticError(f"HiGHS stopped with status {status}")  # pragma: no cover
        sol = self.h.getSolution()
        x = np.asarray(sol.col_value)
        return float(x[-1]), x[:-1], -np.asarray(sol.row_dual)

    def basis(self):
        """The optimal basis (:class:`verify._internal.basis.LPBasis`), or None when HiGHS
        has none or it leaves a column nonbasic between its bounds."""
        b = self.h.getBasis()
        status = self._highspy.HighsBasisStatus
        cols = list(b.col_status)
        if not b.valid or any(c not in (status.kBasic, status.kLower, status.kUpper)
                              for c in cols):
            return None
        return LPBasis(
            tight=tuple(k for k, r in enumerate(b.row_status) if r != status.kBasic),
            basic=tuple(j for j, c in enumerate(cols) if c == status.kBasic),
            upper=tuple(j for j, c in enumerate(cols) if c == status.kUpper))

    def tighten(self, tolerance):
        """Set HiGHS's primal and dual feasibility tolerances (for the next solve,
        which starts from the current basis)."""
        self.h.setOptionValue("primal_feasibility_tolerance", float(tolerance))
        self.h.setOptionValue("dual_feasibility_tolerance", float(tolerance))


def solve_by_cuts(Z, *, deadline=None, guess=None, first=None, add=None, seed=0,
                  on_round=None):
    """Solve the separability LP on the rows of ``Z`` by cutting planes.

    Parameters
    ----------
    Z : ndarray or scipy.sparse CSR (n, d)
        Signed (augmented) examples, no zero rows.
    deadline : float, optional
        ``time.perf_counter()`` value after which :class:`LPStopped` is raised
        (``"timeout"``). Without it only :func:`lp_iteration_limit` limits each
        solve (:class:`LPStopped` with ``"budget"`` past it), so the answer does not
        depend on the clock.
    guess : ndarray, optional
        An approximate separator (e.g. a perceptron's weights): the first LP then
        takes the rows of smallest margin under it, the likeliest to matter.
    first : int, optional
        Rows in the first LP (default :func:`first_rows`, all rows when there are fewer):
        those of smallest margin under ``guess``, else a seeded random sample.
    add : int, optional
        Most violated rows added per round (default ``d + 1``).
    on_round : callable, optional
        Called after each LP solve with the row indices used so far (a progress bar's
        hook).

    Returns
    -------
    (t, w, rows, lam)
        The optimum ``t`` of the LP on the rows it used (``t > 0``: ``w`` has margin
        at least ``t`` on every row of ``Z``, after row scaling, up to rounding;
        ``t <= 0``: those rows alone cannot be separated), ``w`` in the space of ``Z``,
        the row indices used, and their dual values for the *scaled* rows (each row
        divided by its largest magnitude: ``sum lam_k Z[rows[k]] / scale_k`` is about
        0 when ``t = 0``). In ``Z``'s own scale they would overflow where a row's
        largest entry is tiny (``1 / 5e-324`` is beyond float64).
    """
    cut = CutLP(Z, guess=guess, first=first, add=add, seed=seed)
    return cut.solve(deadline=deadline, on_round=on_round)


class CutLP:
    """The cutting-plane LP of :func:`solve_by_cuts`, kept alive: after
    :meth:`solve`, :meth:`basis` gives HiGHS's optimal basis (for exact
    verification, :mod:`verify._internal.basis`) and :meth:`tighten` then :meth:`solve`
    again re-solves from it with smaller tolerances (a repair).

    >>> Z = np.array([[1.0, 1.0], [1.0, -1.0], [-1.0, 0.5]])
    >>> cut = CutLP(Z)
    >>> t, w, rows, lam = cut.solve()
    >>> cut.basis().tight, cut.basis().basic
    ((0, 1, 2), (0, 1, 2))
    """

    def __init__(self, Z, *, guess=None, first=None, add=None, seed=0):
        n, d = Z.shape
        self.Z, self.scale = Z, _row_max_abs(Z)
        if not np.all(self.scale > 0):
            raise ValueError("CutLP needs signed rows without zero rows (a zero row makes "
                             "the data trivially not separable; decide that first)")
        first = min(n, first_rows(d) if first is None else first)
        self.add = d + 1 if add is None else add
        if first >= n:
            start = np.arange(n)
        elif guess is not None and np.isfinite(guess).all() and np.any(guess):
            start = np.sort(np.argsort((Z @ guess) / self.scale, kind="stable")[:first])
        else:
            start = np.sort(np.random.default_rng(seed).choice(n, first, replace=False))
        self.lp = _HighsLP(d, lp_iteration_limit(n, d))
        self.lp.add(row_scaled(Z, start, self.scale), start)

    def solve(self, *, deadline=None, on_round=None):
        """Solve, add the most violated rows, solve again, until no row is violated
        or the LP's optimum is 0; ``(t, w, rows, lam)`` as :func:`solve_by_cuts`."""
        Z, scale, lp = self.Z, self.scale, self.lp
        while True:
            t, w, lam = lp.solve(deadline)
            rows = np.asarray(lp.rows)
            if on_round is not None:
                on_round(rows)
            if t <= 1e-7 or len(rows) == Z.shape[0]:
                break
            margins = (Z @ w) / scale
            bad = np.flatnonzero(margins <= 1e-9 * t)
            if not bad.size:
                break
            new = bad[np.argsort(margins[bad], kind="stable")[:self.add]]
            lp.add(row_scaled(Z, new, scale), new)
        return t, w, rows, lam

    def basis(self):
        """HiGHS's last optimal basis, its ``tight`` positions in the LP's row order
        (example indices: ``rows[k]``), or None."""
        return self.lp.basis()

    def tighten(self, tolerance):
        """Make the next :meth:`solve` use feasibility tolerances ``tolerance``."""
        self.lp.tighten(tolerance)


def row_scaled(Z, idx, scale=None):
    """Rows ``idx`` of ``Z`` (dense or CSR), each divided by its largest magnitude
    (``scale``, when known): entries in [-1, 1], the largest of each row 1 in
    magnitude. Every entry is divided by its row's scale, never multiplied by a
    reciprocal (``1 / 5e-324`` overflows).

    >>> row_scaled(np.array([[5e-324, -1e-323], [4.0, 1.0]]), [0, 1]).tolist()
    [[0.5, -1.0], [1.0, 0.25]]
    """
    R = Z[idx]
    if scale is None:
        scale = _row_max_abs(Z)
    if _is_sparse(R):
        R = R.copy()
        R.data = R.data / np.repeat(scale[idx], np.diff(R.indptr))
        return R
    return R / scale[idx, None]


def _row_max_abs(Z):
    """The largest magnitude of every row (dense or CSR)."""
    if _is_sparse(Z):
        return np.asarray(abs(Z).max(axis=1).todense()).ravel()
    return np.abs(Z).max(axis=1)
