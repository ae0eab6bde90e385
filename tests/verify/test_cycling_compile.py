"""The packed reachable-states search compiles without numba's shape-mismatch message
(issue 37): an array assigned to a slice makes numba compile the message that names
both shapes (string formatting, some 3 s of CPU in each process that compiles the
search); the search's kernels copy with loops instead."""

from __future__ import annotations

import json
import os
import subprocess
import sys

#: A fresh process compiles the search (its own empty cache) and prints the names of
#: every function numba compiled for it.
COMPILE_AND_LIST = """
import json, numpy as np
import numba.core.event as event
from markone._internal.jit import compiled, load_numba
from verify import cycling
load_numba()
names = []
class Listed(event.Listener):
    def on_start(self, ev):
        names.append(ev.data["dispatcher"].py_func.__qualname__)
    def on_end(self, ev):
        pass
event.register("numba:compile", Listed())
YX = np.array([[-1, -1, -1], [-1, 1, 1], [1, -1, 1], [1, 1, -1]], np.int64)
cycling._PLAIN_VECTORS = 0   # compiled from the first vector
run = cycling._reachable_compiled(YX, "nonstrict", 10_000, True)
print(json.dumps([int(run.states.shape[0]), names]))
"""


def test_the_packed_search_compiles_no_shape_mismatch_message(tmp_path):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"), PYTHONDONTWRITEBYTECODE="1")
    out = subprocess.run([sys.executable, "-c", COMPILE_AND_LIST], env=env, check=True,
                         capture_output=True, text=True).stdout
    states, names = json.loads(out)
    assert states > 1 and "_bfs_packed" in names
    assert [name for name in names if "raise_with_shape_context" in name] == []
