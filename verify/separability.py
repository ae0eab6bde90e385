"""Is this labelled data linearly separable? Exact verdicts with checkable certificates.

For ``z_i = y_i [x_i, 1]`` (augmented; without the 1 when ``intercept=False``) exactly
one of two things holds (Gordan's theorem of the alternative):

* a **witness** ``w`` with ``w . z_i > 0`` for every ``i`` (a separating hyperplane), or
* a **certificate** ``lambda >= 0``, not all zero, with ``sum_i lambda_i z_i = 0``
  (the origin is in the convex hull of the ``z_i``, so no ``w`` can be positive on all).

:func:`check_separable` returns one of the two, in exact rational arithmetic
(:class:`~fractions.Fraction`; floats are taken as the binary fractions they are), and
:func:`verify.certificate.check_certificate` (the trusted kernel,
``verify/certificate/kernel.py``: standard library only) re-checks either from scratch.
The provers run cheapest first (``method="auto"``):

1. trivial cases: -1/+1 labels of one class only, a zero vector without intercept,
   two examples that cancel (the same point with both labels, or without intercept
   opposite points with one label);
2. a short compiled perceptron run: on separable data with a fair margin it converges,
   and its weights are certified exactly (floating-point margins that beat a rigorous
   rounding-error bound, exact integers for the rest);
3. on wide integer data (:data:`LEAST_SQUARES_COLUMNS` columns or more) with at least
   twice as many rows as columns, a Gordan certificate from least-squares weights
   (:mod:`verify._internal.leastsq`: LSQR, then one exact integer solve), which random labels
   give without an LP;
4. one HiGHS linear program, ``max t`` s.t. ``z_i . w >= t``, ``|w_j| <= 1``, by cutting
   planes; its float solution is a witness when ``t > 0`` and it passes the exact
   check; otherwise its optimal *basis* is solved exactly (:mod:`verify._internal.basis`,
   FLINT): the vertex is an exact witness, or the duals an exact Gordan certificate
   (at most d + 1 points, Caratheodory); then the float duals rounded on their
   support; a basis that none of these makes exact is repaired by re-solving with
   tighter tolerances from it (:data:`verify._internal.cuts.REPAIR_TOLERANCES`);
5. an SMT solver (``solver="z3"`` or ``"cvc5"``: exact simplex over the rationals)
   only on small cores (:data:`SMT_CORE_ENTRIES`), when all of that fails.

``method="z3"`` is the plain QF_LRA encoding of the whole problem, solved by ``solver``
(exact, slow on big data); every SMT query can be saved as an SMT-LIB 2 file
(``smt2_dir``) for any other solver; ``"lp"`` skips the perceptron and the least
squares; ``"perceptron"`` only tries the perceptron (verdict ``None`` when it does not
converge).
"""

from __future__ import annotations

import dataclasses
import math
import time
import warnings
from fractions import Fraction
from typing import Any

import numpy as np

from markone._internal.html import ShownInJupyter, result_repr
from markone import engine
from markone._internal.checks import FloatRangeError, zero_rows
from markone._internal.data import Dataset, as_dataset
from markone._internal.exact import signed_integer_rows
from markone._internal.io import counted, plural
from markone._internal.progress import search_bar
from markone._internal.typing import ArrayLike, PathLike
from markone._internal.validation import check_choice, is_sparse, labels_to_pm1
from markone._internal.rows import signed_rows
from verify._internal.basis import exact_duals, exact_vertex, gordan_from_duals, solve_exact
from verify._internal.budget import BUDGET, TIMEOUT, deadline_after, expired, seconds_left
from verify._internal.cuts import REPAIR_TOLERANCES, CutLP, row_scaled
from verify._internal.leastsq import exact_completion, integer_rows_fit, positive_weights
from markone._internal.memory import check_memory, memory_limit
from verify._internal.exact import (blas_single_thread, certify_positive, dense_rows, exact_dot,
                           float_to_ints, null_vector)
from verify.certificate import check_certificate
from verify.errors import LPStopped
from verify.proofs import save_smt2
from verify.smt import RLIMIT, SOLVERS, Eq, Real, Session, Sum

__all__ = ["SeparabilityVerdict", "check_separable", "check_certificate", "METHODS",
           "labels_pm1"]

#: Valid values of ``method``.
METHODS = ("auto", "lp", "z3", "perceptron")


@dataclasses.dataclass(frozen=True)
class SeparabilityVerdict(ShownInJupyter):
    """The answer of :func:`check_separable`, with the proof that backs it.

    Attributes
    ----------
    separable : bool or None
        True or False (proven), or None: unknown (a solver timed out). Never wrong.
    witness : tuple of Fraction or None
        When separable: ``w`` in the augmented space (last entry the intercept weight
        when ``intercept``) with ``y_i * w . [x_i, 1] > 0`` for every ``i``.
    certificate : dict or None
        When not separable: example index -> positive Fraction ``lambda_i`` with
        ``sum_i lambda_i y_i [x_i, 1] = 0`` exactly (Gordan's alternative).
    method : str
        The prover that decided: ``"trivial"``, ``"perceptron"``, ``"leastsq"``
        (wide data far from separable: least-squares weights made exact, no LP),
        ``"lp"``, ``"lp+z3"``, ``"z3"`` (``"lp+cvc5"``, ``"cvc5"`` with
        ``solver="cvc5"``);
        ``"timeout"`` or ``"budget"`` when that stopped the provers undecided.
    exact : bool
        True when the witness or certificate was checked in exact arithmetic.
    message : str
        The verdict in words.
    time_s : float
        Wall-clock seconds taken.
    intercept : bool
        Whether the question included an intercept (the augmented space).
    stopped_by : str
        ``""`` when decided; ``"budget"`` or ``"timeout"`` when that left it
        undecided (``method="perceptron"`` without convergence: ``"budget"``, its
        passes).
    """

    __repr__ = result_repr  # numbers of any size

    separable: bool | None
    witness: tuple | None
    certificate: dict | None
    method: str
    exact: bool
    message: str
    time_s: float
    intercept: bool = True
    stopped_by: str = dataclasses.field(default="", repr=False)

    def __bool__(self):
        raise TypeError("the truth value of a SeparabilityVerdict is ambiguous (it can be "
                        "unknown); use verdict.separable.")


class _Stopped(Exception):
    """A prover's budget (``"budget"``) or the user's time limit (``"timeout"``) ran
    out before a verdict."""

    def __init__(self, stopped_by, what):
        super().__init__(stopped_by)
        self.stopped_by, self.what = stopped_by, what


# --------------------------------------------------------------------------------------
# data preparation: a float64 matrix that is (when possible) exactly the problem


class _Problem:
    """Signed augmented rows ``z_i`` as float64 (``Zf``), plus exact integer access.

    ``Zf[i]`` is a positive multiple of the exact ``z_i`` when ``float_exact``;
    otherwise an approximation, and exact rows come from Python integers.
    ``check_separable`` attaches its solver options and progress bar.
    """

    solver: str
    smt2_dir: PathLike | None
    queries: int
    smt_entries: int | None
    bar: Any

    def __init__(self, data, intercept):
        self.intercept = intercept
        self.guess = None  # an approximate separator, when a prover found one
        self.y, self.single = data.y, data.single
        Xf = data.exact_floats  # float64 when it holds the data exactly (CSR stays CSR)
        self.columns = None   # the columns kept, when empty ones were dropped
        if data.sparse:  # the stored entries are the exact values (float64)
            self.Zf, self.columns = _stored_columns(signed_rows(Xf, self.y, intercept))
            self.M = None
        elif Xf is not None:
            n, d = Xf.shape
            self.Zf = np.empty((n, d + bool(intercept)))  # y * [x, 1], one allocation
            np.multiply(Xf, self.y[:, None], out=self.Zf[:, :d])
            if intercept:
                self.Zf[:, d] = self.y
            self.M = None
        else:
            M, _ = data.signed_integers(intercept=intercept)
            self.M = M.astype(object)
            big = max(abs(int(v)) for v in self.M.ravel()) if self.M.size else 0
            self.Zf = np.ascontiguousarray(_float_rows(self.M, big))
            if big < 2**53:
                self.M = None  # float64 holds the integers exactly
        self.n, self.d = self.Zf.shape
        self.width = self.d if self.columns is None else data.shape[1] + bool(intercept)
        self.float_exact = self.M is None

    def int_rows(self, idx):
        """Integer rows, each a positive multiple of ``z_i``, and those multiples'
        inverses: ``z_i = ints[k] * scales[k]`` up to one common positive factor."""
        idx = list(idx)
        if self.float_exact:
            ints, scales = signed_integer_rows(dense_rows(self.Zf, idx), per_row=True)
            return ints, [1 / s for s in scales]
        assert self.M is not None   # not float_exact: the exact integer rows are kept
        return [[int(v) for v in self.M[i]] for i in idx], [Fraction(1)] * len(idx)

    def certify(self, w):
        """True when the float vector ``w`` is positive on every row, exactly."""
        if self.float_exact:
            return certify_positive(self.Zf, w)[0]
        wi, _ = float_to_ints(w)
        ints, _ = self.int_rows(range(self.n))
        return all(exact_dot(r, wi) > 0 for r in ints)

    def certify_rational(self, wq):
        """A witness from the exact rational vector ``wq`` positive on every row, or
        None: ``wq`` rounded to floats when that is a witness itself (certified as
        :meth:`certify`), else ``wq`` itself when it is positive on every row in
        exact integer arithmetic."""
        try:
            wf = np.array([float(v) for v in wq])
        except OverflowError:   # beyond float64: only the exact check can tell
            wf = None
        if wf is not None and np.isfinite(wf).all() and self.certify(wf):
            return wf
        den = math.lcm(*(Fraction(v).denominator for v in wq))
        wi = [int(v * den) for v in wq]
        ints, _ = self.int_rows(range(self.n))
        return wq if all(exact_dot(r, wi) > 0 for r in ints) else None

    def certificate_from(self, mu, idx):
        """Turn integer multipliers ``mu`` of ``int_rows(idx)`` (a kernel vector, of
        either sign) into ``{i: lambda_i}`` with ``sum lambda_i z_i = 0`` and the
        smallest weight 1; None unless all nonzero multipliers share one sign."""
        if any(m < 0 for m in mu):
            if all(m <= 0 for m in mu):
                mu = [-m for m in mu]
            else:
                return None
        _, scales = self.int_rows(idx)
        cert = {int(i): Fraction(m) / s for i, m, s in zip(idx, mu, scales) if m}
        return _smallest_one(cert) if cert else None


def _smallest_one(cert):
    """The certificate ``{i: lambda_i}`` scaled to a smallest weight of 1, by index."""
    g = min(cert.values())
    return {i: v / g for i, v in sorted(cert.items())}


def _stored_columns(Z):
    """A CSR matrix without its columns that store no entry, and the columns kept
    (None when every column stores one). Separability does not see empty columns (a
    witness is 0 there, a certificate is about rows), so the provers work in
    O(stored entries) however wide the data; the column map is built from the stored
    entries only (never an array of the full width).

    >>> import scipy.sparse as sp
    >>> Z = sp.csr_matrix(([1.0, 2.0, -1.0], ([0, 1, 2], [5, 9, 5])), shape=(3, 10))
    >>> small, columns = _stored_columns(Z)
    >>> small.toarray().tolist(), columns.tolist()
    ([[1.0, 0.0], [0.0, 2.0], [-1.0, 0.0]], [5, 9])
    """
    import scipy.sparse as sp

    columns = np.unique(Z.indices)
    if len(columns) == Z.shape[1]:
        return Z, None
    indices = np.searchsorted(columns, Z.indices).astype(Z.indices.dtype)
    small = sp.csr_matrix((Z.data, indices, Z.indptr), shape=(Z.shape[0], len(columns)))
    return small, columns


def _full_width(prob, witness, max_memory_gb):
    """A witness found on the stored columns, with a 0 in every empty column: after
    checking that a vector of the data's full width fits in ``max_memory_gb``."""
    if prob.columns is None or witness is None:
        return witness
    width = prob.width
    check_memory(16 * width, max_memory_gb,
                 f"the witness of these separable data ({width} entries, one per "
                 f"column; {len(prob.columns)} columns store an entry)",
                 "drop the empty columns (X[:, columns that store an entry]) and ask "
                 "again")
    zero = Fraction(0)
    full = [zero] * width
    for j, v in zip(prob.columns.tolist(), witness):
        full[j] = v
    return tuple(full)


def _float_rows(M, big):
    """Float64 rows approximating positive multiples of the integer rows ``M``.

    Rows whose entries reach beyond float64's range (``10**400``, or ``"1e-400"``
    scaled to integers) are divided by a power of two first, so that no entry
    overflows; the provers only use these floats to propose, never to decide.
    """
    if big < 2**1000:
        return M.astype(np.float64)
    out = np.empty(M.shape)
    for i, row in enumerate(M.tolist()):
        shift = max(max(abs(v) for v in row).bit_length() - 1000, 0)
        out[i] = [float(v >> shift) if v >= 0 else -float(-v >> shift) for v in row]
    return out


def labels_pm1(y: ArrayLike) -> tuple[np.ndarray, bool]:
    """Labels as int64 -1/+1 and whether there is one class only.

    markone's one label rule (:func:`markone._internal.validation.labels_to_pm1`, as in
    :func:`markone.train`): -1/+1 labels pass through (one class allowed); any two
    values are mapped (the sorted first to -1); one class of any other value, or three
    classes, is an error.

    >>> y, single = labels_pm1(["cat", "dog", "cat"])
    >>> y.tolist(), single
    ([-1, 1, -1], False)
    """
    y_pm1, _ = labels_to_pm1(y)
    return y_pm1, np.unique(y_pm1).size == 1


# --------------------------------------------------------------------------------------
# the public entry point


def check_separable(X: ArrayLike, y: ArrayLike, *, intercept: bool = True,
                    method: str = "auto", timeout_s: float | None = None,
                    solver: str = "z3", smt2_dir: PathLike | None = None,
                    progress: bool | None = None, max_memory_gb: float | None = None
                    ) -> SeparabilityVerdict:
    """Decide exactly whether ``(X, y)`` is linearly separable, with a proof.

    Parameters
    ----------
    X : array-like (n_samples, n_features)
        Inputs: floats (taken as the exact binary fractions they are), ints, or
        :class:`~fractions.Fraction` / strings like ``"3/4"`` (exact rationals).
    y : array-like (n_samples,)
        Two classes of any values (the sorted first is -1), or -1/+1 labels, of
        one class only too (then separable with an intercept; said in the message).
        One class of another value (``["cat", "cat"]``) is refused, as by every
        entry point: it has no side (+1 or -1) of its own.
    intercept : bool
        Ask for a separating hyperplane ``w . x + b`` (default); False: through the
        origin (``w . x``).
    method : "auto", "lp", "z3" or "perceptron"
        See the module docstring. ``"auto"`` (default) runs the cheap provers first.
    timeout_s : float, optional
        Give up after about this many seconds: the verdict is then ``None``
        (unknown, ``stopped_by="timeout"``), never a guess. Without it the provers
        are limited by work only, so the verdict does not depend on the clock: the
        perceptron by its passes (:func:`_perceptron_epochs`), each LP solve by
        HiGHS's iteration limit (:func:`verify._internal.cuts.lp_iteration_limit`), each SMT
        query by the solver's resource limit (:func:`_smt_rlimit`). A verdict left
        undecided by them says ``stopped_by="budget"``.
    solver : "z3" or "cvc5"
        The exact SMT solver for small cores and for ``method="z3"``; both read the
        same SMT-LIB 2 text (:mod:`verify.smt`).
    smt2_dir : path, optional
        Save every SMT query asked as ``smt2_dir/separability-<k>.smt2``.
    progress : bool, optional
        Show a progress bar (tqdm, on stderr) naming the prover at work and counting
        its steps: the perceptron run, each cutting-plane LP round, each SMT query.
        ``None`` (default): only on a terminal, once the check takes more than half a
        second. It changes no verdict.
    max_memory_gb : float, optional
        Sparse data are decided on the columns that store an entry (the work grows
        with the stored entries, not the width); a witness has one entry per column
        of the data, and is refused (:class:`verify.errors.MemoryLimitError`) when
        it could need more memory than this (default 4 GB).

    Returns
    -------
    SeparabilityVerdict

    Raises
    ------
    ValueError
        On NaN/inf, empty data, mismatched lengths, labels of three or more classes,
        an unknown ``method`` or ``solver``; ``MemoryLimitError`` (a ``ValueError``)
        for a witness wider than ``max_memory_gb`` allows.

    Examples
    --------
    AND is separable; the witness is exact and positive on every example:

    >>> v = check_separable([[0, 0], [0, 1], [1, 0], [1, 1]], [0, 0, 0, 1])
    >>> v.separable, v.exact, len(v.witness)
    (True, True, 3)
    >>> check_certificate([[0, 0], [0, 1], [1, 0], [1, 1]], [0, 0, 0, 1], v)
    True

    XOR is not: the certificate weighs the four points so that they cancel.

    >>> v = check_separable([[0, 0], [0, 1], [1, 0], [1, 1]], [0, 1, 1, 0])
    >>> v.separable, v.certificate
    (False, {0: Fraction(1, 1), 1: Fraction(1, 1), 2: Fraction(1, 1), 3: Fraction(1, 1)})

    The plain SMT encoding, solved by cvc5 instead of Z3:

    >>> check_separable([[0, 0], [0, 1], [1, 0], [1, 1]], [0, 1, 1, 0], method="z3",
    ...                 solver="cvc5").method
    'cvc5'
    """
    t0 = time.perf_counter()
    check_choice(method, "method", METHODS)
    check_choice(solver, "solver", SOLVERS)
    deadline = deadline_after(timeout_s)
    memory_limit(max_memory_gb)   # checked before any work
    prob = _Problem(as_dataset(X, y), intercept)
    prob.solver, prob.smt2_dir, prob.queries = solver, smt2_dir, 0
    prob.smt_entries = None   # method="z3": the whole problem; _lp sets its limit
    try:
        with blas_single_thread(), search_bar(None, "check_separable", progress,
                                                 unit=" steps") as bar:
            prob.bar = bar
            verdict = _decide(prob, method, deadline)
    except _Stopped as stop:
        verdict = (stop.stopped_by or BUDGET, None, None, _unknown(stop, timeout_s, method))
    how, witness, cert, message = verdict
    witness = _full_width(prob, witness, max_memory_gb)
    sep = True if witness is not None else False if cert is not None else None
    return SeparabilityVerdict(
        separable=sep, witness=witness, certificate=cert, method=how,
        exact=sep is not None, message=message, time_s=time.perf_counter() - t0,
        intercept=intercept,
        stopped_by="" if sep is not None else TIMEOUT if how == TIMEOUT else BUDGET)


def _unknown(stop, timeout_s, method):
    """The message of a check that ``stop`` left undecided."""
    if stop.stopped_by == TIMEOUT:
        return (f"unknown: no verdict within timeout_s={timeout_s:g} s "
                f"(method={method!r}; stopped at: {stop.what}); raise timeout_s, or "
                "leave it out for a verdict however long it takes")
    return (f"unknown: {stop.what} ran out of its work budget before a verdict "
            f"(method={method!r}); try another method")


def _decide(prob, method, deadline):
    """Run the provers for ``method``; return ``(how, witness, certificate, message)``."""
    if method == "z3":
        return _smt_decide(prob, range(prob.n), deadline, prob.solver)
    found = _trivial(prob)
    if found is not None:
        return found
    if method in ("auto", "perceptron"):
        found = _perceptron(prob, deadline, small_first=method == "auto")
        if found is not None:
            return found
        if method == "perceptron":
            return ("perceptron", None, None, "unknown: the perceptron did not converge "
                    "within its epoch budget (use method='auto' for a verdict)")
        found = _least_squares(prob, deadline)
        if found is not None:
            return found
    return _lp(prob, deadline)


def _stage(prob, what):
    """Name the prover at work on the progress bar, and count one step."""
    prob.bar.set_description(what, refresh=False)
    prob.bar.update(1)


def _sep(how, w, prob, detail):
    return (how, tuple(Fraction(v) for v in w), None,
            f"separable: {detail}; exact witness checked on all {prob.n} examples")


def _notsep(how, cert, detail):
    return (how, None, cert, f"not separable: {detail}; exact certificate on "
            f"{plural(len(cert), 'example')} (sum of lambda_i y_i x_i is 0)")


def _trivial(prob):
    Z = prob.Zf
    if prob.single and prob.intercept:
        w = [Fraction(0)] * prob.d
        w[-1] = Fraction(int(prob.y[0]))
        return ("trivial", tuple(w), None,
                "separable: one class only (every example has the same label), so "
                "the constant intercept separates; exact witness")
    zero = np.flatnonzero(zero_rows(Z))
    if zero.size:
        i = int(zero[0])
        return _notsep("trivial", {i: Fraction(1)},
                       f"{counted(i)} is the zero vector and there is no intercept, so "
                       "its score is always 0")
    pair = _opposite_pair(Z) if prob.float_exact else None
    if pair is not None:
        j, i = pair
        both = f"examples {j + 1} and {i + 1} (X[{j}] and X[{i}])"
        if prob.y[j] != prob.y[i]:
            why = f"{both} are the same point with both labels"
        else:  # only without intercept: y x cancels for opposite points, one label
            why = (f"{both} are opposite points (X[{i}] = -X[{j}]) with the same label "
                   "and there is no intercept, so their scores always have opposite signs")
        return _notsep("trivial", {j: Fraction(1), i: Fraction(1)}, why)
    return None


def _opposite_pair(Z):
    """The first pair ``(j, i)``, ``j < i``, of rows with ``Z[i] == -Z[j]`` exactly (the
    same point with both labels; without intercept also opposite points with one
    label), or None. Vectorised: rows are hashed by their dot
    product with a fixed random vector after flipping each to a positive leading
    entry; candidates with equal hashes are then compared exactly (a hash that
    rounding made unequal only loses this shortcut, never a verdict)."""
    n = Z.shape[0]
    sparse = is_sparse(Z)
    if sparse:
        lead = Z.data[Z.indptr[:-1]]  # first stored entry (no zero rows by now)
        nz = Z.data != 0
        if not nz.all():  # stored zeros: find the first nonzero per row
            first = np.minimum.reduceat(np.where(nz, np.arange(Z.nnz), Z.nnz),
                                        Z.indptr[:-1])
            lead = Z.data[first]
    else:
        lead = Z[np.arange(n), np.argmax(Z != 0, axis=1)]
    sign = np.where(lead > 0, 1.0, -1.0)
    r = np.random.default_rng(12345).standard_normal(Z.shape[1])
    # large rows scaled down by a power of two so that no key overflows (|Z_ij r_j| < 5):
    # rows that are exact opposites still get opposite keys, and an entry that
    # underflows only makes more candidates, which are compared exactly
    biggest = abs(Z).max() if Z.size else 0.0
    key = sign * (Z @ np.ldexp(r, -max(int(np.frexp(biggest)[1]), 0)))
    order = np.lexsort((np.arange(n), key))  # by key, then by index
    ks = key[order]
    starts = np.flatnonzero(np.r_[True, ks[1:] != ks[:-1]])
    ends = np.r_[starts[1:], n]
    best = None
    for a, b in zip(starts[ends - starts > 1], ends[ends - starts > 1]):
        run = order[a:b]
        pos, neg = run[sign[run] > 0], run[sign[run] < 0]
        if not pos.size or not neg.size:
            continue
        j, i = sorted((int(pos.min()), int(neg.min())))
        if best is not None and i >= best[1]:
            continue
        ri, rj = dense_rows(Z, [i, j])
        if np.array_equal(ri, -rj):
            best = (j, i)
    return best


def _perceptron_epochs(size, d, budget=1e8):
    """Epoch budget of the perceptron prover on ``size`` stored entries in ``d``
    (augmented) columns.

    At least 10 passes, up to 1000 while they cost at most ``budget`` entry visits,
    and at least ``d // 4`` passes whatever the size: the LP that decides otherwise
    needs on the order of d simplex pivots over rows of the data (at d = 10,000 it
    does not finish in minutes), so on wide data a long perceptron run is the cheap
    prover, not the LP.

    >>> _perceptron_epochs(10**5 * 101, 101), _perceptron_epochs(10**7, 10_001)
    (25, 2500)
    >>> _perceptron_epochs(1000, 21)
    1000
    """
    return int(max(min(1000, max(10, budget // max(size, 1))), d // 4))


#: Stored entries up to which the LP (HiGHS, by cutting planes) decides in
#: milliseconds, with its proof: on problems this small, ``method="auto"`` gives the
#: perceptron only :data:`SMALL_PRESENTATIONS` presentations (run uncompiled, so that
#: a small question never waits for numba to load and compile); the LP decides what
#: they leave open.
SMALL_LP_ENTRIES = 2**16

#: Presentations of the perceptron on a problem of at most :data:`SMALL_LP_ENTRIES`
#: entries: about what the LP costs there (on 1,000 x 11 integers with 50 labels
#: flipped, the 4,096 presentations markone runs uncompiled took 65 ms, the LP and its
#: exact certificate 3 ms), and enough for small separable data with a fair margin
#: (AND converges in 9 passes of 4, setosa/versicolor in 4 of 100).
SMALL_PRESENTATIONS = 2**10


def _auto_epochs(size, d, n):
    """The perceptron's passes under ``method="auto"``: :func:`_perceptron_epochs`,
    capped on problems of at most :data:`SMALL_LP_ENTRIES` entries to
    :data:`SMALL_PRESENTATIONS` presentations over ``n`` rows (at least one pass).

    >>> _auto_epochs(4 * 3, 3, 4), _auto_epochs(1000 * 21, 21, 1000)
    (256, 1)
    >>> _auto_epochs(10**5 * 101, 101, 10**5) == _perceptron_epochs(10**5 * 101, 101)
    True
    """
    epochs = _perceptron_epochs(size, d)
    if size <= SMALL_LP_ENTRIES:
        epochs = min(epochs, max(1, SMALL_PRESENTATIONS // max(n, 1)))
    return epochs


#: Passes of the perceptron prover's first run when a deadline must be kept: its time
#: sets how many passes the second run can afford (see :func:`_perceptron`).
_PROBE_EPOCHS = 10


def _perceptron(prob, deadline=None, small_first=False):
    """A run of :func:`markone.train` on the signed rows (:func:`_perceptron_epochs`
    passes at most, :func:`_auto_epochs` with ``small_first``); its weights,
    certified exactly, or None. (Training on
    ``z_i = y_i [x_i, 1]`` with all labels +1 and no intercept is the same run as on
    ``(x_i, y_i)``: every score is the same number.)

    Without a ``deadline`` (the default) the run has its passes, no more, no less.
    Only with a ``deadline`` (the user's ``timeout_s``) is it kept within it: a first run of
    :data:`_PROBE_EPOCHS` passes measures the time of a pass, and the full run is cut
    to the passes that fit in what is left (it starts again from zero: ``train`` has
    no warm start, so at most the probe's passes are spent twice). A run that cannot
    fit is skipped, and the deadline then ends the search with "unknown".
    """
    Z = prob.Zf
    size = Z.nnz if is_sparse(Z) else Z.size
    epochs = (_auto_epochs(size, prob.d, prob.n) if small_first
              else _perceptron_epochs(size, prob.d))

    def run(max_epochs):
        _stage(prob, f"check_separable: perceptron ({max_epochs} epochs at most)")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # not converging is an answer here
            return engine.train(Dataset.of_rows(Z), None, intercept=False, max_epochs=max_epochs)

    try:
        if deadline is None or epochs <= _PROBE_EPOCHS:
            res = run(epochs)
        else:
            start = time.perf_counter()
            res = run(_PROBE_EPOCHS)
            per_pass = (time.perf_counter() - start) / res.epochs
            if not res.converged:
                fits = int((deadline - time.perf_counter()) / max(per_pass, 1e-9))
                if fits > _PROBE_EPOCHS:
                    res = run(min(epochs, fits))
    except FloatRangeError:  # float64 cannot carry this run: the LP decides
        return None
    w = np.asarray(res.w, dtype=np.float64)
    prob.guess = w  # the LP starts from the rows this run finds hardest
    if res.converged and np.isfinite(w).all() and prob.certify(w):
        return _sep("perceptron", w, prob,
                    f"a perceptron run (markone.train) converged in {res.epochs} epochs")
    return None


# --------------------------------------------------------------------------------------
# wide data far from separable: least-squares weights made exact (no LP)

#: Columns (augmented) from which ``method="auto"`` looks for a Gordan certificate by
#: least squares (:mod:`verify._internal.leastsq`) before the LP: about where the LP's basis,
#: filling in, makes it the dearer (CPU seconds on sparse random labels, n = 10 d,
#: LP on 3 (d + 1) rows against least squares and exact completion: d = 500 with 5
#: stored a row 0.12 against 0.27, with 100 a row the LP alone 0.84; d = 1,000 with
#: 10 a row 2.8 against 0.95; d = 2,000 with 20 a row 125 against 7.3).
LEAST_SQUARES_COLUMNS = 500


def _least_squares(prob, deadline):
    """A Gordan certificate from least-squares weights (:mod:`verify._internal.leastsq`) on
    wide integer data with at least twice as many rows as columns, or None (the LP
    decides). With a ``deadline``, an exact solve predicted to overrun it is not
    started (:func:`_exact_solve_fits`)."""
    if (prob.d < LEAST_SQUARES_COLUMNS or prob.n < 2 * prob.d or not prob.float_exact
            or expired(deadline) or not integer_rows_fit(prob.Zf)):
        return None
    _stage(prob, "check_separable: least-squares weights (LSQR)")
    c = positive_weights(prob.Zf)
    if c is None:
        return None
    if expired(deadline):
        raise _Stopped(TIMEOUT, f"the least-squares weights, before their exact "
                       f"certificate (a {prob.d:,} x {prob.d:,} integer solve)")
    _stage(prob, f"check_separable: exact certificate ({prob.d} x {prob.d} solve)")
    probe = None if deadline is None else (lambda ZB: _exact_solve_fits(ZB, deadline))
    cert = exact_completion(prob.Zf, c, probe=probe)
    if cert is None:
        return None
    return _notsep("leastsq", _smallest_one(cert), f"least-squares weights on {prob.d} "
                   "columns, made exact by one integer solve")


#: The probe of :func:`_exact_solve_fits` solves a leading block of ``1 / 4`` the size.
_PROBE_FRACTION = 4


def _exact_solve_fits(ZB, deadline):
    """Raise :class:`_Stopped` (``"timeout"``) when the exact solve of the square
    integer matrix ``ZB`` is predicted to end after ``deadline``: a solve of its
    leading block of a quarter the size, timed, times 4^3 (FLINT's solve grows as the
    cube of the size: 2.99 measured from 2,001 to 4,001). The block's diagonal is
    pushed away from 0 by the largest magnitude (a sparse block is often singular,
    and a singular solve ends early, which would predict too little). Only with the
    user's ``timeout_s``: without it nothing is timed."""
    k = max(1, ZB.shape[0] // _PROBE_FRACTION)
    block = np.array(ZB[:k, :k], dtype=np.int64)
    diagonal = block.diagonal()
    np.fill_diagonal(block, diagonal + np.where(diagonal < 0, -1, 1)
                     * max(1, int(np.abs(ZB).max(initial=0))))
    start = time.perf_counter()
    solve_exact(block.tolist(), [1] * k)
    predicted = (time.perf_counter() - start) * (ZB.shape[0] / k) ** 3
    if start + predicted > deadline:
        raise _Stopped(TIMEOUT, f"the exact certificate (a {ZB.shape[0]:,} x "
                       f"{ZB.shape[0]:,} integer solve, predicted {predicted:,.0f} s "
                       "here)")


# --------------------------------------------------------------------------------------
# linear programming (HiGHS), then exact rounding


def _lp(prob, deadline):
    """The LP by cutting planes (:class:`verify._internal.cuts.CutLP`: a sample of rows, then
    the most violated ones, warm-started), then exact rounding: the float witness,
    HiGHS's optimal basis solved exactly (:func:`_exact_basis`), the float duals
    rounded (:func:`_exact_gordan`); when all three fail, a re-solve with tighter
    tolerances from the same basis (:data:`verify._internal.cuts.REPAIR_TOLERANCES`), and
    last an SMT solver, on small cores only (:data:`SMT_CORE_ENTRIES`)."""
    def round_done(rows):
        _stage(prob, f"check_separable: LP, {len(rows)} of {prob.n} rows")

    prob.smt_entries = SMT_CORE_ENTRIES
    cut = CutLP(prob.Zf, guess=prob.guess)
    for tolerance in (None, *REPAIR_TOLERANCES):
        if tolerance is not None:
            cut.tighten(tolerance)
        try:
            t, w, rows, lam = cut.solve(deadline=deadline, on_round=round_done)
        except LPStopped as stop:
            raise _Stopped(stop.stopped_by, "the LP (HiGHS)") from None
        except ArithmeticError:  # pragma: no cover - HiGHS failure on a feasible LP
            return _smt_decide(prob, range(prob.n), deadline, f"lp+{prob.solver}")
        found = _lp_proof(prob, cut, t, w, rows, lam)
        if found is not None:
            return found
    # Rounding could not be made exact: an SMT solver decides on a small core.
    support = rows[lam > 1e-12 * max(lam.max(), 1e-300)] if lam.size else rows[:0]
    if t > 0:
        return _smt_witness_by_cuts(prob, w, deadline)
    core = support if support.size else rows
    found = _smt_decide(prob, core, deadline, f"lp+{prob.solver}", certificate_only=True)
    if found is not None:
        return found
    return _smt_decide(prob, range(prob.n), deadline, f"lp+{prob.solver}")


def _lp_proof(prob, cut, t, w, rows, lam):
    """An exact verdict from one LP solution, or None: its float witness, its basis
    solved exactly, its float duals rounded."""
    where = f"{len(rows)} of {prob.n} rows in the LP"
    if t > 0 and prob.certify(w):
        return _sep("lp", w, prob, f"the LP's hyperplane has margin {t:.3g} "
                    f"(max-norm scaled; {where})")
    found = _exact_basis(prob, cut.basis(), rows, t)
    if found is not None:
        return found
    support = rows[lam > 1e-12 * max(lam.max(), 1e-300)] if lam.size else rows[:0]
    if t <= 1e-7 and support.size:
        weights = lam[lam > 1e-12 * max(lam.max(), 1e-300)]
        cert = _exact_gordan(prob, support, weights)
        if cert is not None:
            return _notsep("lp", cert, "the LP's dual solution, rounded exactly")
    return None


def _exact_basis(prob, basis, rows, t):
    """HiGHS's optimal basis solved exactly (:mod:`verify._internal.basis`): its duals as a
    Gordan certificate (tried first when the LP's optimum is about 0), its vertex as a
    witness; None when neither is a proof."""
    if basis is None or not basis.square:
        return None
    idx = rows[list(basis.tight)]
    ints = prob.int_rows(idx)[0] if idx.size else []
    if t <= 1e-7:
        mu = exact_duals(ints, basis, prob.d)
        if gordan_from_duals(ints, mu):
            assert mu is not None   # gordan_from_duals says so
            den = math.lcm(*(m.denominator for m in mu))
            cert = prob.certificate_from([int(m * den) for m in mu], idx)
            if cert is not None:
                return _notsep("lp", cert, "the LP's optimal basis, its duals solved "
                               "exactly")
    vertex = exact_vertex(ints, basis, prob.d)
    if vertex is None or vertex[1] <= 0:
        return None
    witness = prob.certify_rational(vertex[0])
    if witness is None:
        return None
    return _sep("lp", witness, prob, f"the LP's optimal basis, its vertex solved exactly "
                f"(margin {float(vertex[1]):.3g}, max-norm scaled; {len(rows)} of "
                f"{prob.n} rows in the LP)")


def _exact_gordan(prob, support, lam):
    """Exact Gordan certificate on ``support`` (float multipliers ``lam`` of its rows
    scaled to a largest entry of 1, as :func:`verify._internal.cuts.solve_by_cuts` gives them),
    or None.

    Reduces the support numerically to an affinely minimal one (Caratheodory: a
    one-dimensional kernel), then solves that small integer system exactly.
    """
    rows = row_scaled(prob.Zf, support)   # the rows the LP's duals ``lam`` weigh
    idx, lam = _caratheodory(dense_rows(rows, range(len(support))), support, lam)
    if not idx.size:   # rounding dropped every example: no certificate here
        return None
    ints, _ = prob.int_rows(idx)
    A = [list(col) for col in zip(*ints)]  # columns = examples
    try:
        mu = null_vector(A)
    except ValueError:
        return None
    return prob.certificate_from(mu, idx)


def _caratheodory(Zs, idx, lam):
    """Drop points from a float Gordan certificate until its kernel is 1-D.

    While the support's vectors have a kernel of dimension above one, move the
    weights along a kernel direction until one of them reaches zero, and drop it
    (the classical proof of Caratheodory's theorem, in floating point; the exact
    solve afterwards decides whether the result is a certificate).
    """
    idx = np.asarray(idx)
    lam = np.asarray(lam, dtype=np.float64)
    while idx.size > 1:
        _, s, vt = np.linalg.svd(Zs.T)
        tol = max(Zs.shape) * np.finfo(float).eps * (s[0] if s.size else 1.0)
        if idx.size - int((s > tol).sum()) <= 1:
            break
        nu = vt[-1] * np.sign(vt[-1][np.argmax(np.abs(vt[-1]))])  # largest entry > 0
        pos = nu > 1e-12 * np.abs(nu).max()
        ratios = lam[pos] / nu[pos]
        lam = lam - ratios.min() * nu
        keep = lam > 0
        keep[np.flatnonzero(pos)[int(np.argmin(ratios))]] = False
        idx, lam, Zs = idx[keep], lam[keep], Zs[keep]
    return idx, lam


# --------------------------------------------------------------------------------------
# Z3 or cvc5: exact QF_LRA over the rationals (one SMT-LIB text, see verify.smt)


def _smt_rlimit(solver: str, entries: int) -> int:
    """Resource units of one SMT query on ``entries`` matrix entries: the solver's
    :data:`verify.smt.RLIMIT` for every started thousand entries.

    >>> _smt_rlimit("z3", 2200)
    60000000
    """
    return RLIMIT[solver] * (1 + entries // 1000)


#: Matrix entries (rows x columns) up to which an SMT solver may decide what exact
#: rounding of the LP's answer left open (:func:`_lp`): Z3's exact simplex is the
#: arbiter on small cores, never on a thousand wide rows (where it does not finish in
#: minutes, while the exact basis solve takes seconds). Beyond it the verdict is
#: unknown, ``stopped_by="budget"``.
SMT_CORE_ENTRIES = 100_000


def _smt_session(prob, deadline, what, rows):
    if prob.smt_entries is not None and rows * prob.d > prob.smt_entries:
        raise _Stopped(BUDGET, f"exact rounding of the LP's answer (an SMT query on "
                       f"{rows} x {prob.d} entries is beyond SMT_CORE_ENTRIES="
                       f"{prob.smt_entries:,})")
    if expired(deadline):
        raise _Stopped(TIMEOUT, prob.solver)
    return Session("QF_LRA", solver=prob.solver, timeout_s=seconds_left(deadline),
                   rlimit=_smt_rlimit(prob.solver, rows * prob.d),
                   comment=f"markone check_separable: {what}")


def _smt_solve(prob, session, unknowns):
    """Check; save the query when asked; the unknowns' exact values, or None."""
    _stage(prob, f"check_separable: {prob.solver} (exact)")
    answer = session.check()
    if prob.smt2_dir is not None:
        prob.queries += 1
        save_smt2(prob.smt2_dir, f"separability-{prob.queries}.smt2", session.smt2())
    if answer == "unknown":
        raise _Stopped(session.stopped_by, prob.solver)
    if answer == "unsat":
        return None
    model = session.model()
    return [model.get(v.args[0], Fraction(0)) for v in unknowns]


def _smt_witness(prob, ints, deadline):
    """A rational ``w`` with ``r . w >= 1`` for each integer row ``r``, or None."""
    s = _smt_session(prob, deadline, f"a witness w with r.w >= 1 on {len(ints)} rows "
                     "(sat: separable)", len(ints))
    w = [Real(f"w{j}") for j in range(prob.d)]
    s.add(*[Sum([c * w[j] for j, c in enumerate(r) if c]) >= 1 for r in ints])
    return _smt_solve(prob, s, w)


def _smt_gordan(prob, ints, deadline):
    """Rational ``mu >= 0`` summing to 1 with ``sum mu_k ints[k] = 0``, or None."""
    s = _smt_session(prob, deadline, f"a Gordan certificate on {len(ints)} rows "
                     "(sat: not separable)", len(ints))
    mu = [Real(f"l{k}") for k in range(len(ints))]
    s.add(*[v >= 0 for v in mu], Eq(Sum(mu), 1))
    for j in range(prob.d):
        terms = [r[j] * mu[k] for k, r in enumerate(ints) if r[j]]
        if terms:
            s.add(Eq(Sum(terms), 0))
    return _smt_solve(prob, s, mu)


def _smt_decide(prob, idx, deadline, how, certificate_only=False):
    """Exact verdict on the rows ``idx`` by the SMT solver (witness system, then
    Gordan system)."""
    idx = list(idx)
    ints, _ = prob.int_rows(idx)
    if not certificate_only:
        w = _smt_witness(prob, ints, deadline)
        if w is not None:
            if len(idx) == prob.n:
                return (how, tuple(w), None, f"separable: {prob.solver} found an exact witness "
                        f"(checked on all {prob.n} examples)")
            return None
    mu = _smt_gordan(prob, ints, deadline)
    if mu is None:
        return None
    den = math.lcm(*(q.denominator for q in mu))
    cert = prob.certificate_from([int(q * den) for q in mu], idx)
    if cert is None:  # pragma: no cover - the solver returned a model that is not >= 0
        return None
    return _notsep(how, cert, f"{prob.solver} solved the Gordan system exactly")


def _smt_witness_by_cuts(prob, w, deadline):
    """Exact witness by constraint generation: the solver on the rows the float ``w`` finds
    hardest, adding every row its answer violates, until all rows hold."""
    Z = prob.Zf
    margins = Z @ w
    core = set(np.argsort(margins)[: prob.d + 1].tolist())
    all_ints, _ = prob.int_rows(range(prob.n))
    while True:
        idx = sorted(core)
        wq = _smt_witness(prob, [all_ints[i] for i in idx], deadline)
        if wq is None:
            found = _smt_decide(prob, idx, deadline, f"lp+{prob.solver}",
                                certificate_only=True)
            if found is not None:
                return found
            return _smt_decide(prob, range(prob.n), deadline,  # pragma: no cover
                               f"lp+{prob.solver}")
        den = math.lcm(*(q.denominator for q in wq))
        wi = [int(q * den) for q in wq]
        bad = [i for i, r in enumerate(all_ints) if exact_dot(r, wi) <= 0]
        if not bad:
            return (f"lp+{prob.solver}", tuple(wq), None, f"separable: {prob.solver} "
                    "refined the LP's hyperplane "
                    f"on a core of {len(idx)} examples; exact witness checked on all "
                    f"{prob.n} examples")
        core.update(bad[: prob.d + 1])
