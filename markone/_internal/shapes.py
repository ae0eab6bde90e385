"""Shape facts about array-likes that every other internal module may ask.

The bottom of the internal layer: it imports nothing from markone, so that
:mod:`markone._internal.validation` and :mod:`markone._internal.exact` can both use it
without importing each other.

>>> import scipy.sparse as sp
>>> is_sparse(sp.csr_array((2, 3))), is_sparse([[1, 2]])
(True, False)
"""

from __future__ import annotations

__all__ = ["is_sparse", "sparse_refused", "check_consistent_length"]


def is_sparse(X):
    """True for a :mod:`scipy.sparse` matrix or array (any format)."""
    if not hasattr(X, "tocsr"):  # cheap pre-test: no scipy import for dense input
        return False
    import scipy.sparse

    return scipy.sparse.issparse(X)


def sparse_refused(X, *, name="X", what="this function", hint=""):
    """The ``TypeError`` for sparse input where only dense input is supported.

    Names the format and shape, and the fix: ``X.toarray()`` (after checking that
    the dense copy fits in memory).

    >>> import scipy.sparse as sp
    >>> print(sparse_refused(sp.csr_array((2, 3)), what="exact=True"))
    X is a scipy.sparse csr_array of shape (2, 3), but exact=True needs a dense array; pass X.toarray() (it needs 2 x 3 x 8 bytes).
    """
    n, d = X.shape
    return TypeError(
        f"{name} is a scipy.sparse {type(X).__name__} of shape {X.shape}, but {what} "
        f"needs a dense array; pass {name}.toarray() (it needs {n} x {d} x 8 bytes)"
        f"{hint}.")


def check_consistent_length(X, y, *, names=("X", "y")):
    """Raise when ``X`` and ``y`` disagree on the number of samples."""
    nx = X.shape[0] if hasattr(X, "shape") else len(X)
    if nx != len(y):
        raise ValueError(
            f"{names[0]} has {nx} samples but {names[1]} has {len(y)}; they must "
            "have one label per sample."
        )
