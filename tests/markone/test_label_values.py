"""Labels that cannot be compared are refused at the boundary, the same way at every
entry point (issue 46, finding 7): ``check_separable(X, [1, "a"])`` gave an exact
verdict that ``check_certificate`` then refused to read, because NumPy had silently
made ``[1, "a"]`` the strings ``["1", "a"]``. One function,
``markone._internal.validation.check_label_values``, decides for ``markone.train``, the
estimators, ``verify``, the Mark I and the command line."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

import markone
from markone._internal.data import as_dataset
from markone._internal.validation import check_label_values
from markone.cli import main
from markone.hardware import MarkI, MarkIParams
from verify import (check_cycling, check_mistake_bound, check_separable, max_margin,
                    worst_order)
from verify.certificate import check_certificate

X2 = [[0.0], [1.0]]
TINY = MarkIParams(retina_shape=(1, 2), n_a_units=2, n_excitatory=1, n_inhibitory=0,
                   max_fanout=1, theta=1, n_r_units=1)

#: Labels that cannot be compared, and the words every entry point refuses them with.
BAD = [
    ([1, "a"], TypeError, "mixes labels of types int, str"),
    ([b"a", "a"], TypeError, "mixes labels of types bytes, str"),
    ([True, "a"], TypeError, "mixes labels of types bool, str"),
    ([np.int64(1), "b"], TypeError, "mixes labels of types int64, str"),
    (np.array([1, "a"], dtype=object), TypeError, "mixes labels of types int, str"),
    ([1, 2 + 0j], ValueError, r"Complex data not supported as labels: \w+\[1\]"),
    ([{1}, {2}], TypeError, r"\[0\] is \{1\} \(set\), not a label"),
    ([object(), object()], TypeError, r"\[0\] is <object object .*not a label"),
    (["a", None], ValueError, r"\[1\] is None, a missing label"),
    (["a", math.nan], ValueError, r"\[1\] is nan, a missing label"),
]

#: Every public way in, with the name it gives the labels.
ENTRY_POINTS = {
    "train": (lambda y: markone.train(X2, y), "y"),
    "Perceptron.fit": (lambda y: markone.Perceptron().fit(X2, y), "y"),
    "MulticlassPerceptron.fit": (lambda y: markone.MulticlassPerceptron().fit(X2, y),
                                 "y"),
    "as_dataset": (lambda y: as_dataset(X2, y), "y"),
    "check_separable": (lambda y: check_separable(X2, y), "y"),
    "max_margin": (lambda y: max_margin(X2, y), "y"),
    "check_cycling": (lambda y: check_cycling(X2, y), "y"),
    "check_mistake_bound": (lambda y: check_mistake_bound(X2, y), "y"),
    "worst_order": (lambda y: worst_order(X2, y), "y"),
    "MarkI.train": (lambda y: MarkI(TINY, seed=0).train(np.eye(2), y), "labels"),
    "MarkI.code": (lambda y: MarkI(TINY, seed=0).code(y), "labels"),
}


def _id(value):
    """A test id that is the same in every process (no object addresses): the suite
    runs on several workers, which must collect the same ids."""
    return re.sub(r" at 0x[0-9a-f]+", "", repr(value))[:30]


@pytest.mark.parametrize("labels, error, words", BAD, ids=_id)
@pytest.mark.parametrize("entry", sorted(ENTRY_POINTS))
def test_every_entry_point_refuses_labels_that_cannot_be_compared(entry, labels, error,
                                                                  words):
    call, name = ENTRY_POINTS[entry]
    with pytest.raises(error) as caught:
        call(labels)
    text = str(caught.value)
    assert re.search(words, text), text
    assert text.startswith(name) or f" {name}[" in text, text   # names the argument
    with pytest.raises(error) as direct:          # the one function, word for word
        check_label_values(labels, name=name)
    assert str(direct.value) == text


@pytest.mark.parametrize("labels", [["a", "b"], [0, 1], [-1, 1], [0.5, 2], [True, False],
                                    [1, 2.5], np.array(["x", "y"]), [b"a", b"b"]])
def test_labels_of_one_kind_pass(labels):
    check_label_values(labels)
    assert as_dataset(X2, labels).y.tolist() in ([-1, 1], [1, -1])


def test_the_verdict_of_check_separable_is_one_the_checker_reads():
    # the finding: an exact verdict on [1, "a"] that check_certificate refused
    with pytest.raises(TypeError, match="mixes labels"):
        check_separable(X2, [1, "a"])
    verdict = check_separable(X2, ["1", "a"])      # the strings, said so by the user
    assert check_certificate(X2, ["1", "a"], verdict)


@pytest.mark.parametrize("command", [["train"], ["verify", "separable"],
                                     ["verify", "margin"]])
def test_a_table_of_numbers_and_words_as_labels_exits_2(command, tmp_path, capsys):
    mixed = tmp_path / "mixed.csv"
    mixed.write_text("0,1\n1,a\n2,1\n")
    assert main(command + [str(mixed)]) == 2
    err = capsys.readouterr().err
    assert "the label column mixes numbers (line 1: '1') and words (line 2: 'a')" in err
    assert len(err.strip().splitlines()) == 1
    words = tmp_path / "words.csv"     # a decimal kept as written ("0.1") is a number too
    words.write_text("0,0.1\n1,1\n2,0.1\n")
    assert main(command + [str(words)]) in (0, 1)
