"""Where compiled kernels are kept: one folder per user, found by the sources' content.

numba's own cache (``cache=True``) keeps a kernel's machine code next to its module,
in ``__pycache__``, keyed on that one file. For an installed package that has three
faults: the files stay in ``site-packages`` after ``pip uninstall`` (and the left-over
``verify/__pycache__`` folder then shadows the real ``verify`` package as an empty
namespace package); a reinstall of the same sources in another environment starts
with an empty cache; and a kernel is not compiled again when only a kernel it calls,
in another module, changed (numba does not follow calls across files).

:func:`markone._internal.jit.compiled` gives every kernel the cache of
:func:`function_cache` instead:

- **One folder per user**, :func:`cache_folder`: ``$NUMBA_CACHE_DIR`` when set, else
  ``$XDG_CACHE_HOME/markone/numba``, else ``~/.cache/markone/numba``; in it a folder
  per version of the sources (:func:`sources_version`, as the Coq checker's
  ``coq-<hash>``), and in that one per module, by its dotted name
  (``markone.hardware.segments``), not by where it is installed. Nothing is written
  next to the installed modules.
- **Keyed on content**, :func:`source_stamp`: the SHA-256 of the kernel's file and of
  every module of its package and of ``markone`` (3 ms to read). An edit anywhere in
  them is a miss, mtime and size alike or not; the same sources installed anywhere
  else are a hit. numba adds its own version, the Python version, the signature, the
  function's bytecode and the CPU to the key.
- **Never in the way**: a folder that cannot be made or written, a file that cannot
  be read or saved: the kernel compiles as it would without a cache, and the job
  goes on; :func:`cache_notice` says so once on stderr, when it is a terminal or
  with ``markone --verbose``. A damaged index reads as empty: the kernel compiles,
  and its save mends the index.
- **Compiled once, by one process**: :func:`compile_lock`. Processes that need a
  kernel at the same time (a fleet's workers, Dask's, the test suite's, two runs of
  a command) take turns: one compiles and saves, the others wait, then load what it
  saved. The lock is the kernel's file in its folder; a process that dies holding
  it releases it, and a lock that cannot be taken only means compiling.

Which path a call takes never depends on the cache: a hit only saves the compile.

>>> cache_folder({"NUMBA_CACHE_DIR": "/srv/kernels"}).as_posix()
'/srv/kernels'
>>> cache_folder({"XDG_CACHE_HOME": "/home/ada/.cache"}).as_posix()
'/home/ada/.cache/markone/numba'
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import pickle
import sys
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from markone._internal.progress import notice, slow_step

try:
    import fcntl
except ImportError:   # not a POSIX system: kernels compile without taking turns
    fcntl = None  # type: ignore[assignment]

__all__ = ["cache_folder", "source_stamp", "sources_version", "function_cache",
           "cache_notice", "compile_lock", "lock_path"]

#: markone's own package folder: its modules' content is in every kernel's stamp
_MARKONE = Path(__file__).resolve().parent.parent


def cache_folder(environ: Mapping[str, str] | None = None) -> Path:
    """The folder that keeps markone's compiled kernels: ``NUMBA_CACHE_DIR`` when
    set (numba's own setting), else ``$XDG_CACHE_HOME/markone/numba``, else
    ``~/.cache/markone/numba`` (``environ`` defaults to ``os.environ``).

    >>> cache_folder({"NUMBA_CACHE_DIR": "", "XDG_CACHE_HOME": "/c"}).as_posix()
    '/c/markone/numba'
    """
    environ = os.environ if environ is None else environ
    if environ.get("NUMBA_CACHE_DIR"):
        return Path(environ["NUMBA_CACHE_DIR"])
    base = environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base, "markone", "numba")


def source_stamp(py_file: str | os.PathLike[str], package: str | None = None) -> str:
    """The content key of a kernel defined in ``py_file`` (of top-level ``package``,
    if any): the SHA-256 of that file and of every module of ``package`` and of
    ``markone``, so that an edit of a kernel it calls, in any of them, is a miss.

    >>> import markone._loops as loops
    >>> stamp = source_stamp(loops.__file__, "markone")
    >>> len(stamp), stamp == source_stamp(loops.__file__, "markone")
    (64, True)
    """
    digest = hashlib.sha256(Path(py_file).read_bytes())
    digest.update(sources_version(package).encode())
    return digest.hexdigest()


def sources_version(package: str | None = None) -> str:
    """The SHA-256 of every module of ``markone`` and of top-level ``package`` (if
    any): the cache keeps each version of the sources in a folder of its own, so that
    two versions in use (two environments, two checkouts) do not evict each other.

    >>> import verify   # (a package of its own, imported: its modules count too)
    >>> sources_version() == sources_version("markone") != sources_version("verify")
    True
    """
    trees = {_MARKONE}
    if package:
        trees |= {Path(p).resolve() for p in _package_paths(package)}
    return hashlib.sha256("".join(_tree_digest(t) for t in sorted(trees)).encode()
                          ).hexdigest()


def _package_paths(package):
    """The folders of top-level ``package`` as imported (none for a lone module)."""
    module = sys.modules.get(package)
    return list(getattr(module, "__path__", ()))


@functools.lru_cache(maxsize=None)
def _tree_digest(tree: Path) -> str:
    """SHA-256 of every ``.py`` file under ``tree``, by relative path (once a process)."""
    digest = hashlib.sha256()
    for path in sorted(tree.rglob("*.py")):
        digest.update(path.relative_to(tree).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def _subfolder(py_func: Callable[..., Any], py_file: str) -> str:
    """A kernel's folder in the cache: its module's dotted name (a script's
    ``__main__`` with a hash of its path, so two scripts do not share one)."""
    module = py_func.__module__ or "__main__"
    if module == "__main__":
        path = os.path.abspath(py_file).encode()
        module += "-" + hashlib.sha1(path, usedforsecurity=False).hexdigest()[:12]
    return module


def cache_notice(folder: os.PathLike[str] | str, error: BaseException) -> None:
    """Say once on stderr (a terminal, or ``markone --verbose``) that compiled
    kernels cannot be kept in ``folder`` and why; the job goes on compiling."""
    notice(f"cannot keep compiled kernels in {folder} ({type(error).__name__}: "
           f"{error}); they compile in every run: set NUMBA_CACHE_DIR to a writable "
           "folder")


#: the kernels' lock files this process holds (while it compiles them): a kernel
#: that compiles one it calls, or itself, does not wait for its own lock
_HELD: set[str] = set()


def lock_path(cache: Any) -> str | None:
    """The lock file of the kernel whose numba cache is ``cache``: beside its index
    (``NAME.nbi`` -> ``NAME.lock``); None for a cache that is not markone's
    (:func:`function_cache`: e.g. none, the folder being refused).

    >>> lock_path(None) is None
    True
    """
    folder, name = getattr(cache, "_cache_path", None), getattr(cache, "_lock_name", None)
    return None if folder is None or name is None else os.path.join(folder, name)


@contextlib.contextmanager
def compile_lock(path: str | None, kernel: str = "a kernel") -> Iterator[bool]:
    """Hold the inter-process lock file ``path`` (:func:`lock_path` of a kernel's
    cache; None: no lock) while the kernel compiles and saves: a process that needs
    it meanwhile waits, then loads the saved machine code instead of compiling it too.
    Yields whether the lock is held. The lock is a POSIX record lock (``lockf``), so
    that a wait that would close a cycle is refused by the system, not endless.

    Never in the way: no lock file, one that cannot be opened, a file system
    without locks, or a wait that would close a cycle (two processes each holding
    what the other needs) only means compiling without the lock. A process that
    ends, even killed, releases its locks. A wait that lasts says so on a terminal
    (``markone: waiting for another process compiling KERNEL...``). The compiles of
    one process run one at a time (numba's compiler lock), so one set of held locks
    serves its threads; a lock it holds already is not taken again.

    >>> with compile_lock(None) as held:
    ...     held
    False
    """
    if path is None or fcntl is None or path in _HELD:
        yield path in _HELD
        return
    try:
        file = open(path, "a")
    except OSError:   # a read-only cache, a folder gone: compile
        yield False
        return
    with file:   # closing it releases the lock
        held = _lock(file, kernel)
        if held:
            _HELD.add(path)
        try:
            yield held
        finally:
            _HELD.discard(path)


def _lock(file: Any, kernel: str) -> bool:
    """Take the exclusive lock of the open lock ``file``, waiting while another
    process holds it; False where it cannot be taken (no locks here, a deadlock)."""
    try:
        fcntl.lockf(file, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except OSError:   # held by another process (or no locks here: try waiting)
        pass
    try:
        with slow_step(f"waiting for another process compiling {kernel} (this one "
                       "then loads it from the cache)"):
            fcntl.lockf(file, fcntl.LOCK_EX)
        return True
    except OSError:   # EDEADLK: waiting would never end; ENOLCK: no locks here
        return False


def function_cache(py_func: Callable[..., Any]) -> Any:
    """numba's cache object for kernel ``py_func``, kept in :func:`cache_folder` and
    keyed by :func:`source_stamp`; None when that folder cannot be made or written
    (the kernel then compiles in every process, and :func:`cache_notice` says so)."""
    cache_class = _cache_class()
    try:
        return cache_class(py_func)
    except RuntimeError:   # numba found no usable locator: the folder was refused
        return None
    except OSError as error:   # the sources could not be read for the stamp
        cache_notice(cache_folder(), error)
        return None


@functools.lru_cache(maxsize=None)
def _cache_class() -> Any:
    """numba's ``FunctionCache`` with markone's locator, made once (numba's classes
    exist only once numba is imported)."""
    # numba's cache classes: only a compile needs them
    from numba.core import caching

    class Locator(caching._CacheLocator):
        """Kernels of any file, kept under :func:`cache_folder`, keyed on content."""

        def __init__(self, py_func, py_file):
            self._py_file = py_file
            self._package = (py_func.__module__ or "").partition(".")[0] or None
            self._lineno = py_func.__code__.co_firstlineno
            self._path = str(cache_folder() / sources_version(self._package)[:16]
                             / _subfolder(py_func, py_file))

        def get_cache_path(self):
            return self._path

        def get_source_stamp(self):
            return source_stamp(self._py_file, self._package)

        def get_disambiguator(self):
            return str(self._lineno)

        @classmethod
        def from_function(cls, py_func, py_file):
            if not os.path.isfile(py_file):   # e.g. "<stdin>": nothing to key on
                return None
            self = cls(py_func, py_file)
            try:
                self.ensure_cache_path()
            except OSError as error:
                cache_notice(self._path, error)
                return None
            return self

    class Impl(caching.CompileResultCacheImpl):
        _locator_classes = [Locator]

    class Index(caching.IndexDataCacheFile):
        """numba's index file, read as empty when damaged (the next save rewrites it)."""

        def _load_index(self):
            try:
                return super()._load_index()
            except (EOFError, ValueError, TypeError, AttributeError, ImportError,
                    pickle.UnpicklingError):
                return {}

    class Cache(caching.FunctionCache):
        """A cache whose every failure is a miss (load) or a skipped save."""

        _impl_class = Impl

        def __init__(self, py_func):
            super().__init__(py_func)
            self._cache_file = Index(self._cache_path, self._impl.filename_base,
                                     self._impl.locator.get_source_stamp())
            self._lock_name = self._impl.filename_base + ".lock"

        @contextlib.contextmanager
        def _guard_against_spurious_io_errors(self):
            # numba returns None (compile; nothing saved) when this swallows
            try:
                yield
            except Exception as error:   # unreadable, unwritable or damaged files
                cache_notice(self._cache_path, error)

    return Cache
