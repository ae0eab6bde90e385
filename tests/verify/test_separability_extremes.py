"""check_separable at the edges of float64: 1e300 beside 5e-324, against Z3.

The LP sees each row divided by its largest magnitude; its dual values were handed back
divided by that magnitude again, which overflows for a row whose largest entry is
subnormal (``1 / 5e-324`` is beyond float64): sparse input then failed with a NumPy
broadcast error, and an infinite weight could empty the certificate's support. The
verdict of every prover must be the plain SMT encoding's (``method="z3"``, exact
rationals), with a proof that the independent checker accepts.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from verify import check_separable
from verify._internal.cuts import solve_by_cuts
from verify.certificate import check_certificate

MAGNITUDES = [0.0, 5e-324, 1e-323, 2.2250738585072014e-308, 1e-160, 0.75, 1.0, 3.0,
              1e150, 1e300, 1.7976931348623157e308]

extreme_entries = st.builds(lambda m, s: s * m, st.sampled_from(MAGNITUDES),
                            st.sampled_from([-1.0, 1.0]))


@st.composite
def extreme_data(draw):
    n = draw(st.integers(2, 4))
    d = draw(st.integers(1, 3))
    X = np.array(draw(st.lists(st.lists(extreme_entries, min_size=d, max_size=d),
                               min_size=n, max_size=n)))
    y = np.array(draw(st.lists(st.sampled_from([-1, 1]), min_size=n, max_size=n)))
    return X, y


def agrees_with_z3(X, y, intercept, sparse):
    """The verdict on X (dense or CSR) is Z3's on the dense X, with a valid proof."""
    truth = check_separable(X, y, intercept=intercept, method="z3").separable
    v = check_separable(sp.csr_matrix(X) if sparse else X, y, intercept=intercept)
    assert v.separable is truth, (X.tolist(), y.tolist(), v.message)
    assert check_certificate(X, y, v)


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("X, y", [
    ([[1.0], [1e300], [5e-324]], [-1, -1, 1]),        # sparse: broadcast error
    ([[-5e-324, 0.0], [1.0, 1e300], [1e300, 0.0]], [1, -1, -1]),
    ([[1e300, 5e-324], [5e-324, 1e300], [-1e300, 5e-324]], [1, 1, -1]),
    ([[5e-324], [1e300], [-1e300]], [1, 1, 1]),        # not separable: a certificate
])
def test_subnormal_rows_beside_huge_ones(X, y, sparse):
    agrees_with_z3(np.array(X), np.array(y), False, sparse)


def test_the_lp_duals_stay_finite_for_a_subnormal_row():
    """The duals are for the scaled rows: finite, and they cancel those rows."""
    Z = np.array([[5e-324], [-1e300], [1.0]])
    t, w, rows, lam = solve_by_cuts(Z)
    scaled = Z[rows] / np.abs(Z[rows]).max(axis=1, keepdims=True)
    assert t <= 1e-7 and np.isfinite(lam).all() and lam.max() > 0
    assert abs(lam @ scaled[:, 0]) <= 1e-9 * lam.sum()


@settings(max_examples=60, deadline=None)
@given(extreme_data(), st.booleans(), st.booleans())
def test_extreme_magnitudes_agree_with_z3_hypo(data, intercept, sparse):
    X, y = data
    agrees_with_z3(X, y, intercept, sparse)
