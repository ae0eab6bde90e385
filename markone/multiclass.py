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
  ``psi(x_t, c_t, p_t)`` of its own mistakes, replayed once (``order`` = that stream,
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

import numpy as np
from numba import njit

from markone import online
from markone._checks import (
    ConvergenceWarning,
    check_order,
    epoch_indices,
    warn_not_converged,
    zero_rows_error,
)
from markone._estimator import OnlineClassifier, check_core_params
from markone._validation import (
    as_generator,
    check_choice,
    check_consistent_length,
    check_int_at_least,
    check_matrix,
    encode_class_labels,
)
from markone.perceptron import augment, train

__all__ = ["MulticlassPerceptron", "kesler_expand", "STRATEGIES"]

#: The multiclass reductions :class:`MulticlassPerceptron` offers.
STRATEGIES = ("argmax", "ovr")


@njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
def _argmax_epoch(X, cls, idx, eta, W, acc, T):
    """One pass of the argmax rule over rows ``idx`` of ``X``; returns the mistakes.

    ``W`` (K, d) is updated in place; ``acc`` accumulates ``step * Delta`` for the
    average (as in :func:`markone._kernels.epoch_general`); ``T[0]`` counts
    presentations. Ties go to the lowest class index. The dot products may be summed
    in any order (SIMD, about 3x faster); on integer-valued data (exact in float64)
    that changes nothing, and NaN/inf never get here (inputs are checked first).
    """
    K, d = W.shape
    mistakes = 0
    for t in range(idx.shape[0]):
        i = idx[t]
        x = X[i]
        best = 0
        top = 0.0
        for k in range(K):
            s = 0.0
            for j in range(d):
                s += W[k, j] * x[j]
            if k == 0 or s > top:
                best = k
                top = s
        step = T[0] + 1
        c = cls[i]
        if best != c:
            for j in range(d):
                delta = eta * x[j]
                W[c, j] += delta
                W[best, j] -= delta
                acc[c, j] += step * delta
                acc[best, j] -= step * delta
            mistakes += 1
        T[0] = step
    return mistakes


def kesler_expand(X, y, n_classes, rival=None):
    """Kesler's vectors: each multiclass example as binary examples of label +1.

    For an example ``x`` of class ``c`` and a rival class ``k != c``, ``psi`` has
    ``+x`` in block ``c``, ``-x`` in block ``k`` (blocks of ``n_features`` entries, one
    per class) and zeros elsewhere, so ``[W[0], ..., W[K-1]] . psi = W[c].x - W[k].x``.

    Parameters
    ----------
    X : array-like (n_samples, n_features)
        Inputs (append the intercept constant first if the model uses one).
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
    X = check_matrix(X)
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

    def __init__(self, *, strategy="argmax", intercept=True, intercept_scale=1.0,
                 eta=1.0, max_epochs=1000, order="given", seed=None, variant="last"):
        self.strategy = strategy
        self.intercept = intercept
        self.intercept_scale = intercept_scale
        self.eta = eta
        self.max_epochs = max_epochs
        self.order = order
        self.seed = seed
        self.variant = variant

    def _checked_eta(self):
        check_choice(self.strategy, "strategy", STRATEGIES)
        check_choice(self.variant, "variant", ("last", "averaged"))
        return check_core_params(self.eta, self.max_epochs, self.variant,
                                 self.intercept_scale, self.intercept)

    # fitting ----------------------------------------------------------------------
    def fit(self, X, y):
        """Train from zero on ``(X, y)`` (two or more classes); return ``self``."""
        eta = self._checked_eta()
        Xf = check_matrix(X)
        cls, classes = encode_class_labels(y)
        check_consistent_length(Xf, cls)
        self._reset(classes, Xf.shape[1])
        if self.strategy == "ovr":
            self._fit_ovr(Xf, cls, eta)
        else:
            Xa = self._augmented(Xf, cls)
            order = check_order(self.order, Xa.shape[0])
            for _ in range(self.max_epochs):
                m = self._pass(Xa, cls, epoch_indices(order, Xa.shape[0], self._rng), eta)
                self._per_epoch.append(m)
                if m == 0:
                    break
            if m and not (isinstance(order, np.ndarray) and self.max_epochs == 1):
                warn_not_converged(self.max_epochs)
        self._publish()
        return self

    def _fit_ovr(self, Xf, cls, eta):
        # one integer seed for all K runs: with order="shuffle" they see the same orders
        seed = int(as_generator(self.seed).integers(2**63))
        results = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            for k in range(len(self.classes_)):
                results.append(train(
                    Xf, np.where(cls == k, 1, -1), intercept=self.intercept,
                    intercept_scale=self.intercept_scale, eta=eta,
                    max_epochs=self.max_epochs, order=self.order, seed=seed,
                    variant=self.variant))
        per_pass = len(self.order) if not isinstance(self.order, str) else len(Xf)
        for k, res in enumerate(results):
            T = res.epochs * per_pass
            self._W[k] = res.last_w
            self._T[k] = T
            # the averaging sum that continues the average in partial_fit
            self._acc[k] = (T + 1) * self._W[k] - T * np.asarray(res.w)
        longest = max(res.epochs for res in results)
        self._per_epoch = [sum(r.mistakes_per_epoch[e] for r in results
                               if e < r.epochs) for e in range(longest)]
        stuck = [self.classes_[k].item() for k, r in enumerate(results) if not r.converged]
        if stuck and not (not isinstance(self.order, str) and self.max_epochs == 1):
            warn_not_converged(self.max_epochs, f"the one-vs-rest problems of classes "
                                                f"{stuck}", stacklevel=4)

    def partial_fit(self, X, y, classes=None):
        """One pass over ``(X, y)`` from the current state; return ``self``.

        ``classes`` (every class the model will see) is needed the first time.
        """
        eta = self._checked_eta()
        classes = self._classes_for_partial_fit(classes)
        first = not hasattr(self, "classes_")
        Xf = check_matrix(X) if first else self._check_X(X)
        cls, _ = encode_class_labels(y, classes=classes)
        check_consistent_length(Xf, cls)
        if first:
            self._reset(classes, Xf.shape[1])
        Xa = self._augmented(Xf, cls)
        order = check_order(self.order, Xa.shape[0])
        self._per_epoch.append(
            self._pass(Xa, cls, epoch_indices(order, Xa.shape[0], self._rng), eta))
        self._publish()
        return self

    def _reset(self, classes, n_features):
        K, d = len(classes), n_features + bool(self.intercept)
        self.classes_ = classes
        self.n_features_in_ = n_features
        self._W = np.zeros((K, d))
        self._acc = np.zeros((K, d))
        self._T = np.zeros(K, dtype=np.int64)
        self._per_epoch = []
        self._rng = as_generator(self.seed)

    def _augmented(self, Xf, cls):
        Xa = np.array(augment(Xf, self.intercept, self.intercept_scale))  # owned copy
        if not self.intercept:
            if self.strategy == "ovr":
                zero_rows_error(Xa)
            zero = ~np.any(Xa != 0, axis=1) & (cls != 0)
            if zero.any():
                i = int(np.flatnonzero(zero)[0])
                raise ValueError(
                    f"X[{i}] is the zero vector and intercept=False: every class scores "
                    f"0 on it, so it is always predicted as {self.classes_[0]!r} and "
                    f"its class {self.classes_[cls[i]]!r} can never be learned. Remove "
                    "it or use intercept=True.")
        return Xa

    def _pass(self, Xa, cls, idx, eta):
        """One pass over ``Xa[idx]`` with the strategy's rule; returns the updates."""
        if self.strategy == "argmax":
            T = self._T[:1].copy()
            m = _argmax_epoch(Xa, cls, idx, eta, self._W, self._acc, T)
            self._T[:] = T[0]
            return int(m)
        mistakes = 0
        targets = np.where(np.arange(len(self.classes_)) == cls[:, None], 1, -1)
        for i in idx:  # K binary perceptrons at once, with the one online rule
            self._T += 1
            wrong = online.is_mistake(online.score(self._W, Xa[i]), targets[i])
            if wrong.any():
                delta = online.increment(Xa[i], targets[i, wrong, None], eta)
                self._W[wrong] += delta
                self._acc[wrong] += self._T[wrong, None] * delta
                mistakes += int(wrong.sum())
        return mistakes

    def _publish(self):
        W = self._W
        if self.variant == "averaged":
            T = np.maximum(self._T, 1)[:, None]
            W = np.where(self._T[:, None] > 0, ((T + 1) * self._W - self._acc) / T, W)
        d = self.n_features_in_
        self.w_ = W.copy()
        self.coef_ = W[:, :d].copy()
        c = float(self.intercept_scale) if self.intercept else 0.0
        self.intercept_ = W[:, d] * c if self.intercept else np.zeros(len(W))
        self.n_mistakes_ = int(sum(self._per_epoch))
        self.n_epochs_ = len(self._per_epoch)
        self.converged_ = self._per_epoch[-1] == 0
        self.mistakes_per_epoch_ = tuple(int(m) for m in self._per_epoch)

    # prediction -------------------------------------------------------------------
    def _scores(self, X):
        self._check_fitted()
        return self._check_X(X) @ self.coef_.T + self.intercept_

    def decision_function(self, X):
        """Scores per class, shape (n, n_classes); with two classes ``s1 - s0``."""
        S = self._scores(X)
        return S[:, 1] - S[:, 0] if S.shape[1] == 2 else S

    def predict(self, X):
        """The class of highest score (ties to the lowest class index)."""
        S = self._scores(X)
        return self.classes_[np.argmax(S, axis=1)]
