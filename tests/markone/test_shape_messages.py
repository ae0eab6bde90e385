"""Kernels that compile without numba's shape-mismatch message (issue 37): assigning
an array to a row or a slice makes numba compile the message that names both shapes,
some 2 s of string formatting in each process compiling such a kernel; these copy
entry by entry instead. Each case compiles in a fresh process with an empty cache."""

from __future__ import annotations

import pytest

from _compiles import SHAPE_MESSAGE, compiled_names

CASES = {
    # the batch trace recorded each snapshot by assigning a row
    "_trace_one": """
import numpy as np
from markone import batch
X, y = np.array([[1.0, 2.0], [-1.0, -1.5], [2.0, 0.5]]), np.array([1, -1, 1])
last, avg = batch.trace_many([X] * 2, [y] * 2, [[0, 1, 2, 0]] * 2, record_every=2)
assert last.shape == avg.shape == (2, 2, 3)
""",
    # the R-units' move kept each row's old weights by assigning it
    "_move": """
import numpy as np
from markone._internal.jit import compiled
from markone.hardware import runits
weights, old, new = np.arange(8.0).reshape(2, 4), np.empty((1, 4)), np.empty((1, 4))
compiled(runits._move)(weights, np.array([1]), np.ones((1, 4)), -9.0, 9.0, old, new,
                       np.empty(1, np.int64), np.empty(1))
assert old.tolist() == [[4.0, 5.0, 6.0, 7.0]]
""",
}


@pytest.mark.parametrize("kernel", sorted(CASES))
def test_a_kernel_compiles_no_shape_mismatch_message(kernel, tmp_path):
    names = compiled_names(CASES[kernel], tmp_path / "cache")
    assert kernel in names
    assert [name for name in names if SHAPE_MESSAGE in name] == []
