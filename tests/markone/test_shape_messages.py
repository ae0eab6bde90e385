"""Kernels that compile without numba's shape-mismatch message (issue 37): assigning
an array to a row or a slice makes numba compile the message that names both shapes,
some 2 s of string formatting in each process compiling such a kernel; these copy
entry by entry instead. The cases compile one after the other in one fresh process
with an empty cache (a process each cost a second more of CPU, issue 37): a message
the first case compiled is not compiled again for the second, but then the first
fails."""

from __future__ import annotations

import pytest

from _compiles import SHAPE_MESSAGE, compiled_names_each

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


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    """What each case compiled: ``{kernel: names}``."""
    return compiled_names_each(CASES, tmp_path_factory.mktemp("kernels") / "cache")


@pytest.mark.parametrize("kernel", sorted(CASES))
def test_a_kernel_compiles_no_shape_mismatch_message(kernel, compiled):
    names = compiled[kernel]
    assert kernel in names
    assert [name for name in names if SHAPE_MESSAGE in name] == []
