"""The workers of a run share pytest's rewriting of the test modules' asserts.

Each xdist worker imports every test module, and pytest rewrites a test module's
``assert`` statements before it imports it: about half of a worker's collection CPU
(10 of 18 s for the whole suite, issue 37). It caches what it rewrote in the module's
``__pycache__``, but not under ``PYTHONDONTWRITEBYTECODE``, and the workers of a run
on a fresh clone start together, so each rewrote every module. Here they share the
rewritten modules in the run's folder (:func:`_run.run_folder`): each worker first
rewrites its share of the test files (every n-th, n the number of workers), then
collects, loading what the others rewrote; a module is rewritten by one worker, under
its lock, while the others wait for it. With another pytest (no such internals) each
worker rewrites its own, as before.
"""

import hashlib
from pathlib import Path

from _run import run_lock

__all__ = ["files_to_collect", "share_rewrites"]


def share_rewrites(config, folder, mine=()):
    """Make this process load the test modules that another process of the run
    rewrote into ``folder`` (and write there those it rewrites), then rewrite the test
    files ``mine``; return the rewriter pytest calls now, or None if this pytest has
    no such internals."""
    try:
        from _pytest.assertion import rewrite

        plain, read, write = rewrite._rewrite_test, rewrite._read_pyc, rewrite._write_pyc
        state = config.stash[rewrite.assertstate_key]
    except (ImportError, AttributeError, KeyError):
        return None
    folder.mkdir(exist_ok=True)

    def rewrite_once(fn, config):
        key = hashlib.sha256(str(fn).encode()).hexdigest()[:16]
        pyc = folder / f"{key}.pyc"
        with run_lock(folder, key):
            code = read(fn, pyc, state.trace)
            if code is not None:
                return fn.stat(), code
            stat, code = plain(fn, config)
            write(state, code, stat, pyc)
            return stat, code

    rewrite._rewrite_test = rewrite_once
    for path in mine:
        rewrite_once(Path(path), config)
    return rewrite_once


def files_to_collect(args, folder):
    """The test files (``test_*.py``) that a run given ``args`` (files or folders
    relative to ``folder``, maybe with ``::`` and a test's name) collects, sorted."""
    found = set()
    for arg in args:
        path = folder / arg.split("::", 1)[0]
        if path.is_dir():
            found.update(path.rglob("test_*.py"))
        elif path.name.startswith("test_") and path.suffix == ".py":
            found.add(path)
    return sorted(found)
