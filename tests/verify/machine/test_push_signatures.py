"""The machine's compiled searches are compiled once each: the push search's steps
for int64 arguments, not again for each literal constant a caller passes, the forced
rule's pass for C-ordered moves whatever the data's order (issue 37: each extra
signature is a compile of up to 2 s); and the push search orders its candidates with
loops of its own, which compile in a fraction of numba's sorts."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

import verify.machine.theory._forced as forced
import verify.machine.theory._push as push


def test_the_push_search_compiles_its_steps_for_integers_not_literal_constants():
    Z = np.array([[1, 1], [-1, 0]])
    assert push.push_stream(Z, 1, 1, -1, 1, width=4, depth=10) is not None
    for step in (push._candidates, push._extend, push._select):
        # every signature compiled for this version, in any process
        signatures = [key[0] for key in step._cache._cache_file._load_index()]
        assert [s for s in signatures if "Literal" in str(s)] == []
        assert len(signatures) == 1


def test_the_forced_rules_pass_is_compiled_for_one_layout_of_the_data():
    X = np.array([[2, 1], [1, 3], [-1, 2]])
    y = np.array([1, 1, -1])
    runs = [forced.fixed_order(data, y, 1, -3, 3, [0, 1, 2])
            for data in (X, np.asfortranarray(X))]
    assert runs[0] == runs[1]
    assert len(forced._simulate.signatures) == 1


def _numpy_best_first(key, m, count):
    """What the search ordered its candidates with before issue 37: a partition, then a
    stable argsort of those at most the cut."""
    order = np.arange(m)
    if m > count:
        cut = np.partition(key[:m].copy(), count)[count]
        order = np.flatnonzero(key[:m] <= cut)
    return order[np.argsort(key[order], kind="mergesort")]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-3, 3), min_size=1, max_size=40), st.data())
def test_the_candidates_order_is_a_partition_and_a_stable_sort_hypo(values, data):
    # few distinct keys: ties at the cut and in the sort (-0.0 among them)
    key = np.array([v / 2 if v else (-0.0 if i % 2 else 0.0) for i, v in enumerate(values)])
    m = data.draw(st.integers(1, len(values)))
    count = data.draw(st.integers(0, m + 1))
    assert push._best_first(key, m, count).tolist() == _numpy_best_first(key, m, count).tolist()


def test_the_push_search_compiles_no_numpy_sort():
    # numba's partition, sorts and fancy indexing were 10 of the search's 15 s of compile
    for step in (push._beam, push._select, push._best_first):
        names = set(step.py_func.__code__.co_names)
        assert not {"partition", "argsort", "sort", "flatnonzero"} & names
