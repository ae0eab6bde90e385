"""markone's compile cache (markone._internal.jit_cache): one folder per user, keyed on
the sources' content, never written next to the installed modules, never in a job's
way (issue 38).

Each test runs a small package of two kernel modules (``pkgx.outer`` calls
``pkgx.inner``'s kernel) in new processes, as an installed package would run. The
first compile, into an empty cache, is made once (:func:`compiled_once`); a test that
starts from a filled cache takes a copy of it (each child imports numba and compiles:
some 1.5 s of CPU, issue 37)."""

from __future__ import annotations

import os
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from _paths import ROOT

from markone._internal.jit_cache import cache_folder

OUTER = """from markone._internal.jit import kernel
from pkgx.inner import step


@kernel()
def outer(x):
    return step(x) + 1.0
"""
INNER = """from markone._internal.jit import kernel


@kernel()
def step(x):
    return 2.0 * x
"""
CHILD = """
import sys
from markone._internal import progress
from markone._internal.jit import compiled
from pkgx.outer import outer
progress.VERBOSE[0] = True   # notices shown off a terminal too
k = compiled(outer)
print(k(3.0), sum(k.stats.cache_hits.values()), sum(k.stats.cache_misses.values()))
"""


def _package(site):
    """Write ``pkgx`` under ``site``; return the folder."""
    pkg = site / "pkgx"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "outer.py").write_text(OUTER)
    (pkg / "inner.py").write_text(INNER)
    return pkg


def _run(site, cache, tmp_path):
    """Run the child on ``site``'s package with numba's cache in ``cache``: ``(its
    stdout's words, its stderr)``."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), str(ROOT)]),
               NUMBA_CACHE_DIR=str(cache), PYTHONDONTWRITEBYTECODE="1")
    done = subprocess.run([sys.executable, "-c", CHILD], env=env, cwd=tmp_path,
                          capture_output=True, text=True, check=True)
    return done.stdout.split(), done.stderr


def _cache_files(folder):
    return sorted(p.name for p in folder.rglob("*") if p.suffix in (".nbi", ".nbc"))


def test_the_cache_folder_is_the_users_not_the_installed_modules():
    assert cache_folder({"NUMBA_CACHE_DIR": "/a", "XDG_CACHE_HOME": "/b"}).as_posix() == "/a"
    assert cache_folder({"XDG_CACHE_HOME": "/b"}).as_posix() == "/b/markone/numba"
    home = cache_folder({})
    assert home.parts[-3:] == (".cache", "markone", "numba")


@pytest.fixture(scope="module")
def compiled_once(tmp_path_factory):
    """``(site, cache)``: the package compiled once into an empty cache (a miss) by a
    child process; tests copy both before they change anything."""
    top = tmp_path_factory.mktemp("compiled-once")
    _package(top / "site")
    assert _run(top / "site", top / "cache", top)[0] == ["7.0", "0", "1"]
    return top / "site", top / "cache"


def _copy(compiled_once, tmp_path):
    """A copy of :func:`compiled_once`'s package (times kept) and filled cache."""
    site, cache = compiled_once
    shutil.copytree(site, tmp_path / "site")
    shutil.copytree(cache, tmp_path / "cache")
    return tmp_path / "site" / "pkgx", tmp_path / "cache"


def test_a_reinstalled_copy_finds_the_cache_and_leaves_no_files_beside_it(
        compiled_once, tmp_path):
    first, cache = compiled_once[0] / "pkgx", tmp_path / "cache"
    shutil.copytree(compiled_once[1], cache)
    # the same sources installed elsewhere (new path, new times): loaded, not compiled
    shutil.copytree(first, tmp_path / "site2" / "pkgx")
    assert _run(tmp_path / "site2", cache, tmp_path)[0] == ["7.0", "1", "0"]
    assert _cache_files(first.parent) == _cache_files(tmp_path / "site2") == []
    assert _cache_files(next(cache.glob("*/pkgx.outer")))


def test_an_edit_of_a_called_kernel_in_another_module_is_compiled_again(compiled_once,
                                                                        tmp_path):
    pkg, cache = _copy(compiled_once, tmp_path)   # a cache that has the unedited kernel
    inner = pkg / "inner.py"
    stat = inner.stat()
    inner.write_text(INNER.replace("2.0 * x", "3.0 * x"))   # same size
    os.utime(inner, ns=(stat.st_atime_ns, stat.st_mtime_ns))   # and same time
    assert inner.stat().st_size == stat.st_size
    assert _run(tmp_path / "site", cache, tmp_path)[0] == ["10.0", "0", "1"]


def test_a_cache_folder_that_cannot_be_made_only_costs_a_compile(tmp_path):
    # tests run as root, which permission bits do not stop: a file stands in the way
    (tmp_path / "blocked").write_text("a file, not a folder")
    _package(tmp_path / "site")
    words, said = _run(tmp_path / "site", tmp_path / "blocked" / "numba", tmp_path)
    assert words == ["7.0", "0", "1"]
    assert said.count("markone: cannot keep compiled kernels in") == 1, said
    assert "set NUMBA_CACHE_DIR to a writable folder" in said
    assert _cache_files(tmp_path) == []


def test_a_damaged_index_is_a_miss_and_is_mended(compiled_once, tmp_path):
    _, cache = _copy(compiled_once, tmp_path)
    (index,) = cache.glob("*/pkgx.outer/*.nbi")
    damaged = index.read_bytes()[:40] + b"\0damaged"
    index.write_bytes(damaged)
    assert _run(tmp_path / "site", cache, tmp_path) == (["7.0", "0", "1"], "")
    with index.open("rb") as mended:   # numba's layout: its version, then the index
        pickle.load(mended)
        stamp, overloads = pickle.loads(mended.read())
    assert len(overloads) == 1 and index.read_bytes() != damaged


def test_numba_functions_compiled_at_import_keep_markones_cache_too():
    # markone.batch and verify.machine.theory compile their own numba functions
    # (cached_njit, not numba's cache=True, whose files went beside the modules)
    from markone import batch
    from verify.machine.theory import _clipped, _forced, _push

    folder = cache_folder().resolve()
    for module in (batch, _clipped, _forced, _push):
        dispatchers = [f for f in vars(module).values()
                       if getattr(f, "py_func", None) is not None
                       and f.py_func.__module__ == module.__name__]
        assert dispatchers, module.__name__
        for f in dispatchers:
            path = Path(f.stats.cache_path).resolve()
            assert folder in path.parents, (module.__name__, path)
            assert path.name == module.__name__
