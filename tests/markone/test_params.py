"""The parameter table (markone._params): the fast paths of a check answer as the
general path does, and a bad value is refused with the same words."""

from fractions import Fraction

import numpy as np
import pytest

import markone
from markone._params import (InvalidParameterError, PositiveReal,
                             validate_core_params, validate_parameter_constraints)

#: Python floats and the answer of "a finite real number > 0" for each.
FLOATS = {0.5: True, 1e308: True, 5e-324: True, 0.0: False, -0.0: False, -1.0: False,
          float("inf"): False, float("nan"): False}


@pytest.mark.parametrize("value, expected", FLOATS.items())
def test_a_python_float_is_judged_as_a_numpy_float_is(value, expected):
    # a Python float takes a shortcut; np.float64 (a float subclass) does not
    assert PositiveReal().is_satisfied_by(value) is expected
    assert PositiveReal().is_satisfied_by(np.float64(value)) is expected


def test_named_constraints_answer_again_after_being_kept():
    table = {"flag": ["boolean"], "seed": [None, np.random.Generator]}
    for _ in range(2):   # the second call uses the constraints kept by the first
        validate_parameter_constraints(table, {"flag": True, "seed": None}, "f")
        with pytest.raises(InvalidParameterError,
                           match="'seed' parameter of f must be None or an instance of "
                                 "numpy.random._generator.Generator. Got 3 instead"):
            validate_parameter_constraints(table, {"seed": 3}, "f")


def test_an_unhashable_spec_is_no_constraint():
    with pytest.raises(ValueError, match=r"\[1\] is not a parameter constraint"):
        validate_parameter_constraints({"x": [[1]]}, {"x": 2}, "f")


def test_the_core_table_refuses_an_unknown_parameter_name():
    with pytest.raises(KeyError, match="etta"):
        validate_core_params({"etta": 1.0}, "train")


@pytest.mark.parametrize("seed", [-1, "0", 1.5])
def test_train_refuses_a_bad_seed_whatever_the_order(seed):
    # order="given" draws nothing, so no Generator is made: the table still checks
    with pytest.raises(InvalidParameterError, match="'seed' parameter of train"):
        markone.train([[1.0]], [1], seed=seed)


def test_train_in_given_order_leaves_a_generator_untouched():
    rng = np.random.default_rng(5)
    markone.train([[1.0], [-1.0]], [1, -1], seed=rng)
    assert rng.integers(2**32) == np.random.default_rng(5).integers(2**32)


def test_a_fraction_eta_still_goes_the_general_way():
    assert markone.train([[1.0]], [1], eta=Fraction(1, 2)).w.tolist() == [0.5, 0.5]
