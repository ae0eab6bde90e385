"""A slow first-run step (a numba compile, building the Coq checker) says so on a
terminal, once; nothing off a terminal unless ``--verbose``; nothing when the kernels
load from numba's cache (no compile happens).

The children lower :data:`markone._internal.progress.SLOW_STEP_S` to 0, so that what
is tested never depends on how long a compile takes here (no test asserts a time).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest
from _terminal import on_a_terminal
from markone._internal.jit import COMPILING

#: a child that compiles two tiny kernels (or loads them from the cache) after
#: lowering the threshold; argv[1] "verbose" sets VERBOSE as ``--verbose`` does
CHILD = """
import sys
from markone._internal import progress
from markone._internal.jit import compiled, kernel
progress.SLOW_STEP_S = 0.0
progress.VERBOSE[0] = sys.argv[1] == "verbose"

@kernel()
def first_run_probe(x):
    return x + 1

@kernel()
def second_probe(x):
    return first_run_probe(x) * 2

print(compiled(first_run_probe)(1), compiled(second_probe)(2.5))
"""


def _run(tmp_path, *, terminal, verbose=False, cache="numba"):
    """Run the child (written in ``tmp_path``) with a pty (``terminal``) or pipes and
    numba's cache in ``tmp_path / cache``; what its stderr showed (on a terminal, with
    its stdout)."""
    script = tmp_path / "child.py"   # a file: numba caches only functions of files
    script.write_text(CHILD)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / cache))
    argv = [sys.executable, str(script), "verbose" if verbose else "quiet"]
    if terminal:
        status, shown = on_a_terminal(argv, env=env)
        assert status == 0 and "2 7.0" in shown
        return shown
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["2", "7.0"]
    return done.stderr


def test_a_compile_on_a_terminal_says_so_once(tmp_path):
    said = _run(tmp_path, terminal=True)
    assert said.count(f"markone: {COMPILING}...") == 1, said


@pytest.fixture(scope="module")
def quiet_compile(tmp_path_factory):
    """``(folder, stderr)`` of a child run off a terminal, not verbose, that compiled
    into an empty cache (``folder / "numba"``); tests copy the cache they change."""
    folder = tmp_path_factory.mktemp("quiet-compile")
    return folder, _run(folder, terminal=False)


def test_a_compile_off_a_terminal_is_silent_unless_verbose(quiet_compile, tmp_path):
    assert quiet_compile[1] == ""
    said = _run(tmp_path, terminal=False, verbose=True, cache="other")
    assert said == f"markone: {COMPILING}...\n"


def test_kernels_loaded_from_the_cache_say_nothing(quiet_compile, tmp_path):
    # the same child file (a script's kernels are cached by its path), a copy of the
    # cache its first run filled (a child compile fewer, issue 37)
    folder, _ = quiet_compile
    cache = shutil.copytree(folder / "numba", tmp_path / "numba")
    assert "markone:" not in _run(folder, terminal=True, cache=cache)


def test_the_cli_verbose_flag_turns_it_on(tmp_path):
    code = ("import sys; from markone.cli import main; "
            "from markone._internal.progress import VERBOSE; "
            "main(['--verbose', 'machine', 'params']); print(VERBOSE[0], file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=tmp_path)
    assert done.stderr.strip().splitlines()[-1] == "True"
