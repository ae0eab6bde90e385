"""Gordan certificates by least squares (verify._internal.leastsq): wide data with random
labels decided without an LP, every certificate re-checked by the trusted kernel, and
never a false proof (separable data give None, so the LP decides as before)."""

import time
from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sp

from verify import check_certificate, check_separable
from verify._internal.leastsq import exact_completion, integer_rows_fit, positive_weights
from verify.separability import (LEAST_SQUARES_COLUMNS, _exact_solve_fits, _Stopped,
                                 _unknown)


def random_sparse(n, d, k, seed=0):
    """``n x d`` CSR, ``k`` entries a row in 1..3 at random columns, random labels
    (the benchmark's data, smaller)."""
    rng = np.random.default_rng(seed)
    cols = rng.integers(0, d, size=(n, k))
    A = sp.csr_array((rng.integers(1, 4, n * k).astype(np.float64), cols.ravel(),
                      np.arange(0, n * k + 1, k)), shape=(n, d))
    A.sum_duplicates()
    return A, rng.choice([-1, 1], size=n)


def signed(A, y):
    return sp.hstack([A, np.ones((A.shape[0], 1))], format="csr").multiply(
        y[:, None]).tocsr()


def test_wide_random_labels_are_decided_by_least_squares_and_rechecked():
    A, y = random_sparse(4 * LEAST_SQUARES_COLUMNS, LEAST_SQUARES_COLUMNS, 8)
    v = check_separable(A, y)
    assert (v.separable, v.method, v.stopped_by) == (False, "leastsq", "")
    assert check_certificate(A, y, v)
    assert all(isinstance(w, Fraction) and w > 0 for w in v.certificate.values())
    assert min(v.certificate.values()) == 1
    # the LP, asked alone, agrees (the verdict did not change, only the prover)
    assert check_separable(A, y, method="lp").separable is False


def test_narrow_or_short_data_still_go_to_the_lp():
    A, y = random_sparse(4 * 50, 50, 5)
    assert check_separable(A, y).method == "lp"          # too few columns
    d = LEAST_SQUARES_COLUMNS
    A, y = random_sparse(2 * d - 10, d, 8)                # fewer than 2 rows a column
    assert check_separable(A, y).method != "leastsq"


def test_weights_are_positive_and_cancel():
    A, y = random_sparse(3000, 300, 6, seed=3)
    Z = signed(A, y)
    c = positive_weights(Z)
    assert c is not None and (c >= 0).all() and c.max() > 0
    assert np.abs(Z.T @ c).max() < 1e-8
    cert = exact_completion(Z, c)
    assert cert is not None and all(w > 0 for w in cert.values())
    Zd = Z.toarray().astype(np.int64)
    for j in range(Zd.shape[1]):
        assert sum(w * int(Zd[i, j]) for i, w in cert.items() if Zd[i, j]) == 0


def test_separable_rows_give_no_weights_and_no_certificate():
    # rows with a strictly positive first coordinate: w = e_1 separates them
    rng = np.random.default_rng(1)
    Z = rng.integers(-3, 4, size=(400, 20)).astype(np.float64)
    Z[:, 0] = rng.integers(1, 4, size=400)
    assert positive_weights(Z) is None
    # and whatever positive weights are asked to complete, no false proof comes out
    assert exact_completion(Z, np.ones(400)) is None


def test_a_basis_that_cannot_be_matched_is_refused():
    Z = np.array([[1.0, 0.0], [-1.0, 0.0], [2.0, 0.0]])   # column 1 stores nothing
    assert exact_completion(Z, np.ones(3)) is None


def test_only_small_integers_are_taken():
    assert integer_rows_fit(sp.csr_array(np.array([[1.0, -3.0]])))
    assert not integer_rows_fit(np.array([[0.5, 1.0]]))
    assert not integer_rows_fit(np.array([[2.0**20, 1.0]]))


def test_an_exact_solve_that_cannot_fit_the_deadline_is_not_started():
    ZB = np.eye(40, dtype=np.int64)
    with pytest.raises(_Stopped) as stop:
        _exact_solve_fits(ZB, time.perf_counter() - 1)    # the deadline has passed
    assert stop.value.stopped_by == "timeout"
    assert "40 x 40 integer solve, predicted" in stop.value.what
    message = _unknown(stop.value, 120, "auto")
    assert message.startswith("unknown: no verdict within timeout_s=120 s")
    assert "stopped at: the exact certificate (a 40 x 40 integer solve" in message
    assert "raise timeout_s, or leave it out" in message
