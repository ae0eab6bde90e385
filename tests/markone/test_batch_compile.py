"""The batch trace compiles without numba's shape-mismatch message (issue 37: it
recorded each snapshot by assigning a row, which made numba compile the message that
names both shapes, about 2 s of string formatting in each process compiling it)."""

from __future__ import annotations

from _compiles import SHAPE_MESSAGE, compiled_names

#: Two datasets traced with snapshots of both kinds (the serial loop).
TRACE = """
import numpy as np
from markone import batch
X, y = np.array([[1.0, 2.0], [-1.0, -1.5], [2.0, 0.5]]), np.array([1, -1, 1])
last, avg = batch.trace_many([X] * 2, [y] * 2, [[0, 1, 2, 0]] * 2, record_every=2)
assert last.shape == avg.shape == (2, 2, 3)
"""


def test_the_batch_trace_compiles_no_shape_mismatch_message(tmp_path):
    names = compiled_names(TRACE, tmp_path / "cache")
    assert "_trace_one" in names
    assert [name for name in names if SHAPE_MESSAGE in name] == []
