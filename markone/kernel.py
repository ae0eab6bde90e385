"""The kernel perceptron: the perceptron in dual form, with mistake counts per example.

From a zero start, the perceptron's weight vector is always ``w = sum_i alpha_i y_i
x_i``, where ``alpha_i`` counts the mistakes made on example ``i``. So its score on
``x`` is ``sum_i alpha_i y_i (x_i . x)``, and any kernel ``k(x_i, x)`` (an inner
product in some feature space) can replace the dot product (Aizerman, Braverman &
Rozonoer 1964). Training is the same rule: a mistake when ``y_i f(x_i) <= 0`` (a zero
score is a mistake), and then ``alpha_i += 1``.

The intercept is the constant ``c`` (``intercept_scale``) appended to every input, as
in :func:`markone.train`: in dual form it adds ``c**2`` to every kernel value. With the
linear kernel the run is therefore *the* primal run: same mistakes, in the same order,
and the same predictions (exactly, on integer data).

Kernels: ``"linear"`` ``x . z``; ``"poly"`` ``(gamma x . z + coef0) ** degree``;
``"rbf"`` ``exp(-gamma ||x - z||^2)``; or a callable ``k(A, B)`` returning the
``(len(A), len(B))`` matrix of kernel values. ``gamma=None`` means ``1 / n_features``.
``fit`` works on the ``n x n`` kernel matrix of the training set, so it suits data sets
of up to a few thousand examples.

Examples
--------
XOR is not linearly separable, but the degree-2 polynomial kernel separates it:

>>> from markone import KernelPerceptron, datasets
>>> X, y = datasets.xor()
>>> clf = KernelPerceptron(kernel="poly", degree=2).fit(X, y)
>>> clf.converged_, clf.predict(X).tolist() == y.tolist()
(True, True)
>>> clf.alpha_.tolist(), clf.n_mistakes_
([1, 1, 1, 1], 4)
"""

from __future__ import annotations

import numpy as np
from numba import njit
from scipy.spatial.distance import cdist

from markone._checks import check_order, epoch_indices, warn_not_converged
from markone._estimator import OnlineClassifier, check_core_params
from markone._validation import (
    as_generator,
    check_choice,
    check_consistent_length,
    check_int_at_least,
    check_matrix,
    check_positive,
    encode_binary_labels,
)
from markone.online import predict_sign

__all__ = ["KernelPerceptron", "kernel_matrix", "KERNELS"]

#: The kernels known by name (a callable ``k(A, B)`` is accepted too).
KERNELS = ("linear", "poly", "rbf")


def kernel_matrix(A, B, kernel="linear", *, degree=3, gamma=1.0, coef0=1.0):
    """The matrix ``K[i, j] = k(A[i], B[j])`` of one of the :data:`KERNELS` or a callable.

    Examples
    --------
    >>> kernel_matrix([[1, 2]], [[3, 4], [0, 0]]).tolist()
    [[11.0, 0.0]]
    >>> kernel_matrix([[1, 2]], [[3, 4]], "poly", degree=2, gamma=1.0, coef0=1.0).tolist()
    [[144.0]]
    >>> kernel_matrix([[0, 0]], [[0, 0]], "rbf", gamma=0.5).tolist()
    [[1.0]]
    """
    A, B = check_matrix(A, name="A"), check_matrix(B, name="B")
    if A.shape[1] != B.shape[1]:
        raise ValueError(f"A has {A.shape[1]} features but B has {B.shape[1]}.")
    if callable(kernel):
        K = np.asarray(kernel(A, B), dtype=float)
        if K.shape != (len(A), len(B)) or not np.isfinite(K).all():
            raise ValueError(
                f"the kernel callable must return a finite ({len(A)}, {len(B)}) matrix "
                f"k(A, B), got shape {K.shape}; e.g. lambda A, B: (A @ B.T) ** 2.")
        return K
    check_choice(kernel, "kernel", KERNELS)
    if kernel == "rbf":
        return np.exp(-gamma * cdist(A, B, "sqeuclidean"))
    K = A @ B.T
    return K if kernel == "linear" else (gamma * K + coef0) ** degree


@njit(cache=True, nogil=True)
def _dual_epoch(G, y, idx, alpha, f):
    """One pass over ``idx``: a mistake on ``i`` when ``y[i] f[i] <= 0``; then
    ``alpha[i] += 1`` and every score moves by ``y[i] G[i, :]``. Returns the mistakes.

    ``f[j] = sum_i alpha[i] y[i] G[i, j]`` is kept up to date in place.
    """
    n = G.shape[1]
    mistakes = 0
    for t in range(idx.shape[0]):
        i = idx[t]
        if y[i] * f[i] <= 0:
            alpha[i] += 1
            yi = y[i]
            for j in range(n):
                f[j] += yi * G[i, j]
            mistakes += 1
    return mistakes


class KernelPerceptron(OnlineClassifier):
    """Binary kernel perceptron (dual form) with the scikit-learn contract.

    Parameters
    ----------
    kernel : "linear", "poly", "rbf" or callable
        See :func:`kernel_matrix`.
    degree : int
        Degree of the polynomial kernel.
    gamma : float or None
        Scale of the polynomial and RBF kernels; None means ``1 / n_features``.
    coef0 : float
        Constant of the polynomial kernel (``>= 0``).
    intercept, intercept_scale, max_epochs, order, seed
        As in :func:`markone.train` (keyword-only, stored verbatim, checked in
        ``fit``). With a zero start the step size changes no decision, so there is
        no ``eta``.

    Attributes
    ----------
    alpha_ : ndarray of int (n_stored,)
        Mistake counts of the stored examples. ``fit`` stores every training example
        (``alpha_[i]`` belongs to ``X[i]``); ``partial_fit``/``learn_one`` append the
        examples they made a mistake on.
    support_vectors_ : ndarray (n_support, n_features)
        The stored examples with ``alpha > 0`` (the only ones that count).
    dual_coef_ : ndarray (n_support,)
        ``alpha_i * y_i`` for the support vectors.
    gamma_ : float
        The ``gamma`` in use.
    classes_, n_mistakes_, n_epochs_, converged_, mistakes_per_epoch_, n_features_in_
        As in :class:`markone.MulticlassPerceptron`.

    Examples
    --------
    >>> from markone import KernelPerceptron
    >>> clf = KernelPerceptron(kernel="rbf", gamma=2.0).fit([[0, 0], [1, 1], [0, 1], [1, 0]],
    ...                                                     ["same", "same", "diff", "diff"])
    >>> clf.predict([[0.1, 0.9], [0.9, 0.9]]).tolist()
    ['diff', 'same']
    """

    def __init__(self, *, kernel="linear", degree=3, gamma=None, coef0=1.0,
                 intercept=True, intercept_scale=1.0, max_epochs=1000, order="given",
                 seed=None):
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.intercept = intercept
        self.intercept_scale = intercept_scale
        self.max_epochs = max_epochs
        self.order = order
        self.seed = seed

    def _check_params(self):
        if not callable(self.kernel):
            check_choice(self.kernel, "kernel", KERNELS)
        check_int_at_least(self.degree, "degree", 1)
        if self.gamma is not None:
            check_positive(self.gamma, "gamma")
        check_positive(self.coef0, "coef0", allow_zero=True)
        check_core_params(1.0, self.max_epochs, "last", self.intercept_scale,
                          self.intercept)

    def _gram(self, A, B):
        K = kernel_matrix(A, B, self.kernel, degree=self.degree, gamma=self.gamma_,
                          coef0=float(self.coef0))
        if self.intercept:
            K += float(self.intercept_scale) ** 2
        return K

    # fitting ----------------------------------------------------------------------
    def fit(self, X, y):
        """Train from zero on ``(X, y)`` (two classes); return ``self``."""
        self._check_params()
        Xf = check_matrix(X)
        y_pm1, classes = encode_binary_labels(y)
        check_consistent_length(Xf, y_pm1)
        self._reset(classes, Xf.shape[1])
        G = self._checked_gram(Xf)
        alpha, f = np.zeros(len(Xf), dtype=np.int64), np.zeros(len(Xf))
        yf = y_pm1.astype(np.float64)
        order = check_order(self.order, len(Xf))
        for _ in range(self.max_epochs):
            m = int(_dual_epoch(G, yf, epoch_indices(order, len(Xf), self._rng), alpha, f))
            self._per_epoch.append(m)
            if m == 0:
                break
        if m and not (isinstance(order, np.ndarray) and self.max_epochs == 1):
            warn_not_converged(self.max_epochs)
        self._store(Xf, y_pm1, alpha, keep_all=True)
        return self

    def partial_fit(self, X, y, classes=None):
        """One pass over ``(X, y)`` from the current state; return ``self``.

        ``classes`` (the two labels) is needed the first time.
        """
        self._check_params()
        classes = self._classes_for_partial_fit(classes)
        first = not hasattr(self, "classes_")
        Xf = check_matrix(X) if first else self._check_X(X)
        y_pm1, _ = encode_binary_labels(y, classes=classes)
        check_consistent_length(Xf, y_pm1)
        if first:
            self._reset(classes, Xf.shape[1])
        G = self._checked_gram(Xf)
        f = (self.dual_coef_ @ self._gram(self.support_vectors_, Xf) if not first
             else np.zeros(len(Xf)))
        alpha = np.zeros(len(Xf), dtype=np.int64)
        order = check_order(self.order, len(Xf))
        self._per_epoch.append(int(_dual_epoch(
            G, y_pm1.astype(np.float64), epoch_indices(order, len(Xf), self._rng),
            alpha, f)))
        self._store(Xf, y_pm1, alpha, keep_all=False)
        return self

    def _reset(self, classes, n_features):
        self.classes_ = classes
        self.n_features_in_ = n_features
        self.gamma_ = 1.0 / n_features if self.gamma is None else float(self.gamma)
        self._X = np.empty((0, n_features))
        self._y = np.empty(0, dtype=np.int64)
        self._alpha = np.empty(0, dtype=np.int64)
        self._per_epoch = []
        self._rng = as_generator(self.seed)

    def _checked_gram(self, Xf):
        G = self._gram(Xf, Xf)
        null = np.diag(G) <= 0
        if null.any():
            i = int(np.flatnonzero(null)[0])
            raise ValueError(
                f"X[{i}] has k(x, x) = {G[i, i]:g}: it is the zero vector of the kernel's "
                "feature space, so its score is always 0 (a mistake) and training could "
                "never converge. Remove it or use intercept=True.")
        return G

    def _store(self, Xf, y_pm1, alpha, keep_all):
        keep = slice(None) if keep_all else alpha > 0
        self._X = np.vstack([self._X, Xf[keep]])
        self._y = np.concatenate([self._y, y_pm1[keep]])
        self._alpha = np.concatenate([self._alpha, alpha[keep]])
        support = self._alpha > 0
        self.alpha_ = self._alpha.copy()
        self.support_vectors_ = self._X[support]
        self.dual_coef_ = (self._alpha * self._y)[support].astype(np.float64)
        self.n_mistakes_ = int(sum(self._per_epoch))
        self.n_epochs_ = len(self._per_epoch)
        self.converged_ = self._per_epoch[-1] == 0
        self.mistakes_per_epoch_ = tuple(self._per_epoch)

    # prediction -------------------------------------------------------------------
    def decision_function(self, X):
        """``f(x) = sum_i alpha_i y_i k(x_i, x)`` (positive means ``classes_[1]``)."""
        self._check_fitted()
        Xf = self._check_X(X)
        if not len(self.dual_coef_):
            return np.zeros(len(Xf))
        return self.dual_coef_ @ self._gram(self.support_vectors_, Xf)

    def predict(self, X):
        """Predicted classes (a zero score predicts ``classes_[1]``)."""
        positive = predict_sign(self.decision_function(X)) > 0
        return self.classes_[positive.astype(int)]
