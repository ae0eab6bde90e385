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

Sparse input (any :mod:`scipy.sparse` format) is used through its stored entries: the
kernel matrices come from sparse products (RBF: ``||a||^2 + ||b||^2 - 2 a . b``), the
support vectors are stored sparse, and on exact data the run is the dense run, bit for
bit. A callable kernel then receives the sparse rows as they are (CSR).

Cost of one example (``learn_one``, ``predict_one``, a one-row ``partial_fit``): the
linear kernel keeps the primal vector ``w = sum_i alpha_i y_i [x_i, c]`` beside the
dual counts, so its scores cost O(d); any other kernel needs the kernel row of ``x``
against the support set, O(d x support), computed in one vectorised call. The support
set grows by appends into doubling buffers (amortised O(d) each); nothing else grows.

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
from scipy.spatial.distance import cdist

import numbers
from collections.abc import Callable
from typing import Any

from sklearn.utils.validation import check_is_fitted

from markone._loops import linear_scores, pass_kernel
from markone.online import _dual_epoch
from markone._internal.jit import uncompiled
from markone._estimator import OnlineClassifier, refuse_non_finite
from markone._params import CORE_CONSTRAINTS, Interval, PositiveReal, StrOptions, as_float
from markone._internal.typing import ArrayLike, Order, Rational, Seed
from markone._rows import Rows, Vector, sq_norms
from markone._internal.validation import check_choice, check_matrix_or_sparse, is_sparse

__all__ = ["KernelPerceptron", "kernel_matrix", "KERNELS"]

#: The kernels known by name (a callable ``k(A, B)`` is accepted too).
KERNELS = ("linear", "poly", "rbf")


def kernel_matrix(A: ArrayLike, B: ArrayLike, kernel: str | Callable = "linear", *,
                  degree: int = 3, gamma: float = 1.0, coef0: float = 1.0) -> np.ndarray:
    """The matrix ``K[i, j] = k(A[i], B[j])`` of one of the :data:`KERNELS` or a callable.

    ``A`` and ``B`` may be dense or :mod:`scipy.sparse` (each on its own); sparse rows
    are used through their stored entries, never written out, and ``K`` is dense.

    Examples
    --------
    >>> kernel_matrix([[1, 2]], [[3, 4], [0, 0]]).tolist()
    [[11.0, 0.0]]
    >>> kernel_matrix([[1, 2]], [[3, 4]], "poly", degree=2, gamma=1.0, coef0=1.0).tolist()
    [[144.0]]
    >>> kernel_matrix([[0, 0]], [[0, 0]], "rbf", gamma=0.5).tolist()
    [[1.0]]
    >>> import scipy.sparse as sp
    >>> kernel_matrix(sp.csr_array([[0, 1]]), [[0, 0], [0, 3]], "rbf", gamma=0.5).tolist()
    [[0.6065306597126334, 0.1353352832366127]]
    """
    A, B = check_matrix_or_sparse(A, name="A"), check_matrix_or_sparse(B, name="B")
    if A.shape[1] != B.shape[1]:
        raise ValueError(f"A has {A.shape[1]} features but B has {B.shape[1]}.")
    if not callable(kernel):
        check_choice(kernel, "kernel", KERNELS)
    return _kernel(A, B, kernel, degree=degree, gamma=gamma, coef0=coef0)


def _kernel(A, B, kernel, *, degree, gamma, coef0, sq_a=None):
    """:func:`kernel_matrix` on checked operands (no validation: the learners call it
    once per example). ``sq_a`` are the squared norms of ``A``'s rows when known."""
    if callable(kernel):
        K = kernel(A, B)
        K = K.toarray() if is_sparse(K) else np.asarray(K, dtype=float)
        if K.shape != (A.shape[0], B.shape[0]) or not np.isfinite(K).all():
            raise ValueError(
                f"the kernel callable must return a finite ({A.shape[0]}, {B.shape[0]}) "
                f"matrix k(A, B), got shape {K.shape}; e.g. lambda A, B: (A @ B.T) ** 2.")
        return K
    if kernel == "rbf":
        if is_sparse(A) or is_sparse(B):  # ||a||^2 + ||b||^2 - 2 a . b, stored entries only
            D = (sq_norms(A) if sq_a is None else sq_a)[:, None] + sq_norms(B)[None, :]
            D -= 2 * _dots(A, B)
            np.maximum(D, 0.0, out=D)  # rounding may leave -0.x on float data
        else:
            D = cdist(A, B, "sqeuclidean")
        return np.exp(-gamma * D)
    K = _dots(A, B)
    return K if kernel == "linear" else (gamma * K + coef0) ** degree


def _dots(A, B):
    """``A @ B.T`` as a dense C-ordered array, each operand dense or sparse (one
    layout whatever the operands, so that the scores summed from it are too)."""
    K = A @ B.T
    return K.toarray() if is_sparse(K) else np.ascontiguousarray(K)


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
    support_vectors_ : ndarray or scipy.sparse CSR array (n_support, n_features)
        The stored examples with ``alpha > 0`` (the only ones that count); sparse when
        the model was first trained on sparse input.
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

    _parameter_constraints: dict = {
        **{k: v for k, v in CORE_CONSTRAINTS.items() if k not in ("eta", "variant")},
        "kernel": [StrOptions(set(KERNELS)), callable],
        "degree": [Interval(numbers.Integral, 1, None, closed="left")],
        "gamma": [None, PositiveReal()],
        "coef0": [Interval(numbers.Real, 0, None, closed="left")],
    }

    def __init__(self, *, kernel: str | Callable = "linear", degree: int = 3,
                 gamma: float | None = None, coef0: float = 1.0, intercept: bool = True,
                 intercept_scale: Rational = 1.0, max_epochs: int = 1000,
                 order: Order = "given", seed: Seed = None) -> None:
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.intercept = intercept
        self.intercept_scale = intercept_scale
        self.max_epochs = max_epochs
        self.order = order
        self.seed = seed

    def _gram(self, A, B, sq_a=None):
        K = _kernel(A, B, self.kernel, degree=self.degree, gamma=self.gamma_,
                    coef0=float(self.coef0), sq_a=sq_a)
        return K + self._c ** 2 if self.intercept else K

    # the hooks of OnlineClassifier ----------------------------------------------------
    def _start(self, classes, n_features):
        self.gamma_ = 1.0 / n_features if self.gamma is None else as_float(self.gamma, "gamma")
        self._c = as_float(self.intercept_scale, "intercept_scale") if self.intercept \
            else 0.0
        self._linear = isinstance(self.kernel, str) and self.kernel == "linear"
        # append-only state: the mistake counts of the stored examples, and the
        # support set (rows with alpha > 0, their alpha * y); stored counts never
        # change, so nothing is ever rebuilt
        self._alpha = Vector(np.int64)
        self._rows = Rows(n_features)
        self._coef = Vector(np.float64)
        # the linear kernel's primal vector sum_i alpha_i y_i [x_i, c]: O(d) scores
        self._w = np.zeros(n_features)
        self._b = 0.0

    def _fit_passes(self, data, codes):
        super()._fit_passes(data, codes)
        self._store(*self._data, keep_all=True)

    def _prepare(self, data, codes):
        """Gram matrix, labels, fresh mistake counts and current scores of the inputs."""
        X = data.floats
        G = self._checked_gram(X)
        self._data = (X, codes, np.zeros(X.shape[0], dtype=np.int64))
        presented = np.zeros(1, dtype=np.int64)   # so far in this fit: picks the path
        return G, codes.astype(np.float64), self._data[2], self._scores(X), presented

    def _pass(self, data, idx):
        """One pass of the dual rule, plain or compiled as
        :func:`markone._loops.pass_kernel` chooses from the presentations of this
        fit (or partial_fit) so far, coming, and at most: the same result bit for
        bit."""
        G, yf, alpha, f, presented = data
        epoch = pass_kernel(_dual_epoch, int(presented[0]), idx.shape[0],
                            self.max_epochs * idx.shape[0])
        presented[0] += idx.shape[0]
        return int(uncompiled(epoch)(G, yf, idx, alpha, f))

    def _end_partial_fit(self):
        self._store(*self._data, keep_all=False)  # only the examples it erred on

    def _learn_row(self, x, code):
        refuse_non_finite(x)
        if self._linear:  # O(d): k(x, x) and the score from the primal vector
            kxx, score = x @ x + self._c ** 2, x @ self._w + self._b
        else:  # O(d x support): the kernel row against the support, in one call
            kxx, score = self._gram(x[None], x[None])[0, 0], self._scores(x[None])[0]
        if kxx <= 0:
            self._null_error(0, kxx)
        if code * score > 0:
            return 0
        self._store(x[None], np.array([code]), np.array([1]), keep_all=True)
        return 1

    def _checked_gram(self, Xf):
        G = self._gram(Xf, Xf)
        null = np.diag(G) <= 0
        if null.any():
            i = int(np.flatnonzero(null)[0])
            self._null_error(i, G[i, i])
        return G

    @staticmethod
    def _null_error(i, kxx):
        raise ValueError(
            f"X[{i}] has k(x, x) = {kxx:g}: it is the zero vector of the kernel's "
            "feature space, so its score is always 0 (a mistake) and training could "
            "never converge. Remove it or use intercept=True.")

    def _store(self, Xf, y_pm1, alpha, keep_all):
        """Append the counts (all, or the non-zero ones) and the new support vectors:
        amortised O(what is appended), whatever is stored already."""
        support = alpha > 0
        self._alpha.extend(alpha if keep_all else alpha[support])
        rows = Xf if support.all() else Xf[np.flatnonzero(support)]
        coef = (alpha * y_pm1)[support].astype(np.float64)
        self._rows.extend(rows)
        self._coef.extend(coef)
        if self._linear:
            self._w += np.asarray(rows.T @ coef).ravel()
            self._b += float(coef.sum()) * self._c ** 2

    # fitted values ----------------------------------------------------------------------
    @property
    def alpha_(self) -> np.ndarray:
        """Mistake counts of the stored examples."""
        check_is_fitted(self)
        return self._alpha.view().copy()

    @property
    def support_vectors_(self) -> Any:
        """The stored examples with ``alpha > 0``: an array, or a CSR array when the
        model was trained on sparse input."""
        check_is_fitted(self)
        S = self._rows.view()
        return S.copy()

    @property
    def dual_coef_(self) -> np.ndarray:
        """``alpha_i * y_i`` of the support vectors."""
        check_is_fitted(self)
        return self._coef.view().copy()

    # prediction -------------------------------------------------------------------
    def decision_function(self, X: ArrayLike) -> np.ndarray:
        """``f(x) = sum_i alpha_i y_i k(x_i, x)`` (positive means ``classes_[1]``)."""
        return self._scores(self._checked_X(X))

    def _scores(self, X):
        # sums entry by entry (linear_scores), so that predict_one(x) equals
        # predict([x])[0] even on a tie
        if self._linear:  # the primal vector: O(d) per row, equal to the dual sum
            return linear_scores(X, self._w[None], [self._b])[:, 0]
        if not self._rows.n:
            return np.zeros(X.shape[0])
        K = self._gram(self._rows.view(), X, sq_a=self._rows.sq_norms())
        return linear_scores(K.T, self._coef.view()[None], [0.0])[:, 0]

    def _score_one(self, x):
        refuse_non_finite(x)        # an rbf kernel would score inf as a finite 0
        return self._scores(x[None])[0]
