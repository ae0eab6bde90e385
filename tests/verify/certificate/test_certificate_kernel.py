"""The trusted kernel (issue 25): one file of at most 300 lines that imports nothing but
the standard library, and decides alone; its number reader is exact, bounded and
independent of Python's 4,300-digit ``int(str)`` limit."""

from __future__ import annotations

import ast
import subprocess
import sys
from fractions import Fraction
from types import SimpleNamespace

import pytest
from hypothesis import given
from hypothesis import strategies as st
from _paths import ROOT

import verify
from verify.certificate import kernel
from verify.certificate.hashing import fraction_text, int_text
from verify.certificate.kernel import (MAX_EXPONENT, CertificateError, check_certificate,
                                       decimal_int, exact_number)

KERNEL = ROOT / "verify" / "certificate" / "kernel.py"


def test_the_kernel_is_one_file_of_at_most_300_lines():
    assert len(KERNEL.read_text(encoding="utf-8").splitlines()) <= 300


def test_the_kernel_imports_only_the_standard_library():
    """By its source (every import statement, at any depth), and by what loading it on
    its own, in a fresh interpreter, brings into ``sys.modules``."""
    tree = ast.parse(KERNEL.read_text(encoding="utf-8"))
    imported = {alias.name.split(".")[0] for node in ast.walk(tree)
                if isinstance(node, ast.Import) for alias in node.names} | \
        {node.module.split(".")[0] for node in ast.walk(tree)
         if isinstance(node, ast.ImportFrom) and node.module}
    assert imported and imported <= set(sys.stdlib_module_names) | {"__future__"}, imported
    code = ("import importlib.util, sys\n"
            "before = set(sys.modules)\n"
            f"spec = importlib.util.spec_from_file_location('kernel', {str(KERNEL)!r})\n"
            "m = importlib.util.module_from_spec(spec); sys.modules['kernel'] = m\n"
            "spec.loader.exec_module(m)\n"
            "new = sorted(n for n in set(sys.modules) - before if n != 'kernel' and "
            "n.split('.')[0] not in sys.stdlib_module_names)\n"
            "assert not new, new\n"
            "V = type('V', (), dict(separable=False, intercept=True, witness=None,\n"
            "         certificate={0: 1, 1: 1, 2: 1, 3: 1}))\n"
            "X, y = [[0, 0], [0, 1], [1, 0], [1, 1]], [0, 1, 1, 0]\n"
            "print(m.check_certificate(X, y, V))\n")
    out = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0 and out.stdout.strip() == "True", out.stderr


def test_verify_check_certificate_is_the_kernel_with_the_collector_paused():
    assert verify.check_certificate.__wrapped__ is kernel.check_certificate


GOOD = {  # string -> exact value (what Fraction(str) reads, where Fraction reads it)
    "0": 0, "-0": 0, "+7": 7, "1_000": 1000, " 12 ": 12, "3/4": Fraction(3, 4),
    "-6/8": Fraction(-3, 4), "1_0/2_0": Fraction(1, 2), "0.1": Fraction(1, 10),
    ".5": Fraction(1, 2), "5.": 5, "-1.25e2": -125, "1E-3": Fraction(1, 1000),
    "1_0.0_1e+0_1": Fraction(1001, 10), "2e-5": Fraction(2, 10 ** 5),
    f"1e{MAX_EXPONENT}": 10 ** MAX_EXPONENT,
    f"1e-{MAX_EXPONENT}": Fraction(1, 10 ** MAX_EXPONENT),
}
BAD = ["", " ", ".", "e5", "1 / 2", "1e", "1_", "_1", "1__0", "1/0", "1/0_0", "1.5/2",
       "0x10", "nan",
       "inf", "1/-2", "\u0663", "1 2", "1e1.5", "--1", "1,5"]


@pytest.mark.parametrize("text", sorted(GOOD))
def test_number_strings_read_exactly(text):
    assert exact_number(text, "x") == GOOD[text]
    assert exact_number(text, "x") == Fraction(text)  # Python 3.11's reading too


@pytest.mark.parametrize("text", BAD)
def test_what_is_not_a_number_is_refused(text):
    with pytest.raises(ValueError, match="which is not a number"):
        exact_number(text, "x")


@pytest.mark.parametrize("text,limit", [("1e1_000_000_00", "exponent 100000000"),
                                        ("1e100001", "exponent 100001"),
                                        ("-1e-1_0_0_0_0_0_0", "exponent -1000000"),
                                        ("1" * 100_001, "100,001 characters")])
def test_numbers_over_the_limits_are_refused_naming_them(text, limit):
    with pytest.raises(ValueError, match=f"{limit}.*limit.*pass it as an int or a "
                                         "Fraction"):
        exact_number(text, "x")
    proof = SimpleNamespace(separable=True, intercept=True, witness=(text, 1),
                            certificate=None)
    with pytest.raises(ValueError, match=limit):
        verify.check_certificate([[1]], [1], proof)


@given(st.text(alphabet="0123456789", min_size=1, max_size=12_000))
def test_decimal_int_and_int_text_are_int_and_str_of_any_length_hypo(digits):
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)  # the oracle: Python's own conversions, unlimited
    try:
        expected, text = int(digits), str(int(digits))
    finally:
        sys.set_int_max_str_digits(old)
    assert decimal_int(digits) == expected
    assert int_text(expected) == text
    assert int_text(-expected) == ("-" + text if expected else "0")


@given(st.integers(-10 ** 3000, 10 ** 3000), st.integers(1, 10 ** 3000))
def test_fraction_text_is_str_of_fraction_hypo(p, q):
    assert fraction_text(Fraction(p, q)) == str(Fraction(p, q))


def test_huge_numbers_are_checked_exactly_and_messages_never_print_them():
    """Data, witness and weights of 5,001 digits: exact verdicts, and failures say
    what fails without Python's 'Exceeds the limit' error."""
    big = 10 ** 5000
    X = [[big, 1], [-big, 1]]
    claim = SimpleNamespace(separable=True, intercept=False, witness=(0, 1),
                            certificate=None)
    assert check_certificate(X, [1, 1], claim)
    with pytest.raises(CertificateError, match=r"example 1 \(X\[0\]\): .* = \(a number of more than"):
        check_certificate(X, [1, 1], SimpleNamespace(**{**vars(claim),
                                                        "witness": (-1, 1)}))
    gordan = SimpleNamespace(separable=False, intercept=False, witness=None,
                             certificate={0: "1" + "0" * 5000, 1: big})
    assert check_certificate([[1], [1]], [1, -1], gordan)
    with pytest.raises(CertificateError, match=r"weight lambda\[1\] is \(a number of"):
        check_certificate([[1], [1]], [1, -1], SimpleNamespace(
            **{**vars(gordan), "certificate": {0: 1, 1: -big}}))
    with pytest.raises(CertificateError, match=r"names the index \(a number of"):
        check_certificate([[1], [1]], [1, -1], SimpleNamespace(
            **{**vars(gordan), "certificate": {"1" + "0" * 5000: 1}}))


def test_a_sparse_matrix_with_a_forged_structure_is_refused():
    """The kernel checks the structure of what it reads as sparse: a column index
    equal to d would land on the intercept's column."""
    class Forged:
        shape = (2, 1)
        indptr, indices, data = [0, 1, 2], [0, 1], [1, -1]

        def tocsr(self):
            return self

    claim = SimpleNamespace(separable=False, intercept=True, witness=None,
                            certificate={0: 1, 1: 1})
    with pytest.raises(ValueError, match="not a sparse matrix of shape 2 x 1"):
        check_certificate(Forged(), [1, 1], claim)


@pytest.mark.parametrize("columns", [{"2019": [0, 1], "2020": [1, 0]},
                                     {"a": [0.0, 1.0], "b": [1, 0]}])
def test_a_dataframe_is_read_by_its_values(columns):
    """As the same values in an ndarray or in lists, never through its column names
    (issue 31); an integer frame has no single dtype, unlike an integer array."""
    pd = pytest.importorskip("pandas")
    from verify.certificate import data_sha256

    frame = pd.DataFrame(columns)
    rows = frame.to_numpy().tolist()
    proof = SimpleNamespace(separable=True, intercept=True, witness=(1, -1, 0),
                            certificate=None)
    for X in (frame, frame.to_numpy(), rows):
        assert verify.check_certificate(X, [0, 1], proof)
        with pytest.raises(CertificateError, match=r"fails on example 1 \(X\[0\]\)"):
            verify.check_certificate(X, [1, 0], proof)
    assert data_sha256(frame, [0, 1]) == data_sha256(rows, [0, 1])


INTEGER_TEXTS = ["0", "-0", "007", "-12", "9" * 640, "-" + "9" * 639, "9" * 641, "+7", " 5",
                 "5 ", "-", "--1", "\u0663", "\u00b2", "1_000", "12345"]


@pytest.mark.parametrize("text", INTEGER_TEXTS)
@pytest.mark.parametrize("max_chars", [4, 100_000])
def test_the_file_reader_reads_integer_strings_as_the_kernel(text, max_chars):
    """The reader takes an integer's digits by ``int`` (a shortcut past
    :func:`exact_number`): the same value, or refused alike (not digits, past
    ``max_number_chars``)."""
    from verify.certificate.rawfile import ReadLimits
    from verify.certificate.reading import _exact

    limits = ReadLimits(max_number_chars=max_chars)
    try:
        expected = exact_number(text, "x", max_number_chars=max_chars)
    except ValueError:
        with pytest.raises(Exception, match="not a number|characters"):
            _exact(text, "x", limits)
        return
    assert _exact(text, "x", limits) == expected


@given(st.integers(-10**700, 10**700))
def test_the_file_reader_reads_every_int_text_exactly_hypo(n):
    from verify.certificate.rawfile import ReadLimits
    from verify.certificate.reading import _exact

    assert _exact(str(n), "x", ReadLimits()) == Fraction(n)
