"""Inputs at the one data boundary (markone._internal.data): tables are read by their values,
each call checks its data once, bad labels are refused by name (issues 25 and 31)."""

import dataclasses
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

import markone
import verify
from markone._internal import data as boundary
from markone.batch import train_many
from verify.adversary import novikoff_terms, run_order
from verify.cycling import integer_yx
from verify.margin import scaled_data

# column names that read as numbers: iterating the frame gives "2019", "2020"
FRAME = pd.DataFrame({"2019": [1.0, 2.0, -1.0], "2020": [3.0, 1.0, -2.0]})
LABELS = [0, 1, 0]
# an int64 column beside a float column: a common float64 type would round 2**60 + 1
MIXED = pd.DataFrame({"7": [2**60 + 1, -(2**60), 3], "8": [0.5, -1.5, 0.25]})


def _quiet(f):
    def run(X, y):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return f(X, y)
    return run


#: Every public function that takes (X, y), on small separable data.
ENTRY_POINTS = {
    "train": lambda X, y: markone.train(X, y),
    "train exact": lambda X, y: markone.train(X, y, exact=True),
    "train voted record": lambda X, y: markone.train(X, y, variant="voted", record=True),
    "train order": lambda X, y: markone.train(X, y, order=[2, 0, 1, 0]),
    "check_separable": lambda X, y: verify.check_separable(X, y),
    "check_separable z3": lambda X, y: verify.check_separable(X, y, method="z3"),
    "max_margin": lambda X, y: verify.max_margin(X, y),
    "max_margin svm": lambda X, y: verify.max_margin(X, y, svm=True),
    "worst_order": lambda X, y: verify.worst_order(X, y),
    "worst_order exhaustive": lambda X, y: verify.worst_order(X, y, method="exhaustive"),
    "check_cycling": lambda X, y: verify.check_cycling(X, y),
    "check_cycling all": lambda X, y: verify.check_cycling(X, y, order="all"),
    "check_mistake_bound": lambda X, y: verify.check_mistake_bound(X, y),
    "check_mistake_bound exact": lambda X, y: verify.check_mistake_bound(X, y, exact=True),
    "check_compression": lambda X, y: verify.check_compression(X, y),
    "check_compression exact": lambda X, y: verify.check_compression(X, y, exact=True),
    "freund_schapire_bound": lambda X, y: verify.freund_schapire_bound(
        X, y, u=[1.0, -1.0, 0.0], gamma=0.5),
    "novikoff_terms": lambda X, y: novikoff_terms(X, y),
    "run_order": lambda X, y: run_order(X, y, [0, 1, 2, 0]),
    "run_order exact": lambda X, y: run_order(X, y, [0, 1, 2, 0], exact=True),
    "scaled_data": lambda X, y: scaled_data(X, y),
    "integer_yx": lambda X, y: integer_yx(X, y),
    "train_many": lambda X, y: train_many([X], [y], max_epochs=5),
}

#: Entry points that read (X, y) through scikit-learn's validation (the estimators)
#: or with labels of any number of classes: they read frames by their values too.
OTHER_ENTRY_POINTS = {
    "check_multiclass_bound": lambda X, y: verify.check_multiclass_bound(X, y),
    "Perceptron": lambda X, y: markone.Perceptron().fit(X, y).w_,
    "MulticlassPerceptron": lambda X, y: markone.MulticlassPerceptron().fit(X, y).coef_,
    "KernelPerceptron": lambda X, y: markone.KernelPerceptron().fit(X, y).predict(X),
}


def _plain(result):
    """A result as plain comparable values (arrays as lists, no timings)."""
    if dataclasses.is_dataclass(result):
        return {f.name: _plain(getattr(result, f.name))
                for f in dataclasses.fields(result) if f.name != "time_s"}
    if isinstance(result, np.ndarray):
        return ("array", str(result.dtype), result.tolist())
    if isinstance(result, (tuple, list)):
        return type(result).__name__, [_plain(v) for v in result]
    if isinstance(result, dict):
        return {k: _plain(v) for k, v in result.items()}
    return result


@pytest.mark.parametrize("name", [*ENTRY_POINTS, *OTHER_ENTRY_POINTS])
def test_a_dataframe_gives_what_its_values_give(name):
    f = _quiet({**ENTRY_POINTS, **OTHER_ENTRY_POINTS}[name])
    assert _plain(f(FRAME, LABELS)) == _plain(f(FRAME.to_numpy(), np.array(LABELS)))


def test_the_exact_core_reads_a_frame_by_its_values():
    """It read the column names "2019", "2020" (5 weights for 2 features)."""
    res = markone.train(FRAME.iloc[:2], [0, 1], exact=True)
    assert res.w == (Fraction(4), Fraction(-3), Fraction(1))


def test_a_frame_of_mixed_columns_is_read_exactly():
    """An int column beside a float column: nothing is rounded to a common type."""
    y = pd.Series(["a", "b", "a"])
    exact = markone.train(MIXED, y, exact=True)
    rows = np.array([[2**60 + 1, Fraction(1, 2)], [-(2**60), Fraction(-3, 2)],
                     [3, Fraction(1, 4)]], dtype=object)
    assert exact.w == markone.train(rows, ["a", "b", "a"], exact=True).w
    with pytest.raises(ValueError, match=r"X\[0, 0\] = 1152921504606846977 is not exactly"):
        markone.train(MIXED, y)   # float arithmetic would round 2**60 + 1: said
    assert verify.check_cycling(MIXED, y).converged


def test_an_object_with_array_protocol_is_read_by_its_values():
    class Table:
        def __array__(self, dtype=None, copy=None):
            return FRAME.to_numpy()

        def __iter__(self):
            raise AssertionError("iterated")

    a = markone.train(Table(), LABELS, exact=True)
    assert a.w == markone.train(FRAME.to_numpy(), LABELS, exact=True).w


@pytest.mark.parametrize("name", ENTRY_POINTS)
def test_each_call_checks_its_data_once(name, monkeypatch):
    """One public call: one crossing of the boundary, however many inner functions
    (max_margin, train, check_separable...) it calls on the data."""
    calls = []
    real = boundary._validated

    def counted(*args, **kw):
        calls.append(1)
        return real(*args, **kw)

    monkeypatch.setattr(boundary, "_validated", counted)
    _quiet(ENTRY_POINTS[name])(FRAME, LABELS)
    assert len(calls) == 1


@pytest.mark.parametrize("name", ["worst_order", "check_mistake_bound", "check_compression",
                                  "check_separable", "max_margin"])
def test_each_call_looks_for_rounding_once(name, monkeypatch):
    """worst_order used to pass X through check_matrix 3 times and first_inexact twice."""
    calls = []
    real = boundary.first_inexact

    def counted(arr):
        calls.append(arr.shape)
        return real(arr)

    monkeypatch.setattr(boundary, "first_inexact", counted)
    _quiet(ENTRY_POINTS[name])(FRAME, LABELS)
    assert calls == [FRAME.shape]


def test_a_dataset_is_converted_once():
    data = boundary.as_dataset([["1/2", 1], [2, "3"]], [1, -1])
    assert data.fractions is data.fractions and data.floats is data.floats
    a = data.signed_integers(intercept=True)
    assert data.signed_integers(intercept=True) is a
    with pytest.raises(TypeError, match="carries its labels"):
        boundary.as_dataset(data, [1, -1])


@pytest.mark.parametrize("name", ENTRY_POINTS)
@pytest.mark.parametrize("y, match", [
    ([0, None, 1], r"y(s\[0\])?\[1\] is None, a missing label"),
    (pd.Series([0, pd.NA, 1], dtype=object), r"y(s\[0\])?\[1\] is <NA>, a missing label"),
    (pd.array([0, pd.NA, 1]), r"y(s\[0\])?\[1\] is NaN, a missing label"),
    ([0.0, 1.0, np.nan], r"y(s\[0\])?\[2\] is NaN, a missing label"),
    (np.array([0, "a", 1], dtype=object), "mixes labels of types int, str"),
    (["a", "a", "a"], r"only one class \('a'\), which has no side"),
])
def test_bad_labels_are_refused_by_name_everywhere(name, y, match):
    with pytest.raises((ValueError, TypeError), match=match):
        _quiet(ENTRY_POINTS[name])(FRAME, y)


@pytest.mark.parametrize("estimator", [markone.Perceptron, markone.MulticlassPerceptron,
                                       markone.KernelPerceptron])
@pytest.mark.parametrize("y, match", [
    ([0, None, 1], r"y\[1\] is None, a missing label"),
    (pd.Series([0, pd.NA, 1], dtype=object), r"y\[1\] is <NA>, a missing label"),
])
def test_the_estimators_refuse_missing_labels_by_name(estimator, y, match):
    """(scikit-learn said "Unknown label type" or "boolean value of NA is ambiguous")"""
    with pytest.raises(ValueError, match=match):
        estimator().fit(FRAME, y)
    with pytest.raises(ValueError, match=match):
        estimator().partial_fit(FRAME, y, classes=[0, 1])


@pytest.mark.parametrize("name", [n for n in ENTRY_POINTS if "svm" not in n])
def test_one_class_of_pm1_labels_is_a_question_everywhere(name):
    """The deliberate rule: one class given as -1/+1 labels is accepted (it is on a
    side), separable with an intercept."""
    _quiet(ENTRY_POINTS[name])(FRAME, [1, 1, 1])
    v = verify.check_separable(FRAME, [-1, -1, -1])
    assert v.separable and v.method == "trivial" and "one class" in v.message


# ---- numbers written as text: a digit limit before any big number is made ----------

#: Short texts of huge numbers (each would take minutes to make), and long ones.
HUGE = ["1e100000000", "1e1_000_000_00", "-2.5E+99999999", "1/1e9", "1" * 10_001,
        "0." + "0" * 10_000 + "1", "1/" + "3" * 10_001, "1_" * 10_001 + "1"]


@pytest.mark.parametrize("text", HUGE[:3] + HUGE[4:], ids=lambda t: t[:16])
def test_a_huge_number_string_is_refused_by_its_size(text):
    from markone._internal.exact import NumberTooLong, to_fraction

    with pytest.raises(NumberTooLong, match=r"digits when written out in full, beyond "
                       r"max_digits=10000; raise the limit \(with markone\.datasets\."
                       r"digit_limit\(N\)"):
        to_fraction(text, where="X[0, 0] ")
    with pytest.raises(NumberTooLong, match=r"^X\[0, 0\]"):
        markone.train([[text], ["1"]], [1, -1], exact=True)
    with pytest.raises(NumberTooLong, match=r"X\[0, 0\]"):
        markone.train([[text], ["1"]], [1, -1])


def test_the_digit_limit_can_be_raised():
    from decimal import Decimal

    from markone._internal.exact import NumberTooLong, to_fraction

    with markone.datasets.digit_limit(20_001):
        assert to_fraction("1e20000") == 10**20000
        assert to_fraction(Decimal("1e-20000")) == Fraction(1, 10**20000)
    with pytest.raises(NumberTooLong):
        to_fraction(Decimal("1e-20000"))
    with pytest.raises(ValueError, match="max_digits"):
        with markone.datasets.digit_limit(0):
            pass
    assert to_fraction(10**20000) == 10**20000   # an int has no limit


@pytest.mark.parametrize("exact", [None, True, False])
@pytest.mark.parametrize("where", ["feature", "label", "header"])
def test_load_table_refuses_a_huge_cell_by_line_and_column(tmp_path, exact, where):
    rows = [["a", "b", "y"], ["1", "2", "0"], ["3", "4", "1"]]
    r, c = {"feature": (2, 1), "label": (1, 2), "header": (0, 0)}[where]
    rows[r][c] = "1e1_000_000_00"
    path = tmp_path / "t.csv"
    path.write_text("\n".join(",".join(row) for row in rows) + "\n")
    from markone._internal.exact import NumberTooLong

    with pytest.raises(NumberTooLong, match=rf"t\.csv, line {r + 1}, column {c + 1}: "
                       r"'1e1_000_000_00' has 100000001 digits"):
        markone.datasets.load_table(path, exact=exact)


#: A number of 5001 digits: past Python's 4300-digit limit on int <-> str.
LONG = 10**5000


@pytest.mark.parametrize("X", [[[LONG], [-1]], [["1" + "0" * 5000], ["-1"]]],
                         ids=["int", "text"])
@pytest.mark.parametrize("name", ["train exact", "check_separable", "check_separable z3",
                                  "check_cycling", "check_cycling all",
                                  "worst_order exhaustive", "check_mistake_bound exact",
                                  "check_compression exact"])
def test_numbers_beyond_4300_digits_work_in_exact_paths(X, name):
    """Python refuses str(int) beyond 4300 digits: exact paths read, compute, print
    and save such numbers all the same."""
    import json

    from markone._internal.io import to_jsonable

    result = _quiet(ENTRY_POINTS[name])(X, [1, -1])
    repr(result)
    json.dumps(to_jsonable(result))


@pytest.mark.parametrize("command", [["train"], ["verify", "separable"],
                                     ["verify", "cycling"], ["verify", "margin"],
                                     ["adversary", "exhaustive", "--out", "{out}"],
                                     ["adversary", "greedy", "--out", "{out}"]])
@pytest.mark.parametrize("cell", ["1e1_000_000_00", "1" + "0" * 5000],
                         ids=["huge", "long"])
def test_every_data_command_refuses_a_huge_cell_or_works_past_4300_digits(
        tmp_path, command, cell):
    from markone.cli import main

    path = tmp_path / "t.csv"
    path.write_text(f"x,y\n{cell},0\n-1,1\n")
    args = [a.replace("{out}", str(tmp_path / "o.json")) for a in command] + [str(path)]
    status = main(args)
    assert status in ((2,) if "e" in cell or "greedy" in command else (0, 1))


def test_the_max_digits_flag_names_the_limit_and_raises_it(tmp_path, capsys):
    from markone.cli import main

    path = tmp_path / "t.csv"
    path.write_text("x,y\n1e12000,0\n-1,1\n")
    assert main(["verify", "separable", str(path)]) == 2
    err = capsys.readouterr().err
    assert "beyond --max-digits 10000; raise the limit with --max-digits N" in err
    assert "set_int_max_str_digits" not in err
    assert main(["verify", "separable", "--max-digits", "12001", str(path)]) == 0


def test_timeout_counts_from_the_start_of_the_command():
    import argparse
    import time

    from markone.cli import timeout_left

    assert timeout_left(argparse.Namespace(timeout=None)) is None
    spent = argparse.Namespace(timeout=5.0, started=time.perf_counter() - 4.0)
    assert 0 < timeout_left(spent) <= 1.0
    gone = argparse.Namespace(timeout=5.0, started=time.perf_counter() - 60.0)
    assert timeout_left(gone) == pytest.approx(1e-3)


def test_a_stopped_search_names_the_timeout_the_user_gave():
    # "no verdict within --timeout 0.001 s" and "the time limit (--timeout 1.02327 s)"
    # after --timeout 5 and --timeout 2: the remainder the search got after start-up
    # and reading, a number the user never typed (#37)
    import argparse
    import time

    from markone.cli import cli_terms, timeout_left

    left = timeout_left(argparse.Namespace(timeout=2.0, started=time.perf_counter() - 0.9))
    said = cli_terms(f"the time limit (timeout_s={left:g} s) stopped the search")
    assert said == "the time limit (--timeout 2 s) stopped the search"
    assert cli_terms("within timeout_s=0.25 s") == "within --timeout 0.25 s"  # as given
