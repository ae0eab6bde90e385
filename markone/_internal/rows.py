"""Float64 rows made from checked inputs: ``[X, c]`` and the signed rows ``y_i [x_i, c]``.

Both are exact in float64 (an appended constant and sign flips). The inputs are a
checked float64 array or canonical CSR matrix (:attr:`markone._internal.data.Dataset.floats`);
:meth:`markone._internal.data.Dataset.signed_floats` keeps the signed rows it made, so
the functions of one call that need them (the margin, the re-run) share one copy.

>>> import numpy as np
>>> append_constant(np.array([[1.0, 2.0]]), True, 0.5).tolist()
[[1.0, 2.0, 0.5]]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from markone._internal.shapes import is_sparse

__all__ = ["append_constant", "signed_rows"]


def append_constant(X: Any, intercept: bool, intercept_scale: float) -> Any:
    """``[X, c]`` (``c = intercept_scale``) of a checked float64 array or CSR matrix;
    ``X`` itself without an intercept."""
    if not intercept:
        return X
    if is_sparse(X):
        import scipy.sparse

        col = np.full((X.shape[0], 1), float(intercept_scale))
        return scipy.sparse.hstack([X, col], format="csr")
    return np.hstack([X, np.full((X.shape[0], 1), float(intercept_scale))])


def signed_rows(X: Any, y_pm1: np.ndarray, intercept: bool = True,
                intercept_scale: float = 1.0) -> Any:
    """The rows ``y_i [x_i, c]`` the general loop trains on, from checked inputs
    (a float64 array, or a canonical CSR matrix: :attr:`Dataset.floats`), as a new
    array (``X`` is never changed).

    A sign flip and an appended constant: exact in float64. A zero stays +0.0 (never
    -0.0), so the rows are the same numbers, and the same bytes, however X was stored.

    >>> signed_rows(np.array([[1.0, 2.0], [3.0, 0.0]]), np.array([1, -1])).tolist()
    [[1.0, 2.0, 1.0], [-3.0, 0.0, -1.0]]
    """
    Xa = append_constant(X, intercept, intercept_scale)
    if is_sparse(Xa):
        Xa = Xa.copy() if Xa is X else Xa
        Xa.data *= np.repeat(y_pm1, np.diff(Xa.indptr)).astype(np.float64)
        Xa.data += 0.0  # -0.0 + 0.0 == +0.0; every other number is unchanged
        return Xa
    rows = np.ascontiguousarray(Xa * y_pm1[:, None])
    rows += 0.0
    return rows
