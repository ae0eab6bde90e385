"""Compiled kernels on demand: numba is imported by the first call that needs it.

A kernel is written once, as a plain Python function in a module that does not import
numba. Python can call it as it is (the uncompiled path, for small work: no import
of numba, no compiler), and :func:`compiled` gives its numba dispatcher
(``numba.njit(nogil=True, **options)`` with a disk cache), built on the first request and
kept for the process. Helpers that compiled code calls are declared with
:func:`kernel` too (every kernel is registered with
:func:`numba.extending.register_jitable`, so one kernel may call another), and a
module whose compiled code needs more (``numba.extending.overload`` of a Python
function, e.g. one body per row layout) registers it in a function decorated with
:func:`on_first_compile`. All of that runs once, when numba is first imported
through :func:`load_numba`.

Which path a call takes is the caller's choice and must be a function of the input
alone (its shape, the work done so far), never of time or of what happens to be
compiled already: the same input gives the same answer. The compiled machine code is
cached on disk in the user's cache folder, keyed on the sources' content, never next
to the installed modules (:mod:`markone._internal.jit_cache`: ``$NUMBA_CACHE_DIR``,
else ``$XDG_CACHE_HOME/markone/numba``, else ``~/.cache/markone/numba``); a folder
that cannot be written only means compiling again. Processes that need a kernel at
the same time (a fleet's workers, the test suite's) compile it once: one compiles
under the kernel's lock (:func:`~markone._internal.jit_cache.compile_lock`), the
others wait, then load it from the cache.

>>> @kernel()
... def add_one(x):
...     return x + 1
>>> add_one(41)             # plain Python: numba is not needed
42
"""

from __future__ import annotations

import functools
import importlib.machinery
import importlib.util
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from markone._internal.jit_cache import compile_lock, function_cache, lock_path
from markone._internal.progress import slow_step

__all__ = ["kernel", "plain_form", "uncompiled", "compiled", "cached_njit", "entry_point",
           "on_first_compile", "load_numba", "import_numba", "is_compiled",
           "PLAIN_PRESENTATIONS", "PlainWork"]

#: A perceptron run's passes run uncompiled (plain Python, numpy row operations) while
#: the presentations it has made, the coming pass included, number at most this many:
#: at a few microseconds each, less time than importing numba takes. Later passes run
#: compiled (:func:`markone._loops.pass_kernel`), unless the whole run is small
#: (:data:`markone._loops.PLAIN_RUN`).
PLAIN_PRESENTATIONS = 2**12

_KERNELS: list[Callable[..., Any]] = []
_HOOKS: list[Callable[[Any], None]] = []
_HOOKS_RUN = [0]   # how many of _HOOKS have run
_COMPILED: dict[Callable[..., Any], Any] = {}
_ENTRIES: dict[tuple[Callable[..., Any], str], Callable[..., Any]] = {}
_LOADED: list[Any] = []


def kernel(*, signatures: Sequence[str] = (),
           **options: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Declare a plain Python function a kernel: :func:`compiled` builds it with
    ``options`` (besides ``nogil=True`` and markone's disk cache; e.g. ``fastmath``), and compiled
    code may call it. The function itself is returned unchanged.

    With ``signatures`` (numba's notation, e.g. ``"(float64[:, :], int64)"``), the
    dispatcher is compiled for those alone, when :func:`compiled` first makes it: a call
    of other types is converted to one of them (a C-ordered array to an any-layout
    ``[:, :]`` one) or refused (``TypeError``), never compiled again. For a kernel whose
    callers pass the same data as slices and as whole arrays (issue 37: each layout was
    a compile of its own, and a new one in every process that met it)."""

    def declare(fn: Callable[..., Any]) -> Callable[..., Any]:
        fn.__jit_options__ = dict(options)  # type: ignore[attr-defined]
        fn.__signatures__ = tuple(signatures)  # type: ignore[attr-defined]
        _KERNELS.append(fn)
        if _LOADED:  # declared after numba was loaded: register it now
            _register_kernel(_LOADED[0], fn)
        return fn

    return declare


def plain_form(scalar: Callable[..., Any]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Declare the decorated function the uncompiled form of kernel ``scalar``: the
    same arithmetic written with numpy's whole-array operations, which Python runs
    hundreds of times faster than ``scalar``'s loops (numba compiles ``scalar``).
    The two must give the same values bit for bit: the same IEEE operations in the
    same order (a running sum as ``np.cumsum``, never as ``np.sum``, which sums
    pairwise). :func:`uncompiled` and :meth:`PlainWork.kernel` hand it out.

    >>> @kernel()
    ... def double_all(x, out):
    ...     for i in range(x.size):
    ...         out[i] = 2 * x[i]
    >>> @plain_form(double_all)
    ... def _double_all(x, out):
    ...     out[:] = 2 * x
    >>> uncompiled(double_all) is _double_all
    True
    """

    def declare(fn: Callable[..., Any]) -> Callable[..., Any]:
        scalar.__plain__ = fn  # type: ignore[attr-defined]
        return fn

    return declare


def uncompiled(fn: Callable[..., Any]) -> Callable[..., Any]:
    """How kernel ``fn`` runs without numba: its :func:`plain_form` if it has one,
    else ``fn`` itself.

    >>> @kernel()
    ... def inc(x):
    ...     return x + 1
    >>> uncompiled(inc) is inc
    True
    """
    return getattr(fn, "__plain__", fn)


def on_first_compile(hook: Callable[[Any], None]) -> Callable[[Any], None]:
    """Run ``hook(numba)`` once, by the first :func:`load_numba` after it is declared
    (every compile calls it first): the place for ``numba.extending.overload``
    registrations. Not at once when numba is loaded already: the hook may use names
    its module defines below it. Returns ``hook``."""
    _HOOKS.append(hook)
    return hook


def load_numba() -> Any:
    """Import numba, with every kernel and hook registered; returns the module."""
    if not _LOADED:
        numba = import_numba()
        import numba.core.event

        _LOADED.append(numba)
        numba.core.event.register("numba:compile", _announcer(numba))
        for fn in _KERNELS:
            _register_kernel(numba, fn)
    while len(_HOOKS) > _HOOKS_RUN[0]:   # hooks declared since the last call
        _HOOKS_RUN[0] += 1
        _HOOKS[_HOOKS_RUN[0] - 1](_LOADED[0])
    return _LOADED[0]


#: The one module of ``scipy.linalg`` that numba's import asks for.
BLAS = "scipy.linalg.cython_blas"


def import_numba() -> Any:
    """``import numba`` (the compiler: imported by the first compile), without the
    rest of ``scipy.linalg``.

    numba checks at import that SciPy's BLAS is there (``numba.np.arraymath``
    imports ``scipy.linalg.cython_blas``, whatever the kernels use), and importing
    that module first runs ``scipy/linalg/__init__.py``: all of ``scipy.linalg``
    and SciPy's array-API layer, some 0.3 s of CPU, a third of a first compiled
    call's cost. So the extension module is loaded alone first, under its own name
    (numba and compiled calls of BLAS find it in ``sys.modules``); when something
    imports ``scipy.linalg`` later, the package is bound to it as the import system
    binds a submodule (:class:`_BindBlas`). Where SciPy cannot be found so, numba
    imports it its own way.

    >>> import_numba().__name__
    'numba'
    """
    if "numba" not in sys.modules:
        _load_blas_alone()
    import numba

    return numba


def _load_blas_alone() -> None:
    """Load :data:`BLAS` from its file, unless ``scipy.linalg`` is loaded already."""
    if "scipy.linalg" in sys.modules or BLAS in sys.modules:
        return
    try:
        import scipy   # the package alone: a few milliseconds
    except ImportError:
        return   # numba's own check then finds no BLAS, as it would have
    folder = Path(scipy.__file__).parent / "linalg"
    found = [folder / f"cython_blas{suffix}" for suffix in
             importlib.machinery.EXTENSION_SUFFIXES if (folder / f"cython_blas{suffix}").is_file()]
    spec = importlib.util.spec_from_file_location(BLAS, found[0]) if found else None
    if spec is None or spec.loader is None:
        return
    try:
        module = importlib.util.module_from_spec(spec)
        sys.modules[BLAS] = module
        spec.loader.exec_module(module)
    except Exception:   # an unusual SciPy: let numba import it its own way
        sys.modules.pop(BLAS, None)
        return
    sys.meta_path.insert(0, _BindBlas())


class _BindBlas:
    """Finds ``scipy.linalg`` as the path finder does, once, and binds :data:`BLAS`
    (loaded alone) to the package as its attribute ``cython_blas`` when it has run,
    as importing the submodule normally would; then leaves ``sys.meta_path``."""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        """The spec of ``scipy.linalg``, its loader binding :data:`BLAS`; else None."""
        if name != "scipy.linalg":
            return None
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(name, path, target)
        loader = None if spec is None else spec.loader
        if loader is not None:
            run = loader.exec_module

            def exec_module(module: Any) -> None:
                run(module)
                module.cython_blas = sys.modules[BLAS]

            loader.exec_module = exec_module   # type: ignore[method-assign]
        return spec


#: What a compile that takes long says on a terminal (:func:`~markone._internal.progress.slow_step`).
COMPILING = ("compiling the kernels this job needs (once: numba keeps them in its cache "
             "for later runs)")


def _announcer(numba):
    """A numba event listener for ``"numba:compile"``: a compile (never a load from
    the disk cache, which sends no such event) that runs longer than
    :data:`~markone._internal.progress.SLOW_STEP_S` says so on a terminal, once.
    Compiles nest (a kernel compiles those it calls): the outermost one is timed."""

    class Announcer(numba.core.event.Listener):
        depth = 0
        step: Any = None

        def on_start(self, event):
            self.depth += 1
            if self.depth == 1:
                self.step = slow_step(COMPILING)
                self.step.__enter__()

        def on_end(self, event):
            self.depth -= 1
            if self.depth == 0 and self.step is not None:
                step, self.step = self.step, None
                step.__exit__(None, None, None)

    return Announcer()


def compiled(fn: Callable[..., Any]) -> Any:
    """The numba dispatcher of kernel ``fn`` (made on the first request; numba then
    compiles each signature on its first call, or loads it from the disk cache of
    :func:`markone._internal.jit_cache.function_cache`; a kernel declared with
    ``signatures`` has them all at once, and no others: :func:`kernel`)."""
    dispatcher = _COMPILED.get(fn)
    if dispatcher is None:
        load_numba()   # every kernel registered, so that this one may call them
        options = {"nogil": True, **fn.__jit_options__}  # type: ignore[attr-defined]
        dispatcher = cached_njit(**options)(fn)
        signatures = getattr(fn, "__signatures__", ())
        for signature in signatures:   # compiled, or loaded from the disk cache
            dispatcher.compile(signature)
        if signatures:
            dispatcher.disable_compile()
        _COMPILED[fn] = dispatcher
    return dispatcher


def cached_njit(**options: Any) -> Callable[[Callable[..., Any]], Any]:
    """``numba.njit(**options)`` with markone's disk cache (as :func:`compiled` keeps
    it), for modules that compile their own numba functions: use it in place of
    ``numba.njit(cache=True)``, whose files go next to the installed module. Imports
    numba (not :func:`load_numba`: the function calls no kernel).

    >>> @cached_njit(nogil=True)
    ... def halve(x):
    ...     return x / 2
    >>> halve.py_func(3.0)   # a numba dispatcher: compiled by its first call
    1.5
    """

    def build(fn: Callable[..., Any]) -> Any:
        numba = import_numba()
        dispatcher = numba.njit(**options)(fn)
        cache = function_cache(fn)
        if cache is not None and isinstance(dispatcher, numba.core.dispatcher.Dispatcher):
            dispatcher._cache = cache   # what numba's cache=True does, with markone's folder
            numba_class: Any = type(dispatcher)   # (typeshed: a class is not Hashable)
            dispatcher.__class__ = _taking_turns(numba_class)
        return dispatcher

    return build


@functools.lru_cache(maxsize=None)
def _taking_turns(base: Any) -> Any:
    """numba's dispatcher class ``base``, compiling each new signature under its
    kernel's inter-process lock (:func:`~markone._internal.jit_cache.compile_lock`):
    processes that need a kernel at once compile it once, the others load it from the
    cache. It pickles as ``base`` (the disk cache is not part of a pickle)."""
    # numba's compiler lock and signature parser: numba is loaded when this is built
    from numba.core import sigutils
    from numba.core.compiler_lock import global_compiler_lock

    class Dispatcher(base):
        def compile(self, sig):
            # numba's lock first, as numba's compile takes it: a thread holding a
            # kernel's file lock never waits for another thread of this process
            with global_compiler_lock:
                if tuple(sigutils.normalize_signature(sig)[0]) in self.overloads:
                    return super().compile(sig)   # compiled already: no lock
                with compile_lock(lock_path(self._cache), self.py_func.__qualname__):
                    return super().compile(sig)

        def _reduce_class(self):
            return base

    Dispatcher.__name__ = Dispatcher.__qualname__ = base.__name__   # its repr unchanged
    return Dispatcher


def entry_point(fn: Callable[..., Any], signature: str) -> Callable[..., Any]:
    """The machine code of kernel ``fn`` for one ``signature`` (numba's notation,
    e.g. ``"(float64[:], float64)"``), callable without the dispatcher: no type
    dispatch per call (about 0.1 µs of a six-argument call here, half of numba's
    per-call floor) and no silent compile for other argument types. Compiled, or
    loaded from numba's disk cache, on the first request; kept for the process.

    The caller guarantees the types: numba's unboxing checks little (an array's item
    size, not its dtype, number of dimensions or layout), so guard each call with
    exact tests, such as ``x.__class__ is np.ndarray and x.dtype is FLOAT64 and
    x.shape == (d,)`` for a ``float64[:]`` argument (``[:]`` takes any strides).

    >>> import numpy as np
    >>> from markone._loops import one_index, ONE_INDEX
    >>> index = entry_point(one_index, ONE_INDEX)
    >>> index(np.array([1.0, 2.0]), np.array([1.0, -1.0, 0.5]), 2.0)
    1
    """
    entry = _ENTRIES.get((fn, signature))
    if entry is None:
        entry = _ENTRIES[fn, signature] = compiled(fn).compile(signature)
    return entry


def is_compiled(fn: Callable[..., Any]) -> bool:
    """Whether :func:`compiled` has made the dispatcher of ``fn`` in this process."""
    return fn in _COMPILED


def _register_kernel(numba, fn):
    from numba.extending import register_jitable

    options = fn.__jit_options__
    if options:
        register_jitable(**options)(fn)
    else:  # register_jitable() without options takes the function itself
        register_jitable(fn)


class PlainWork:
    """A process's allowance of plain (uncompiled) work, for kernels whose plain and
    compiled runs compute the same IEEE operations in the same order (no fast-math),
    so that the path changes the time a call takes, never its result.

    :meth:`kernel` gives a kernel as it runs now: the plain function while the
    allowance lasts, its :func:`compiled` dispatcher once it is spent (and from then
    on: a process does not go back to plain). A small job thus never imports numba
    nor waits for a compiler; a large one compiles once, as it would have anyway.

    >>> work = PlainWork(3)
    >>> @kernel()
    ... def twice(x):
    ...     return 2 * x
    >>> work.kernel(twice, 2) is twice, work.left     # 2 units spent, plain
    (True, 1)
    >>> work.spend(5); work.left       # used up: work.kernel(twice) is compiled now
    0
    """

    def __init__(self, units: int) -> None:
        #: the plain work left, in the caller's units (e.g. the Mark I's trials)
        self.left = units

    def spend(self, units: int) -> None:
        """Count ``units`` of work done (plain while any allowance was left)."""
        self.left = max(self.left - units, 0)

    def expect(self, units: int) -> None:
        """A job of ``units`` is coming: when the allowance left cannot cover it,
        give the allowance up now, so that the job runs compiled from its first step
        (a fleet worker's thousands of trials would else start plain and switch).
        A job the allowance covers changes nothing.

        >>> work = PlainWork(10)
        >>> work.expect(5); work.left
        10
        >>> work.expect(11); work.left
        0
        """
        if units > self.left:
            self.left = 0

    def covers(self, units: int) -> bool:
        """Whether the allowance covers ``units`` more work: :meth:`kernel` would
        give the plain function (nothing is spent here).

        >>> PlainWork(3).covers(3), PlainWork(3).covers(4), PlainWork(0).covers(0)
        (True, False, False)
        """
        return 0 < self.left and units <= self.left

    def kernel(self, fn: Callable[..., Any], units: int = 0) -> Any:
        """``fn`` uncompiled (:func:`uncompiled`) while the allowance covers ``units``
        more work (which are spent), else ``compiled(fn)`` (and nothing is left)."""
        if self.covers(units):
            self.left -= units
            return uncompiled(fn)
        self.left = 0
        return compiled(fn)
