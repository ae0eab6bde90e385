"""Shipped data and generators: shapes, known answers, bad arguments."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from markone import datasets


def test_iris_matches_fisher():
    X, y = datasets.iris()
    assert X.shape == (150, 4) and np.bincount(y).tolist() == [50, 50, 50]
    # class means of petal length reported by Fisher (1936): 1.462, 4.260, 5.552
    means = [round(X[y == k, 2].mean(), 3) for k in range(3)]
    assert means == [1.462, 4.26, 5.552]


def test_xor_encodings():
    for enc, vals in (("pm1", {-1.0, 1.0}), ("01", {0.0, 1.0})):
        X, y = datasets.xor(enc)
        assert set(X.ravel()) == vals
        assert y.tolist() == [-1, 1, 1, -1]
    with pytest.raises(ValueError, match="encoding"):
        datasets.xor("bits")


def test_orthonormal_arguments():
    X, y = datasets.orthonormal(3, d=5)
    assert X.shape == (3, 5) and (X @ X.T == np.eye(3)).all() and y.tolist() == [1, 1, 1]
    with pytest.raises(ValueError, match="d.*must be >= m"):
        datasets.orthonormal(4, d=2)
    with pytest.raises(ValueError, match="labels"):
        datasets.orthonormal(2, labels=[1, 0])


@given(st.integers(1, 200), st.integers(1, 30), st.floats(0.0, 0.2), st.integers(0, 10**6))
def test_separable_has_its_margin(n, d, margin, seed):
    X, y, u = datasets.separable(n, d, margin, seed=seed)
    assert X.shape == (n, d) and abs(np.linalg.norm(u) - 1) < 1e-12
    assert np.all(y * (X @ u) >= margin) and np.all(np.linalg.norm(X, axis=1) <= 1 + 1e-12)
    X2, y2, u2 = datasets.separable(n, d, margin, seed=seed)
    assert (X == X2).all() and (u == u2).all()


def test_separable_rejects_impossible_margin():
    with pytest.raises(ValueError, match="margin"):
        datasets.separable(10, 2, 1.5)
