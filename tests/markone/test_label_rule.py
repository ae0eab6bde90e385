"""One label rule for every function that takes (X, y): train, the batched runs and
verify's checks read labels the same way and refuse bad ones with the same words.

-1/+1 labels pass through (one class allowed: a one-class run is meaningful there);
any two other values are mapped, the sorted first to -1; one class of other values,
or three classes, is an error that says so. (The estimators follow scikit-learn
instead: classes_ come from y, and one class is an error.)"""

import numpy as np
import pytest

import markone
import verify
from markone.batch import train_many

X = np.array([[1.0, 2.0], [2.0, 1.0], [-1.0, -1.0]])
ENTRY_POINTS = {
    "train": lambda X, y: markone.train(X, y, max_epochs=5),
    "train_many": lambda X, y: train_many([X], [y], max_epochs=5),
    "check_separable": lambda X, y: verify.check_separable(X, y),
    "check_cycling": lambda X, y: verify.check_cycling(X, y, budget=1000),
    "worst_order": lambda X, y: verify.worst_order(X, y, budget=10),
    "check_mistake_bound": lambda X, y: verify.check_mistake_bound(X, y),
}


@pytest.mark.parametrize("name", ENTRY_POINTS)
@pytest.mark.parametrize("y, match", [
    (["a", "a", "a"], r"only one class \('a'\)"),
    ([0, 1, 2], "has 3 classes"),
    ([0.0, np.nan, 1.0], "NaN"),
])
def test_bad_labels_get_the_same_error_everywhere(name, y, match):
    with pytest.raises(ValueError, match=match):
        ENTRY_POINTS[name](X, y)


#: What each entry point must say of one class of +1 labels (separable by any w with
#: w.x > 0): the run from zero learns in 2 mistakes (x_0, then x_2 with the intercept).
ONE_CLASS_ANSWERS = {
    "train": lambda r: (r.converged, r.mistakes, r.w.tolist()) == (True, 2, [0, 1, 2]),
    "train_many": lambda r: (bool(r.converged[0]), int(r.mistakes[0]), r.w[0].tolist())
    == (True, 2, [0, 1, 2]),
    "check_separable": lambda r: r.separable is True,
    "check_cycling": lambda r: r.converged and r.transient == 2 and r.period_updates == 0,
    "worst_order": lambda r: 2 <= r.mistakes <= r.bound,
    "check_mistake_bound": lambda r: r.held and r.mistakes == (2,),
}


@pytest.mark.parametrize("name", ENTRY_POINTS)
def test_one_class_of_pm1_labels_is_accepted_everywhere(name):
    assert ONE_CLASS_ANSWERS[name](ENTRY_POINTS[name](X, [1, 1, 1]))


def test_two_values_map_like_pm1():
    a = markone.train(X, ["no", "yes", "no"])
    b = markone.train(X, [-1, 1, -1])
    assert a.w.tolist() == b.w.tolist() and a.classes.tolist() == ["no", "yes"]
    assert verify.check_separable(X, ["no", "yes", "no"]).separable == \
        verify.check_separable(X, [-1, 1, -1]).separable


@pytest.mark.parametrize("y", [
    np.array([1, -1, 1], dtype=np.int8), np.array([1, 255], dtype=np.uint8),
    np.array([1, 1], dtype=np.uint64), np.array([-1.0, 1.0]), np.array([1.0, 1.0 + 2**-52]),
    np.array([-1, 0, 1][:2]), np.array([True, False]), np.array([-1, 1], dtype=np.float16),
])
def test_pm1_labels_are_recognised_as_np_isin_recognises_them(y):
    from markone._internal.validation import labels_to_pm1
    y_pm1, classes = labels_to_pm1(y)
    if y.dtype.kind in "iuf" and np.isin(y, (-1, 1)).all():   # the oracle
        assert classes.tolist() == [-1, 1] and y_pm1.tolist() == y.astype(int).tolist()
    else:
        assert classes.tolist() == np.unique(y).tolist()


def test_the_pm1_classes_returned_are_each_callers_own():
    from markone._internal.validation import labels_to_pm1
    labels_to_pm1([1, -1])[1][0] = 7
    assert labels_to_pm1([1, -1])[1].tolist() == [-1, 1]
