"""The packed reachable-states search compiles without numba's shape-mismatch message
(issue 37): an array assigned to a slice makes numba compile the message that names
both shapes (string formatting, some 3 s of CPU in each process that compiles the
search); the search's kernels copy with loops instead."""

from __future__ import annotations

from _compiles import SHAPE_MESSAGE, compiled_names

#: A search compiled from its first vector, with edges and a growing state table.
SEARCH = """
import numpy as np
from verify import cycling
cycling._PLAIN_VECTORS = 0
YX = np.array([[-1, -1, -1], [-1, 1, 1], [1, -1, 1], [1, 1, -1]], np.int64)
assert cycling._reachable_compiled(YX, "nonstrict", 10_000, True).states.shape[0] > 1
"""


def test_the_packed_search_compiles_no_shape_mismatch_message(tmp_path):
    names = compiled_names(SEARCH, tmp_path / "cache")
    assert "_bfs_packed" in names
    assert [name for name in names if SHAPE_MESSAGE in name] == []
