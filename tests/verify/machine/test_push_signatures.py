"""The push search's steps are compiled once each, for int64 arguments, not again for
each literal constant a caller passes (issue 37: each is a compile of up to 2 s)."""

from __future__ import annotations

import numpy as np

import verify.machine.theory._push as push


def test_the_push_search_compiles_its_steps_for_integers_not_literal_constants():
    Z = np.array([[1, 1], [-1, 0]])
    assert push.push_stream(Z, 1, 1, -1, 1, width=4, depth=10) is not None
    for step in (push._candidates, push._extend, push._select):
        # every signature compiled for this version, in any process
        signatures = [key[0] for key in step._cache._cache_file._load_index()]
        assert [s for s in signatures if "Literal" in str(s)] == []
        assert len(signatures) == 1
