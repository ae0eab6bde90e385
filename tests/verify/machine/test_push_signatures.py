"""The machine's compiled searches are compiled once each: the push search's steps
for int64 arguments, not again for each literal constant a caller passes, the forced
rule's pass for C-ordered moves whatever the data's order (issue 37: each extra
signature is a compile of up to 2 s)."""

from __future__ import annotations

import numpy as np

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
