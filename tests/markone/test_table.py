"""markone.datasets.load_table: delimiters, headers, label columns, exact cells and
errors that name the line and the column."""

from fractions import Fraction

import numpy as np
import pytest

import markone
from markone.datasets import BUILTIN_TABLES, load_table

AND = [[0, 0], [0, 1], [1, 0], [1, 1]]


def write(tmp_path, text, name="t.csv"):
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.mark.parametrize("sep", [",", ";", "\t", " ", "  \t "])
@pytest.mark.parametrize("header", [True, False])
def test_every_delimiter_with_or_without_header(tmp_path, sep, header):
    lines = ([sep.join(["x1", "x2", "y"])] if header else []) + [
        sep.join(map(str, [*x, int(x == [1, 1])])) for x in AND]
    X, y = load_table(write(tmp_path, "\n".join(lines) + "\n"))
    assert X.tolist() == AND and X.dtype == np.float64
    assert y.tolist() == [0, 0, 0, 1]


def test_label_by_name_index_and_negative_index(tmp_path):
    path = write(tmp_path, "lab,a,b\nyes,1,2\nno,3,4\n")
    for label in ("lab", 0, "0", -3):
        X, y = load_table(path, label=label)
        assert X.tolist() == [[1, 2], [3, 4]] and y.tolist() == ["yes", "no"]
    with pytest.raises(ValueError, match=r"line 2, column 1 \(lab\): 'yes' is not a number; "
                       r"if column 1 holds the labels, pass label=0 or label='lab'"):
        load_table(path, label="a")


@pytest.mark.parametrize("label", [3, 7, -4, -99, "7"])
def test_label_index_outside_the_table_is_an_error_not_a_wrap(tmp_path, label):
    path = write(tmp_path, "1,2,0\n3,4,1\n")
    with pytest.raises(ValueError, match=r"label=-?\d+ is outside the table: .* 3 columns"):
        load_table(path, label=label)


def test_label_name_not_in_header(tmp_path):
    with pytest.raises(ValueError, match="no column named 'z'; its columns are a, b, y"):
        load_table(write(tmp_path, "a,b,y\n1,2,0\n"), label="z")
    with pytest.raises(ValueError, match="no column named 'z'; its columns are not named"):
        load_table(write(tmp_path, "1,2,0\n"), label="z")


@pytest.mark.parametrize("text, match", [
    ("a,b,y\n1,,0\n2,3,1\n", r"line 2, column 2 \(b\): the cell is empty"),
    ("no,1,2\nyes,3,4\n", r"line 1, column 1: 'no' is not a number; if column 1 holds "
                          r"the labels, pass label=0"),
    ("1,2,0\n1/0,2,1\n", r"line 2, column 1: '1/0' divides by zero"),
    ("1,nan,0\n1,2,1\n", r"line 1, column 2: 'nan' is not a finite number"),
    ("1,-inf,0\n", r"line 1, column 2: '-inf' is not a finite number"),
    ("1,2,3\n4\n", r"line 2: 1 column, but line 1 has 3"),
    ("1,2,\n3,4,1\n", r"line 1, column 3: the label cell is empty"),
    ("1\n2\n", r"single column .* whitespace"),
    # what to do, not only "has no data lines." (#37)
    ("\n# only a comment\n\n", r"no data lines \(it is empty, or holds only blank and "
     r"# comment lines\); a table holds one sample per line, its numbers and then its "
     r"label, e.g. 1.5,2,yes\.$"),
    ("a,b,y\n", "header line but no data lines"),
    ('1;2,5;0\n3;4,5;1\n', r"line 1, column 2: '2,5' is a number with a decimal comma"),
])
def test_bad_tables_name_line_and_column(tmp_path, text, match):
    with pytest.raises(ValueError, match=match):
        load_table(write(tmp_path, text))


def test_binary_and_missing_files(tmp_path):
    (tmp_path / "b.csv").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(ValueError, match="not a text file"):
        load_table(tmp_path / "b.csv")
    with pytest.raises(FileNotFoundError, match="no such data file: .*built-in data sets"):
        load_table(tmp_path / "missing.csv")
    with pytest.raises(ValueError, match="is a folder"):
        load_table(tmp_path)


@pytest.mark.parametrize("data, where", [
    (b"\xff\xfe\x00", "line 1, byte 1 of the file"),
    (b"1,2,0\n3,4,1\n5,\x8b,0\n", "line 3, byte 15 of the file"),
    (b"\xef\xbb\xbf1,2,0\n\xff", "line 2, byte 10 of the file"),  # the BOM counts
])
def test_a_byte_that_is_not_utf8_is_numbered_from_1(tmp_path, data, where):
    # "byte 0 is not UTF-8" numbered from 0 in text a person reads (#37; see
    # docs/command-line.md, "How things are numbered"); the line helps find it
    (tmp_path / "b.csv").write_bytes(data)
    with pytest.raises(ValueError, match=f"not a text file \\({where}, is not UTF-8\\)"):
        load_table(tmp_path / "b.csv")


def test_exact_cells_stay_exact(tmp_path):
    path = write(tmp_path, "0.1,1/3,1\n0.2,2/3,0\n")
    X, y = load_table(path, exact=True)
    assert X.dtype == object and X.tolist() == [["0.1", "1/3"], ["0.2", "2/3"]]
    assert [[Fraction(c) for c in r] for r in X] == [[Fraction(1, 10), Fraction(1, 3)],
                                                     [Fraction(1, 5), Fraction(2, 3)]]
    assert load_table(path)[0].tolist() == X.tolist()  # by default too: never rounded
    # the float's value, not its shortest repr: "(it would be read as 0.1)" said
    # nothing about the rounding (issue 37, walk)
    with pytest.raises(ValueError, match=r"line 1, column 1: '0.1' is not exactly a "
                       r"float64 \(float64 would read it as 0\.10000000000000000555\.\.\.\); "
                       r"read the table exactly"):
        load_table(path, exact=False)
    for cell, what in [("1e999", "is beyond float64's range"),
                       ("-1e-400", "underflows float64 to 0"),
                       (str(2**53 + 1), r"is not exactly a float64 \(float64 would read it as 9007199254740992\)")]:
        with pytest.raises(ValueError, match=f"line 2, column 2: '{cell}' {what}"):
            load_table(write(tmp_path, f"1,2,0\n3,{cell},1\n"), exact=False)
    binary, _ = load_table(write(tmp_path, "0.375,3/4,0\n1e3,-2.5e-1,1\n"))
    assert binary.dtype == np.float64 and binary.tolist() == [[0.375, 0.75], [1e3, -0.25]]
    ints, _ = load_table(write(tmp_path, "1,-2,0\n3,4,1\n"), exact=True)
    assert ints.dtype == np.int64
    big, _ = load_table(write(tmp_path, f"{2**70},1,0\n1,1,1\n"), exact=True)
    assert big.dtype == object and big[0, 0] == 2**70
    huge, _ = load_table(write(tmp_path, "1e999,1,0\n"), exact=True)
    assert Fraction(huge[0, 0]) == 10**999


def test_explicit_delimiter_and_header(tmp_path):
    path = write(tmp_path, "1|2|0\n3|4|1\n")
    assert load_table(path, delimiter="|")[0].tolist() == [[1, 2], [3, 4]]
    path = write(tmp_path, "1 2 0\n3 4 1\n")
    assert load_table(path, delimiter="whitespace")[0].tolist() == [[1, 2], [3, 4]]
    assert load_table(path, header=True)[0].tolist() == [[3, 4]]
    with pytest.raises(ValueError, match="delimiter='1' is not usable"):
        load_table(path, delimiter="1")
    path = write(tmp_path, "a,b,c\n1,2,0\n")
    with pytest.raises(ValueError, match="line 1 looks like a header"):
        load_table(path, header=False)


def test_header_false_on_a_header_line_names_the_header_not_the_label(tmp_path):
    # "x1,x2,label" read with header=False said "'x1' is not a number; if column 1
    # holds the labels, pass label=0": a wrong remedy, header=False was the cause (#37)
    path = write(tmp_path, "x1,x2,label\n1,2,1\n3,4,-1\n")
    with pytest.raises(ValueError) as err:
        load_table(path, header=False)
    said = str(err.value)
    assert said == (f"{path}, line 1 looks like a header (x1, x2, label), but "
                    "header=False was given: drop header=False to read it as the "
                    "header, or remove the line."), said
    assert load_table(path)[0].tolist() == [[1, 2], [3, 4]]
    with pytest.raises(ValueError, match=r"line 1 looks like a header .* header=False"):
        load_table(path, header=False, label="label")   # not "no column named"
    # a word in the label column only is a label, not a header
    path = write(tmp_path, "1,2,spam\n3,4,eggs\n")
    assert load_table(path, header=False)[1].tolist() == ["spam", "eggs"]


def test_npz_and_builtins(tmp_path):
    np.savez(tmp_path / "d.npz", X=np.eye(2), y=np.array([0, 1]))
    X, y = load_table(tmp_path / "d.npz")
    assert X.tolist() == [[1, 0], [0, 1]] and y.tolist() == [0, 1]
    np.savez(tmp_path / "bad.npz", A=np.eye(2))
    with pytest.raises(ValueError, match="arrays named 'X' and 'y'; it has A"):
        load_table(tmp_path / "bad.npz")
    with pytest.raises(ValueError, match="label=0 applies to text tables"):
        load_table(tmp_path / "d.npz", label=0)
    assert set(BUILTIN_TABLES) >= {"xor", "iris", "parity3"}
    X, y = load_table("xor", exact=True)
    assert X.dtype == np.int64 and y.tolist() == [-1, 1, 1, -1]
    assert load_table("iris")[0].shape == (150, 4)
    assert load_table("parity3:01")[0].tolist()[-1] == [1, 1, 1]


@pytest.mark.parametrize("fmt", ["csr", "csc", "bsr", "coo", "dia"])
def test_every_format_save_npz_writes_is_read(tmp_path, fmt):
    # a COO matrix saved with scipy.sparse.save_npz was refused: "must hold arrays
    # named 'X' and 'y' ... (or save [X, y], labels last, with scipy.sparse.save_npz)",
    # which is what the user had done (#37)
    import scipy.sparse as sp

    M = np.array([[0, 2, 1], [1, 0, 0], [3, 0, 1]])
    sp.save_npz(tmp_path / "d.npz", sp.csr_matrix(M).asformat(fmt))
    X, y = load_table(tmp_path / "d.npz")
    assert X.format == "csr" and X.toarray().tolist() == [[0, 2], [1, 0], [3, 0]]
    assert y.tolist() == [1, 0, 1]


def test_boolean_features_are_refused_when_the_file_is_read(tmp_path):
    # verify separable printed its verdict, then failed on "X[0, 0] has a boolean
    # True" (status 2); verify cycling refused, train and verify margin read them as
    # 0/1: one rule, at the reader (#37)
    import scipy.sparse as sp

    X = np.array([[True, False], [False, True]])
    np.savez(tmp_path / "d.npz", X=X, y=np.array([0, 1]))
    sp.save_npz(tmp_path / "s.npz", sp.csr_matrix(np.c_[X, [True, False]]))
    for name in ("d.npz", "s.npz"):
        with pytest.raises(ValueError, match=rf"{name}: its array X holds booleans "
                           r"\(dtype bool\), which are not read as numbers; save them "
                           r"as 0/1 \(X.astype\(np.int8\)\)"):
            load_table(tmp_path / name)


def test_options_for_text_tables_are_refused_by_name_on_npz(tmp_path):
    # "label=, --delimiter and header= apply" on the command line: one option named
    # (the one given), as for a built-in name, so the CLI can say it as a flag (#37)
    np.savez(tmp_path / "d.npz", X=np.eye(2), y=np.array([0, 1]))
    for option, given in [({"label": 0}, "label=0"), ({"header": True}, "header=True"),
                          ({"delimiter": ";"}, "delimiter=';'")]:
        with pytest.raises(ValueError, match=f"d.npz: {given} applies to text tables, "
                           r"not to .npz files \(they hold X and y\); drop it\."):
            load_table(tmp_path / "d.npz", **option)


@pytest.mark.parametrize("content, says", [
    (b"x,label\n0,a\n", "is not a .npz file: it is not a zip archive of arrays (np.savez "
     "writes one); a table is read from a text file, named anything but .npz."),
    (b"", "is not a .npz file: it is not a zip archive"),
    ("objects", "its array y holds Python objects (dtype object), which are not loaded "
     "(loading them could run code the file holds); save it as numbers or strings"),
])
def test_an_npz_file_that_cannot_be_read_says_why_truly(tmp_path, content, says):
    """A text file named .npz is not 'pickled (object) data' (numpy's guess, which
    it said), and an object array is refused by name, with what to do."""
    path = tmp_path / "d.npz"
    if content == "objects":
        np.savez(path, X=np.eye(2), y=np.array([None, 1], dtype=object))
    else:
        path.write_bytes(content)
    with pytest.raises(ValueError) as refused:
        load_table(path)
    assert str(refused.value).startswith(f"{path}") and says in str(refused.value)
    assert "pickle" not in str(refused.value) and "allow_pickle" not in str(refused.value)


@pytest.mark.parametrize("text, where", [
    ("x;label\n1,5;a\n2,5;b\n", "line 2, column 1: '1,5'"),
    ("x\ty\tlabel\n1\t-0,25\ta\n2\t3\tb\n", "line 2, column 2: '-0,25'"),
    ("a;b;label\n1;2;x\n3;4,5e3;y\n", "line 3, column 2: '4,5e3'"),
    # whitespace between cells: split at the commas, '5 2' was refused as no number
    ("1,5 2,0 a\n2,5 1,0 b\n", "line 1, column 1: '1,5'"),
    ("x y label\n1,5 2,0 a\n2,5 1,0 b\n", "line 2, column 1: '1,5'"),
    ("x y label\n1 2,0 a\n2 1 b\n", "line 2, column 2: '2,0'"),
])
def test_decimal_commas_are_named_before_the_header_is_looked_for(tmp_path, text, where):
    """A spreadsheet's export with decimal commas and ';' between cells is refused
    for its decimal commas, with how to convert it; not for its header word with
    advice to pass label= (the header was taken for data: '1,5' is no number)."""
    with pytest.raises(ValueError) as refused:
        load_table(write(tmp_path, text))
    said = str(refused.value)
    assert where in said and "is a number with a decimal comma" in said
    assert "convert the file to decimal points and comma separators" in said
    assert "label=" not in said and "columns, but line" not in said


def test_comma_tables_with_spaces_stay_comma_tables(tmp_path):
    """Spaces after the commas, or inside a label, do not make a comma table a
    whitespace table with decimal commas."""
    X, y = load_table(write(tmp_path, "1, 5, a b\n2, 5, c d\n"))
    assert X.tolist() == [[1, 5], [2, 5]] and y.tolist() == ["a b", "c d"]


def test_a_complex_npz_is_refused_by_name(tmp_path):
    """Complex inputs are refused as such, not with the remedy for rational strings
    (exact=True), which does not apply."""
    path = tmp_path / "c.npz"
    np.savez(path, X=np.array([[1 + 2j, 1], [2, 3]]), y=np.array([0, 1]))
    with pytest.raises(ValueError) as refused:
        load_table(path)
    said = str(refused.value)
    assert said.startswith(f"{path}: its array X holds complex numbers")
    assert "a perceptron needs real inputs" in said and "rational" not in said


def test_complex_arrays_are_refused_by_name():
    X = np.array([[1 + 2j], [-1 + 0j]])
    for exact in (None, True):
        with pytest.raises(TypeError, match=r"X holds complex numbers \(dtype complex128\): "
                           r"a perceptron needs real inputs; pass X\.real"):
            markone.train(X, [0, 1], exact=exact)


def test_a_file_wins_over_a_builtin_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "5,5,1\n6,6,0\n", name="xor")
    assert load_table("xor")[0].tolist() == [[5, 5], [6, 6]]


def test_train_a_file_through_the_loader(tmp_path):
    path = write(tmp_path, "x1;x2;label\n0;0;no\n0;1;no\n1;0;no\n1;1;yes\n")
    res = markone.train(*load_table(path))
    assert res.converged and res.w.tolist() == [3.0, 2.0, -4.0]
    assert res.classes.tolist() == ["no", "yes"]
