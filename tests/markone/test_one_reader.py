"""One strict JSON reader and one reader of number text, outside the certificate
kernel (#40): their edges, and the messages each file's reader words from them."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from markone._internal.exact import NumberTooLong, parse_number
from markone._internal.io import JSONRefused, read_strict_json, to_jsonable
from sims.check import read_results
from sims.errors import MalformedResults
from verify.conformance.profile import parse_rate
from verify.machine.claims._evidence import fraction
from verify.machine.schema import read_json_text

# ---- the strict JSON reader --------------------------------------------------------


@pytest.mark.parametrize("text, problem, detail", [
    ('{"a": 1, "b": {"c": 2, "c": 3}}', "duplicate key", "c"),
    ('{"a": 1, "b": 2, "a": 1}', "duplicate key", "a"),   # even with equal values
    ("[1, NaN]", "constant", "NaN"),
    ('{"x": Infinity}', "constant", "Infinity"),
    ("[-Infinity]", "constant", "-Infinity"),
    ("[[[[]]]]", "depth", 3),
    ('{"a": [{"b": [1]}]}', "depth", 3),
])
def test_what_the_strict_reader_refuses(text, problem, detail):
    for raw in (text, text.encode()):
        with pytest.raises(JSONRefused) as info:
            read_strict_json(raw, max_depth=3)
        assert (info.value.problem, info.value.detail) == (problem, detail)
        assert isinstance(info.value, ValueError)


def test_what_the_strict_reader_reads():
    assert read_strict_json('[[["]]]]]]"]]]', max_depth=3) == [[["]]]]]]"]]]
    assert read_strict_json(b'{"a": {"a": 1}}') == {"a": {"a": 1}}   # one per object
    assert read_strict_json("[1e400, 12345678901234567890]") == [float("inf"),
                                                                   12345678901234567890]
    assert read_strict_json("[NaN]", constant=str) == ["NaN"]
    assert read_strict_json("[" * 100 + "]" * 100, max_depth=100) is not None


def test_what_is_not_json_is_said_by_the_parser():
    with pytest.raises(json.JSONDecodeError):
        read_strict_json('{"a": 1,}')
    with pytest.raises(UnicodeDecodeError):
        read_strict_json(b'{"a": "\xff"}')


@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text()
                    | st.floats(allow_nan=False, allow_infinity=False),
                    lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner),
                    max_leaves=20))
def test_the_strict_reader_reads_what_json_writes(doc):
    assert read_strict_json(json.dumps(doc)) == doc


def test_each_file_words_a_refusal_for_its_reader(tmp_path):
    path = tmp_path / "results.json"
    path.write_text('{"seed": 1, "seed": 2}')
    with pytest.raises(MalformedResults, match=r"results.json: the key 'seed' appears "
                       r"twice in one object \(JSON readers differ on which one "
                       r"counts\); keep one\.$"):
        read_results(path)
    path.write_text("[" * 200 + "]" * 200)
    with pytest.raises(MalformedResults, match="nests arrays and objects more than"):
        read_results(path)
    with pytest.raises(ValueError, match="the JSON repeats the key 'a' in one object"):
        read_json_text('{"a": 1, "a": 2}')
    with pytest.raises(ValueError, match="the JSON holds -Infinity: only finite"):
        read_json_text('{"a": -Infinity}')


# ---- the reader of number text -----------------------------------------------------


@pytest.mark.parametrize("text, value", [
    ("3", 3), (" -3/4 ", Fraction(-3, 4)), ("1_000.5", Fraction(2001, 2)),
    (".5e1", 5), ("+2.", 2), ("1e-400", Fraction(1, 10**400)), ("0/7", 0),
])
def test_number_text_read_exactly(text, value):
    assert parse_number(text) == value


@pytest.mark.parametrize("text", ["", "1/-2", "0x10", "1e", "nan", "inf", "1 000",
                                  "1/2/3", "1__0", "_1", "."])
def test_text_that_is_not_a_number(text):
    with pytest.raises(ValueError, match="is not a number"):
        parse_number(text)


def test_number_text_over_the_limit_is_refused_before_it_is_built():
    with pytest.raises(NumberTooLong) as info:
        parse_number("1e999999999999", max_digits=50)
    assert (info.value.size, info.value.limit) == (999_999_999_999 + 1, 50)
    with pytest.raises(ZeroDivisionError):
        parse_number("1/0")


@given(st.fractions())
def test_number_text_read_back(q):
    assert parse_number(str(q)) == q


def test_a_profile_rate_is_read_within_a_digit_limit():
    # "1e999999999" used to be built in full by Fraction (hours); a rate of a
    # thousand digits is refused by its size, before it is built
    with pytest.raises(ValueError, match=r"profile rate: '1e5000' has 5,001 digits "
                       "written out in full, over the 2,000 a rate may have"):
        parse_rate("1e5000")
    assert parse_rate("1/10") == parse_rate("0.1") == parse_rate(0.1) == Fraction(1, 10)


def test_machine_evidence_numbers_are_read_by_the_one_reader():
    assert fraction("-7/2") == Fraction(-7, 2) and fraction("12") == 12
    with pytest.raises(NumberTooLong):
        fraction("1" * 4001)


# ---- the writer's arrays ---------------------------------------------------------


@pytest.mark.parametrize("array", [
    np.array([True, False]), np.arange(6, dtype=np.int32).reshape(2, 3),
    np.array([2**63 - 1, -2**63]), np.array([2**64 - 1], dtype=np.uint64),
    np.array([0.1, -0.0, 1e308, 5e-324]), np.array([1.1], dtype=np.float32),
    np.array([1.0, np.nan, -np.inf]), np.array([[np.inf], [1.0]], dtype=np.float32),
    np.array([1.25], dtype=np.longdouble), np.array([Fraction(1, 3), 2], dtype=object),
    np.zeros((0, 3)), np.array(2.5), np.array([1 + 2j, 3j])],
    ids=lambda a: f"{a.dtype}{a.shape}")
def test_an_array_is_written_as_its_elements_are(array):
    # the shortcut for plain arrays (a run's weights: 4,096 floats) changes no byte
    def typed(v):
        return [typed(x) for x in v] if isinstance(v, list) else (type(v), repr(v))
    assert typed(to_jsonable(array)) == typed(to_jsonable(array.tolist()))
