"""The data hash has one definition (``markone._internal.datahash``) and two independent
readers: markone's boundary (``Dataset.sha256``, NumPy) and the trusted kernel's
standard-library rows (``verify.certificate.data_sha256``). They must agree on every
kind of data, and both must equal the hash written out from its definition."""

from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

from markone._internal.data import as_dataset
from test_certificate_sparse import hash_oracle
from verify.certificate import data_sha256

ENTRIES = st.one_of(
    st.integers(-10**30, 10**30),
    st.fractions(max_denominator=10**12),
    st.floats(allow_nan=False, allow_infinity=False, width=64),
    st.sampled_from([0, 0.0, -0.0, 0.1, 2.0**-1074, 2.0**60 + 2.0**8]),
)


def tables(entries=ENTRIES):
    return st.integers(1, 5).flatmap(lambda d: st.lists(
        st.lists(entries, min_size=d, max_size=d), min_size=1, max_size=6))


@given(tables(), st.data())
def test_dataset_hash_equals_the_kernels_on_exact_data_hypo(X, data):
    y = data.draw(st.lists(st.sampled_from(["a", "b"]), min_size=len(X),
                           max_size=len(X)).filter(lambda v: len(set(v)) == 2))
    rows = np.array(X, dtype=object)
    assert as_dataset(rows, y).sha256 == data_sha256(X, y) == hash_oracle(X, y)


@given(tables(st.floats(-1e6, 1e6, allow_nan=False)), st.data())
def test_dataset_hash_equals_the_kernels_on_float_and_sparse_data_hypo(X, data):
    y = data.draw(st.lists(st.sampled_from([-1, 1]), min_size=len(X), max_size=len(X)))
    A = np.array(X, dtype=np.float64)
    expected = hash_oracle(X, y)
    for stored in (A, sp.csr_array(A), sp.coo_matrix(A), A.astype(np.float32)
                   if np.array_equal(A.astype(np.float32), A) else A):
        assert as_dataset(stored, y).sha256 == data_sha256(stored, y) == expected


def test_integer_arrays_beyond_float64_hash_by_their_exact_values():
    X = np.array([[2**62 + 1, -3], [0, 7]], dtype=np.int64)
    y = [1, -1]
    expected = hash_oracle(X.tolist(), y)
    assert as_dataset(X, y).sha256 == data_sha256(X, y) == expected
    near = np.array([[2**62, -3], [0, 7]], dtype=np.int64)  # float64 can't tell them apart
    assert as_dataset(near, y).sha256 != expected


def test_a_sparse_matrix_with_explicit_zeros_and_repeated_entries_hashes_as_dense():
    A = sp.coo_array(([0.25, 0.25, 0.0, 3.0], ([0, 0, 1, 1], [2, 2, 0, 1])), shape=(2, 3))
    dense = [[0, 0, Fraction(1, 2)], [0, 3, 0]]
    assert as_dataset(A, [0, 1]).sha256 == data_sha256(A, [0, 1]) == \
        data_sha256(dense, [0, 1])


def test_the_hash_names_the_labels_and_the_version():
    data = as_dataset([[1, "1/3"]], [1])
    assert data.sha256 == data_sha256(data)  # a Dataset hashes itself
    assert data.sha256 != as_dataset([[1, "1/3"]], [-1]).sha256
    assert data.data_sha256(version=1) == data_sha256([[1, "1/3"]], [1], version=1) \
        != data.sha256
    with pytest.raises(ValueError, match="versions 1 and 2"):
        data.data_sha256(version=3)
    with pytest.raises(TypeError, match="carries its labels"):
        data_sha256(data, [1])


def test_nan_has_no_exact_value_to_hash():
    with pytest.raises(ValueError, match=r"X\[0, 1\] is nan"):
        as_dataset([[1.0, float("nan")]], [1]).sha256  # noqa: B018
