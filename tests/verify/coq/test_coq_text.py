"""The text form the Coq checker reads (``verify.coq.checker.certificate_text``): each
example's numbers exact, whichever way its rows are written (no Coq needed)."""

from fractions import Fraction
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import example, given, settings, strategies as st

from verify.coq.checker import DECIMAL_BITS, certificate_text

WITNESS = SimpleNamespace(separable=True, intercept=False, witness=None, certificate=None)


def exact(v):
    """The text of one number as the checker reads it: decimal, hexadecimal beyond
    :data:`DECIMAL_BITS` bits, ``p/q`` for a fraction (an independent writing)."""
    q = Fraction(int(v) if isinstance(v, np.integer) else v)
    whole = [str(n) if n.bit_length() <= DECIMAL_BITS else hex(n)
             for n in (q.numerator, q.denominator)]
    return whole[0] if q.denominator == 1 else "/".join(whole)


SMALL = st.integers(-10**6, 10**6)
NUMBERS = st.one_of(SMALL, st.integers(2**DECIMAL_BITS - 2, 2**DECIMAL_BITS + 2).map(
    lambda n: n * (-1) ** (n % 2)), st.fractions(max_denominator=50), SMALL.map(np.int64))


@settings(max_examples=60)
@given(st.integers(1, 4).flatmap(lambda d: st.lists(
    st.lists(st.one_of(SMALL, NUMBERS) if d % 2 else SMALL, min_size=d, max_size=d),
    min_size=1, max_size=6)))
@example([[2**DECIMAL_BITS, 1], [2, 3]]).via("just past the decimal ints, either sign")
@example([[1, -(2**DECIMAL_BITS)]]).via("just past the decimal ints, either sign")
def test_every_row_is_written_exactly_hypo(X):
    """Rows of small ints only (written a row at a time) and rows with large ints,
    fractions or NumPy ints (written a number at a time) give the same exact text."""
    y = [(-1) ** i for i in range(len(X))]
    lines = certificate_text(X, y, SimpleNamespace(**{**vars(WITNESS), "witness": [0] * len(
        X[0])})).splitlines()
    assert lines[3:-1] == [f"{s} " + " ".join(exact(v) for v in row)
                           for s, row in zip(y, X)]


def test_a_bool_among_small_ints_is_refused():
    """``True`` is an int to Python but no number of the data: refused, not written
    as 1 with the small ints around it."""
    with pytest.raises(ValueError, match="boolean True"):
        certificate_text([[1, 2], [3, True]], [1, -1], SimpleNamespace(
            **{**vars(WITNESS), "witness": [0, 0]}))
