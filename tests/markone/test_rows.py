"""markone._rows: append-only stores that double their buffers; what is stored is
exactly what was appended, in either layout, whatever the mix of appends."""

import numpy as np
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from markone._rows import Rows, Vector, sq_norms


@st.composite
def chunks(draw):
    d = draw(st.integers(1, 5))
    parts = []
    for _ in range(draw(st.integers(1, 8))):
        k = draw(st.integers(0, 40))  # zero-row chunks and chunks beyond a doubling
        values = draw(hnp.arrays(np.int64, (k, d), elements=st.integers(-3, 3)))
        mask = draw(hnp.arrays(np.bool_, (k, d)))  # empty rows and columns happen
        parts.append(((values * mask).astype(float), draw(st.booleans())))
    return d, parts


@given(chunks())
def test_rows_hold_exactly_what_was_appended_hypo(data):
    d, parts = data
    rows, seen = Rows(d), []
    for X, as_sparse in parts:
        rows.extend(sp.csr_array(X) if as_sparse else X)
        seen.append(X)
    expected = np.vstack(seen)
    stored = rows.view()
    first = next((s for X, s in parts if len(X)), None)  # the layout of the first rows
    assert sp.issparse(stored) == bool(first) or not len(expected)
    got = stored.toarray() if sp.issparse(stored) else stored
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(rows.sq_norms(), (expected ** 2).sum(axis=1))
    np.testing.assert_array_equal(sq_norms(sp.csr_array(expected)), rows.sq_norms())


def test_vector_grows_by_doubling():
    v = Vector(np.int64)
    buf, copies = v._buf, 0
    for i in range(1000):
        v.extend([i])
        copies += v._buf is not buf
        buf = v._buf
    assert v.view().tolist() == list(range(1000))
    assert copies == 6  # 16 -> 32 -> 64 -> ... -> 1024
