"""Multiclass perceptrons: argmax over one weight vector per class (Kesler), and OvR.

``strategy="argmax"`` keeps one weight vector ``W[k]`` per class and predicts the class
of highest score ``W[k] . x``, **ties going to the lowest class index**. On a mistake
(predicted class ``p`` differs from the true class ``c``) it adds ``eta * x`` to
``W[c]`` and subtracts it from ``W[p]``; a correct prediction changes nothing. With a
zero start every class ties at 0, so the first example is predicted as class 0 (the
first of the sorted ``classes_``): an example of class 0 then makes no update.

Kesler's construction (Nilsson 1965; Duda & Hart 1973) explains why this converges: put
the class vectors end to end, ``w = [W[0], ..., W[K-1]]``, and for an example ``x`` of
class ``c`` and a rival class ``k`` let ``psi(x, c, k)`` be ``+x`` in block ``c``, ``-x``
in block ``k`` and zero elsewhere (:func:`kesler_expand`). Then ``w . psi = W[c].x -
W[k].x``, and a multiclass mistake with prediction ``p`` is exactly a binary mistake
(``w . psi <= 0``, since ``p`` scores at least as high as ``c``) followed by the binary
update ``w += eta * psi(x, c, p)``. So:

* **always exact**: the argmax run equals :func:`markone.train` on the Kesler vectors
  ``psi(x_t, c_t, p_t)`` of its own mistakes, run once again (``order`` = that stream,
  ``max_epochs=1``, ``intercept=False``, every label +1): the binary perceptron errs on
  every one of them and ends with the same ``w``. Hence Novikoff's bound applies with
  ``R_psi = sqrt(2) R`` and the Kesler margin: at most ``2 (R / gamma)^2`` mistakes on
  data that some ``U`` (with ``||U||_F = 1``) separates with ``U[c].x - U[k].x >=
  gamma``.
* **for K = 2** the argmax run also equals the binary perceptron on the full Kesler
  expansion (one vector ``psi(x, c, other)`` per example) presented in the same order,
  *except on ties of a class-0 example*: the binary rule counts a zero score as a
  mistake, the argmax rule sends the tie to class 0 and does not update. Runs in which
  no example of class 0 ever ties are identical; in general they agree up to the first
  such tie. (At the zero start every example ties, so start with a class-1 example.)

``strategy="ovr"`` trains one binary perceptron per class (class ``k`` against the rest)
with :func:`markone.train`, and predicts the class of highest score (ties to the lowest
index). Its ``partial_fit`` and ``learn_one`` continue all ``K`` binary perceptrons
with the one rule of :mod:`markone.online`.

``exact=True`` runs both strategies in exact rational arithmetic: the same argmax pass
on Fractions, and ``train(..., exact=True)`` per class for OvR (see the docs page,
"Exact mode").

Examples
--------
Three classes in the plane, worked by hand (see the docs page): the first example
ties and is predicted correctly as class 0; the next two are mistakes; the second pass
is clean.

>>> from markone import MulticlassPerceptron
>>> X = [[1, 0], [0, 1], [-1, -1]]
>>> clf = MulticlassPerceptron(intercept=False).fit(X, ["a", "b", "c"])
>>> clf.coef_.tolist()
[[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]]
>>> clf.mistakes_per_epoch_, clf.converged_
((2, 0), True)
>>> clf.predict([[2, 1], [-3, -1]]).tolist()
['a', 'c']
"""

from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np
from sklearn.utils.validation import check_is_fitted

from markone import online
from markone.online import _argmax_epoch, _quiet_argmax
from markone._internal.checks import (
    ConvergenceWarning,
    is_stream_run,
    warn_not_converged,
    zero_rows,
    zero_rows_error,
)
from markone._internal.data import Dataset
from markone._internal.exact import to_fraction
from markone._loops import kernel_rows, linear_scores, pass_kernel
from markone._estimator import OnlineClassifier, refuse_non_finite
from markone._params import CORE_CONSTRAINTS, StrOptions, as_float
from markone._internal.typing import ArrayLike, Order, Rational, Seed
from markone._internal.validation import (
    as_generator,
    check_consistent_length,
    check_int_at_least,
    check_matrix,
    is_sparse,
    sparse_refused,
)
from markone.engine import augment, train

__all__ = ["MulticlassPerceptron", "kesler_expand", "STRATEGIES"]

#: The multiclass reductions :class:`MulticlassPerceptron` offers.
STRATEGIES = ("argmax", "ovr")


def kesler_expand(X: ArrayLike, y: ArrayLike, n_classes: int,
                  rival: ArrayLike | None = None) -> np.ndarray:
    """Kesler's vectors: each multiclass example as binary examples of label +1.

    For an example ``x`` of class ``c`` and a rival class ``k != c``, ``psi`` has
    ``+x`` in block ``c``, ``-x`` in block ``k`` (blocks of ``n_features`` entries, one
    per class) and zeros elsewhere, so ``[W[0], ..., W[K-1]] . psi = W[c].x - W[k].x``.

    Parameters
    ----------
    X : array-like (n_samples, n_features)
        Inputs (append the intercept constant first if the model uses one); checked,
        unless they are a checked :class:`markone._internal.data.Dataset` (dense).
    y : array-like of int (n_samples,)
        Class indices in ``0 .. n_classes - 1``.
    n_classes : int
        ``K >= 2``.
    rival : array-like of int (n_samples,), optional
        One rival class per example (e.g. the class predicted at a mistake). Without
        it every other class is a rival, in increasing order.

    Returns
    -------
    ndarray (n_samples * (K - 1), K * n_features), or (n_samples, K * n_features) with
    ``rival``: row ``i * (K - 1) + j`` pairs example ``i`` with its ``j``-th rival.

    Examples
    --------
    >>> kesler_expand([[1, 2]], [1], 3).tolist()
    [[-1.0, -2.0, 1.0, 2.0, 0.0, 0.0], [0.0, 0.0, 1.0, 2.0, -1.0, -2.0]]
    """
    X = X.floats if isinstance(X, Dataset) else check_matrix(X)
    if is_sparse(X):
        raise sparse_refused(X, what="kesler_expand")
    K = check_int_at_least(n_classes, "n_classes", 2)
    c = _class_indices(y, K, "y")
    check_consistent_length(X, c)
    n, d = X.shape
    if rival is None:
        others = np.array([[k for k in range(K) if k != ci] for ci in range(K)])
        rows = np.repeat(np.arange(n), K - 1)
        r = others[c].ravel()
    else:
        r = _class_indices(rival, K, "rival")
        check_consistent_length(X, r, names=("X", "rival"))
        if np.any(r == c):
            i = int(np.flatnonzero(r == c)[0])
            raise ValueError(f"rival[{i}] equals y[{i}]; a rival must be another class.")
        rows = np.arange(n)
    psi = np.zeros((rows.size, K, d))
    psi[np.arange(rows.size), c[rows]] = X[rows]
    psi[np.arange(rows.size), r] -= X[rows]
    return psi.reshape(rows.size, K * d)


def _class_indices(y, K, name):
    arr = np.asarray(y)
    if arr.ndim != 1 or arr.dtype.kind not in "iu":
        raise ValueError(f"{name} must be a 1-D array of class indices (integers), "
                         f"got shape {arr.shape} and dtype {arr.dtype}.")
    if arr.size and (arr.min() < 0 or arr.max() >= K):
        raise ValueError(f"{name} holds class indices outside [0, {K}): "
                         f"{arr[(arr < 0) | (arr >= K)][:5].tolist()}.")
    return arr.astype(np.int64)


class MulticlassPerceptron(OnlineClassifier):
    """Multiclass perceptron with the scikit-learn contract: argmax (Kesler) or OvR.

    Parameters
    ----------
    strategy : "argmax" or "ovr"
        One weight vector per class with argmax prediction (ties to the lowest class
        index; on a mistake ``+eta*x`` on the true class and ``-eta*x`` on the predicted
        one), or one binary perceptron per class against the rest.
    intercept, intercept_scale, eta, max_epochs, order, seed
        As in :func:`markone.train` (keyword-only, stored verbatim, checked in
        ``fit``). Training stops after the first pass without an update.
    variant : "last" or "averaged"
        Predict with the last iterates or with their average over every presentation.
    exact : bool
        Train and predict in exact rational arithmetic (default False: float64). The
        inputs may then be ints of any size, Fractions, strings like ``"1/3"`` and
        floats (taken as the exact binary fractions they are); every score, tie and
        weight is exact, and the fitted arrays hold Fractions (object arrays). The
        same rule and tie-break as in float64: on integer-valued data both modes give
        the same weights.

    Attributes
    ----------
    coef_ : ndarray (n_classes, n_features)
    intercept_ : ndarray (n_classes,)
    w_ : ndarray (n_classes, n_features + intercept)
        The prediction vectors in the augmented space.
    classes_ : ndarray (n_classes,), sorted
    n_mistakes_ : int
        Updates made (for "ovr": summed over the binary perceptrons).
    n_epochs_ : int
        Passes made (for "ovr": the longest binary run; one per ``partial_fit``).
    converged_ : bool
        The last pass made no update (for "ovr": in every binary run).
    mistakes_per_epoch_ : tuple of int
    n_features_in_ : int

    Notes
    -----
    ``decision_function`` gives one score per class, except with two classes where it
    gives ``score[1] - score[0]`` (positive means ``classes_[1]``; zero means
    ``classes_[0]``, the tie rule), as scikit-learn classifiers do.

    Examples
    --------
    Iris is not linearly separable (versicolor and virginica overlap), so the run
    stops at ``max_epochs`` with a warning; the averaged vectors still fit it well:

    >>> import warnings
    >>> from markone import MulticlassPerceptron, datasets
    >>> X, y = datasets.iris()
    >>> clf = MulticlassPerceptron(max_epochs=20, order="shuffle", seed=0,
    ...                            variant="averaged")
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     clf = clf.fit(X, y)
    >>> clf.coef_.shape, clf.n_mistakes_, round(clf.score(X, y), 3)
    ((3, 4), 497, 0.973)

    One example at a time (``classes`` the first time):

    >>> MulticlassPerceptron(strategy="ovr").learn_one([1.0, 2.0], 7, classes=[7, 8, 9]
    ...     ).predict_one([1.0, 2.0])
    7
    """

    _binary = False
    _parameter_constraints: dict = {
        **CORE_CONSTRAINTS,
        "strategy": [StrOptions(set(STRATEGIES))],
        "variant": [StrOptions({"last", "averaged"})],
        "exact": ["boolean"],
    }

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = not self.exact  # exact arithmetic reads dense rows
        return tags

    def __init__(self, *, strategy: str = "argmax", intercept: bool = True,
                 intercept_scale: Rational = 1.0, eta: Rational = 1.0,
                 max_epochs: int = 1000, order: Order = "given", seed: Seed = None,
                 variant: str = "last", exact: bool = False) -> None:
        self.strategy = strategy
        self.intercept = intercept
        self.intercept_scale = intercept_scale
        self.eta = eta
        self.max_epochs = max_epochs
        self.order = order
        self.seed = seed
        self.variant = variant
        self.exact = exact

    # the hooks of OnlineClassifier ----------------------------------------------------
    def _start(self, classes, n_features):
        K, d = len(classes), n_features + bool(self.intercept)
        self._exact = bool(self.exact)
        number = _exact_number if self._exact else as_float
        self._eta = number(self.eta, "eta")
        self._c = number(self.intercept_scale, "intercept_scale") if self.intercept else None
        self._W = self._zeros((K, d))
        self._acc = self._zeros((K, d))
        # exact: Python ints (an np.int64 inside a Fraction would overflow silently)
        self._T = np.zeros(K, dtype=object if self._exact else np.int64)
        self._targets = np.where(np.eye(K, dtype=bool), 1, -1)
        if self._exact:
            self._targets = self._targets.astype(object)
            self._row_shape = None  # no lean learn_one/predict_one: rows become Fractions

    def _zeros(self, shape):
        """Zeros of the state's arithmetic: float64, or (exact) Fractions."""
        return np.full(shape, Fraction(0), dtype=object) if self._exact else np.zeros(shape)

    def _fit_passes(self, data, codes):
        if self.strategy == "argmax":
            return super()._fit_passes(data, codes)
        # one integer seed for all K runs: with order="shuffle" they see the same orders
        seed = int(self._rng.integers(2**63))
        results = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            for k in range(len(self.classes_)):
                results.append(train(  # the inputs checked once, for all K runs
                    data.relabelled(np.where(codes == k, 1, -1)), None,
                    intercept=self.intercept,
                    intercept_scale=self.intercept_scale, eta=self.eta,
                    max_epochs=self.max_epochs, order=self.order, seed=seed,
                    variant=self.variant, exact=self._exact))
        per_pass = len(self.order) if not isinstance(self.order, str) else data.shape[0]
        for k, res in enumerate(results):
            T = res.epochs * per_pass
            self._W[k] = res.last_w
            self._T[k] = T
            # the averaging sum that continues the average in partial_fit
            self._acc[k] = (T + 1) * self._W[k] - T * np.asarray(res.w)
        longest = max(res.epochs for res in results)
        self._record_passes([sum(r.mistakes_per_epoch[e] for r in results
                                 if e < r.epochs) for e in range(longest)])
        stuck = [self.classes_[k].item() for k, r in enumerate(results) if not r.converged]
        if stuck and not is_stream_run(self.order, self.max_epochs):
            warn_not_converged(self.max_epochs, f"the one-vs-rest problems of classes "
                                                f"{stuck}", stacklevel=4)

    def _prepare(self, data, codes):
        if self._exact:  # an object array of Fractions, the constant's column appended
            Xa = data.source
            if self.intercept:
                Xa = np.hstack([Xa, np.full((len(Xa), 1), self._c, dtype=object)])
        else:
            Xa = augment(data, self.intercept, self._c)
            Xa = Xa.copy() if Xa is data.floats else Xa  # owned copy
        if not self.intercept:
            if self.strategy == "ovr":
                zero_rows_error(Xa)
            zero = zero_rows(Xa) & (codes != 0)
            if zero.any():
                self._zero_row_error(int(np.flatnonzero(zero)[0]), codes)
        return Xa, codes

    def _zero_row_error(self, i, codes):
        raise ValueError(
            f"X[{i}] is the zero vector and intercept=False: every class scores "
            f"0 on it, so it is always predicted as {self.classes_[0]!r} and "
            f"its class {self.classes_[codes[i]]!r} can never be learned. Remove "
            "it or use intercept=True.")

    def _pass(self, data, idx):
        """One pass over ``Xa[idx]`` with the strategy's rule; returns the updates."""
        Xa, cls = data
        if self.strategy == "argmax":
            T = self._T[:1].copy()
            epoch = self._epoch(idx.shape[0], self.max_epochs * idx.shape[0])
            m = epoch(kernel_rows(Xa), cls, idx, self._eta, self._W, self._acc, T)
            self._T[:] = T[0]
            return int(m)
        mistakes = 0
        dense = not is_sparse(Xa)
        for i in idx:  # K binary perceptrons at once, with the one online rule
            xa = Xa[i] if dense else Xa[[i]].toarray()[0]
            mistakes += self._ovr_step(xa, self._targets[cls[i]])
        return mistakes

    def _epoch(self, rows, at_most=None):
        """The argmax pass over ``rows`` rows: the Python function run on Fractions
        (exact: every score and tie exact, numpy's object arithmetic), or on float64
        rows, plain or compiled as :func:`markone._loops.pass_kernel` chooses from
        the work (a presentation scores every class: ``K`` units) done so far, coming,
        and at most in all (``at_most`` presentations, for a fit). The plain and
        compiled passes agree bit for bit on exact data (integers)."""
        if self._exact:
            return _argmax_epoch
        K = self._W.shape[0]
        epoch = pass_kernel(_argmax_epoch, int(self._T[0]) * K, rows * K,
                            None if at_most is None else at_most * K)
        return _quiet_argmax if epoch is _argmax_epoch else epoch

    def _ovr_step(self, xa, targets):
        self._T += 1
        wrong = online.is_mistake(online.score(self._W, xa), targets)
        if wrong.any():
            delta = online.increment(xa, targets[wrong, None], self._eta)
            self._W[wrong] += delta
            self._acc[wrong] += self._T[wrong, None] * delta
        return int(wrong.sum())

    def _learn_row(self, x, code):
        xa = np.append(x, self._c) if self.intercept else x
        if not self._exact:  # exact rows are Fractions, finite by construction
            refuse_non_finite(xa)
        if not xa.any() and (code != 0 or self.strategy == "ovr"):
            self._zero_row_error(0, [code])
        if self.strategy == "ovr":
            return self._ovr_step(xa, self._targets[code])
        T = self._T[:1].copy()
        m = self._epoch(1)(xa[None], np.array([code]), _ONE, self._eta, self._W, self._acc, T)
        self._T[:] = T[0]
        return int(m)

    # fitted values --------------------------------------------------------------------
    def _prediction(self):
        check_is_fitted(self)
        if self.variant != "averaged":
            return self._W
        T = np.maximum(self._T, 1)[:, None]
        return np.where(self._T[:, None] > 0, ((T + 1) * self._W - self._acc) / T, self._W)

    @property
    def w_(self) -> np.ndarray:
        """The prediction vectors in the augmented space, shape (n_classes, d + 1)."""
        return self._prediction().copy()

    @property
    def coef_(self) -> np.ndarray:
        """Weights of the features, shape (n_classes, n_features)."""
        return self._prediction()[:, :self.n_features_in_].copy()

    @property
    def intercept_(self) -> np.ndarray:
        """The bias of each class, shape (n_classes,)."""
        W = self._prediction()
        return W[:, -1] * self._c if self.intercept else self._zeros(len(W))

    # prediction -----------------------------------------------------------------------
    def _class_scores(self, X):
        W = self._prediction()
        d = self.n_features_in_
        offsets = W[:, d] * self._c if self.intercept else self._zeros(len(W))
        if self._exact:  # Fractions: every sum exact, in any order
            return X @ W[:, :d].T + offsets
        # entry by entry (linear_scores): predict_one(x) == predict([x])[0] on ties
        return linear_scores(X, W[:, :d], offsets)

    def decision_function(self, X: ArrayLike) -> np.ndarray:
        """Scores per class, shape (n, n_classes); with two classes ``s1 - s0``."""
        S = self._class_scores(self._checked_X(X))
        return S[:, 1] - S[:, 0] if S.shape[1] == 2 else S

    def _score_one(self, x):
        s = self._class_scores(x[None, :])[0]
        return s[1] - s[0] if len(s) == 2 else s

    def _predict_index(self, scores):
        """The class of highest score (ties to the lowest class index)."""
        scores = np.asarray(scores)
        return (scores > 0).astype(int) if scores.ndim == 1 else np.argmax(scores, axis=1)


_ONE = np.zeros(1, dtype=np.int64)


def _exact_number(value, name):
    """A checked step size or intercept constant as the Fraction it is."""
    return to_fraction(value, where=f"{name}=")
