"""What numba compiles for a piece of code, in a fresh process with an empty cache:
the names of the functions it compiled (numba's ``"numba:compile"`` events), for tests
that a kernel does not make numba compile something costly it does not need (issue
37: e.g. the shape-mismatch message an array assigned to a slice brings in, some 2-3 s
of string formatting in each process that compiles such a kernel)."""

import json
import os
import subprocess
import sys

#: The listener the child process registers before running the code under test.
_LISTEN = """
import json, sys
import numba.core.event as event
from markone._internal.jit import load_numba
load_numba()
_names = []
class _Listed(event.Listener):
    def on_start(self, ev):
        _names.append(ev.data["dispatcher"].py_func.__qualname__)
    def on_end(self, ev):
        pass
event.register("numba:compile", _Listed())
"""

#: The name numba's shape-mismatch message is compiled under.
SHAPE_MESSAGE = "raise_with_shape_context"


def compiled_names(code, cache):
    """The qualified names of the functions numba compiled while a fresh Python ran
    ``code`` with the empty kernel cache folder ``cache``."""
    return compiled_names_each({"code": code}, cache)["code"]


def compiled_names_each(codes, cache):
    """``{name: compiled names}`` for each piece of code of ``codes`` (name -> code),
    run one after the other by one fresh Python with the empty kernel cache folder
    ``cache``: what each compiled that the ones before it had not (one process, one
    numba start-up, for all of them)."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), PYTHONDONTWRITEBYTECODE="1")
    script = _LISTEN + "".join(
        f"{code}\nprint('compiled:', json.dumps(_names))\n_names.clear()\n"
        for code in codes.values())
    out = subprocess.run([sys.executable, "-c", script], env=env, check=True,
                         capture_output=True, text=True).stdout
    lists = [json.loads(line.split(" ", 1)[1]) for line in out.splitlines()
             if line.startswith("compiled: ")]
    return dict(zip(codes, lists, strict=True))
