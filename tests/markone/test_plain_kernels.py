"""The kernels' two paths (issue 26): small work runs as plain Python, big work compiled.

* the path is a function of the work alone (:func:`markone._loops.pass_kernel`):
  a small run never asks for the compiler, a big one does from its first pass past
  the limit (seen by spying on :func:`markone._internal.jit.compiled`; no timing);
* on exact data (small integers, quarters) the plain and the compiled paths end
  with the same result bit for bit, for every variant, order, layout and arithmetic;
* numba's disk cache serves a read-only installation (slow: it compiles).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import shutil
import subprocess
import sys
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import markone
from markone import _loops
from markone._internal import jit
from markone.engine import VARIANTS

from _paths import ROOT


def test_pass_kernel_depends_on_the_work_only():
    limit, run = jit.PLAIN_PRESENTATIONS, _loops.PLAIN_RUN
    for fn in (_loops.epoch_last_xy, _loops.epoch_general):
        assert _loops.pass_kernel(fn, 0, limit) is fn
        assert _loops.pass_kernel(fn, limit - 10, 10) is fn
        assert _loops.pass_kernel(fn, limit - 10, 11) is jit.compiled(fn)
        assert _loops.pass_kernel(fn, 0, limit + 1) is jit.compiled(fn)
        assert _loops.pass_kernel(fn, run - 10, 10, at_most=run) is fn
        assert _loops.pass_kernel(fn, 0, limit + 1, at_most=run + 1) is jit.compiled(fn)


@pytest.fixture
def passes(monkeypatch):
    """Which path each pass took: "plain" or "compiled" (the compiled kernel is not
    run: the spy hands back the plain function, so nothing is compiled here)."""
    taken = []

    def spy(fn):
        taken.append("compiled")
        return lambda *args: fn(*args)

    real = _loops.pass_kernel

    def recording(fn, presented, rows, at_most=None):
        chosen = real(fn, presented, rows, at_most)
        if chosen is fn:
            taken.append("plain")
        return chosen

    monkeypatch.setattr(_loops, "compiled", spy)
    monkeypatch.setattr(_loops, "pass_kernel", recording)
    return taken


@pytest.mark.parametrize("variant", ["last", "averaged"])
def test_small_runs_plain_and_big_runs_compiled(passes, variant, monkeypatch):
    X, y = [[0, 0], [0, 1], [1, 0], [1, 1]], [-1, -1, -1, 1]
    res = markone.train(X, y, variant=variant)
    assert passes == ["plain"] * res.epochs
    passes.clear()
    monkeypatch.setattr(_loops, "PLAIN_RUN", 2**14)   # the rule, cheaper to run
    n = jit.PLAIN_PRESENTATIONS // 2 + 1      # one plain pass, then compiled ones
    rng = np.random.default_rng(0)
    Xb = rng.integers(-3, 4, (n, 3)).astype(float)
    yb = rng.choice([-1, 1], n)
    epochs = _loops.PLAIN_RUN // n + 1      # a run that may make more than PLAIN_RUN
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = markone.train(Xb, yb, max_epochs=epochs, variant=variant)
    assert res.epochs == epochs and passes == ["plain"] + ["compiled"] * (epochs - 1)
    passes.clear()
    with warnings.catch_warnings():   # at most PLAIN_RUN in all: plain to the end
        warnings.simplefilter("ignore")
        res = markone.train(Xb, yb, max_epochs=epochs - 1, variant=variant)
    assert res.epochs == epochs - 1 and passes == ["plain"] * (epochs - 1)
    passes.clear()
    big = _loops.PLAIN_RUN + 1
    markone.train(np.ones((big, 2)), np.ones(big), variant=variant)
    assert passes[0] == "compiled"   # a first pass past the limit is compiled at once


def test_a_run_that_plain_work_finishes_sooner_than_loading_numba_stays_plain(passes):
    # 4 passes over 30,000 rows (the start-up benchmark's dense train, issue 38):
    # some 0.4 s plain, less than importing numba and loading a cached pass
    rng = np.random.default_rng(2)
    n = 30_000
    X = rng.integers(-3, 4, (n, 3)).astype(float)
    y = rng.choice([-1, 1], n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = markone.train(X, y, max_epochs=4)
    assert res.epochs == 4 and passes == ["plain"] * 4


@contextlib.contextmanager
def _all_passes(path):
    """Run every pass plain (``path="plain"``) or compiled (``"compiled"``)."""
    saved = _loops.PLAIN_PRESENTATIONS, _loops.PLAIN_RUN
    limit = sys.maxsize if path == "plain" else -1
    _loops.PLAIN_PRESENTATIONS = _loops.PLAIN_RUN = limit
    try:
        yield
    finally:
        _loops.PLAIN_PRESENTATIONS, _loops.PLAIN_RUN = saved


def _outcome(path, *args, **kw):
    """What ``markone.train(*args, **kw)`` gives with every pass on ``path``: its
    result's fields, or the error it raises (both paths must refuse alike)."""
    with _all_passes(path), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return _fields(markone.train(*args, **kw))
        except ValueError as error:
            return repr(error)


def _fields(res):
    """A TrainResult as plain comparable values (float bits included)."""
    out = {}
    for f in dataclasses.fields(res):
        v = getattr(res, f.name)
        if isinstance(v, np.ndarray):
            v = (v.dtype.str, v.tobytes())
        elif isinstance(v, (list, tuple)):
            v = repr([(x.dtype.str, x.tobytes()) if isinstance(x, np.ndarray) else x
                      for x in v])
        out[f.name] = v
    return out


@st.composite
def exact_problems(draw):
    """Small integers, or quarters (dyadic: every dot product exact in float64)."""
    n = draw(st.integers(1, 12))
    d = draw(st.integers(1, 5))
    X = draw(hnp.arrays(np.int64, (n, d), elements=st.integers(-6, 6))).astype(float)
    if draw(st.booleans()):
        X = X / 4
    y = draw(hnp.arrays(np.int64, n, elements=st.sampled_from([-1, 1])))
    return X, y


@settings(max_examples=60, deadline=None)
@given(problem=exact_problems(), variant=st.sampled_from(VARIANTS),
       order=st.sampled_from(["given", "shuffle", "reversed"]),
       sparse=st.booleans(), intercept=st.booleans(), record=st.booleans(),
       eta=st.sampled_from([1.0, 0.5, 3.0]))
def test_plain_and_compiled_agree_bit_for_bit_on_exact_data_hypo(
        problem, variant, order, sparse, intercept, record, eta):
    X, y = problem
    data = sp.csr_array(X) if sparse else X
    how = list(range(len(y)))[::-1] if order == "reversed" else order
    kw = dict(variant=variant, order=how, seed=5, intercept=intercept, record=record,
              eta=eta, max_epochs=7)
    assert _outcome("plain", data, y, **kw) == _outcome("compiled", data, y, **kw)


@settings(max_examples=20, deadline=None)
@given(problem=exact_problems(), variant=st.sampled_from(VARIANTS))
def test_plain_and_compiled_agree_on_exact_integer_runs_hypo(problem, variant):
    X, y = problem
    X = (X * 4).astype(np.int64)            # exact=True: the int64 loop, checked
    kw = dict(variant=variant, exact=True, max_epochs=7, record=True)
    assert _outcome("plain", X, y, **kw) == _outcome("compiled", X, y, **kw)


def test_a_run_that_switches_paths_equals_an_all_compiled_run(monkeypatch):
    monkeypatch.setattr(_loops, "PLAIN_RUN", 2**14)   # the switch, sooner
    rng = np.random.default_rng(1)
    n = jit.PLAIN_PRESENTATIONS // 3
    X = rng.integers(-4, 5, (n, 4)) / 4
    y = np.where(X @ [1.0, -2.0, 0.5, 1.0] > 0.1, 1, -1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        epochs = _loops.PLAIN_RUN // n + 1   # more than PLAIN_RUN: it switches
        switching = _fields(markone.train(X, y, max_epochs=epochs, variant="averaged"))
    assert switching == _outcome("compiled", X, y, max_epochs=epochs, variant="averaged")


@pytest.mark.slow
def test_compiled_kernels_are_cached_for_a_read_only_installation(tmp_path):
    """A copy of the package next to which nothing can be written: the cache is in
    the user cache folder (``$XDG_CACHE_HOME/markone/numba``), and a second process
    loads the kernel rather than compiling it. (Tests run as root, which permission
    bits do not stop, so a file stands where numba's ``__pycache__`` folder would
    go.)"""
    site = tmp_path / "site"
    shutil.copytree(ROOT / "markone", site / "markone",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (site / "markone" / "__pycache__").write_text("not a folder: nothing can be cached here")
    env = dict(os.environ, PYTHONPATH=str(site), XDG_CACHE_HOME=str(tmp_path / "cache"),
               PYTHONDONTWRITEBYTECODE="1")
    env.pop("NUMBA_CACHE_DIR", None)
    code = f"""
import numpy as np
from markone import _loops
from markone._internal.jit import compiled
assert _loops.__file__.startswith({str(site)!r}), _loops.__file__
k = compiled(_loops.epoch_last_xy)
X = np.array([[1.0, 0.0], [0.0, 1.0]])
k(X, np.array([1.0, -1.0]), 1.0, np.arange(2), 1.0, np.zeros(3), np.zeros(2, np.int64))
print(sum(k.stats.cache_hits.values()), sum(k.stats.cache_misses.values()))
"""
    runs = [subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path,
                           capture_output=True, text=True, check=True).stdout.split()
            for _ in range(2)]
    assert runs == [["0", "1"], ["1", "0"]]   # compiled once, then loaded from disk
    assert any((tmp_path / "cache" / "markone" / "numba").rglob("*.nbi"))


@pytest.mark.parametrize("x, sign, c, stop", [
    ([1.0, -2.0, 0.5], -1.0, 1.0, 0),         # an update
    ([0.5, 0.0, -1.0], 1.0, 1.0, 0),          # no update
    ([0.0, 0.0, 0.0], 1.0, 0.0, 2),           # a zero vector without intercept
    ([1.0, np.nan, 0.0], 1.0, 1.0, 1),        # not finite
])
def test_counted_step_is_epoch_last_xy_on_one_row_counted(x, sign, c, stop):
    # plain, and the compiled entry point learn_one calls, on a strided row too
    w0 = np.array([0.5, 1.0, -1.0, 2.0])
    want_w, want_s = w0.copy(), np.zeros(2, dtype=np.int64)
    want = _loops.epoch_last_xy(np.array([x]), np.array([sign]), c,
                                np.zeros(1, dtype=np.int64), 1.0, want_w, want_s)
    entry = jit.entry_point(_loops.counted_step, _loops.COUNTED_STEP)
    for fn in (_loops.counted_step, entry):
        for row in (np.array(x), np.repeat(np.array(x), 2)[::2]):
            w, s = w0.copy(), np.array([0, 0, 7], dtype=np.int64)
            assert fn(row, sign, c, 1.0, w, s) == stop == want_s[0]
            assert w.tobytes() == want_w.tobytes() and s.tolist() == [stop, 0, 7 + want]


def test_one_index_is_the_sign_of_one_score():
    rng = np.random.default_rng(0)
    entry = jit.entry_point(_loops.one_index, _loops.ONE_INDEX)
    for _ in range(50):
        x, w, c = rng.standard_normal(4), rng.standard_normal(5), float(rng.integers(0, 3))
        want = int(_loops.one_score(x, w, w[-1] * c) >= 0)
        strided = np.repeat(x, 2)[::2]
        assert _loops.one_index(x, w, c) == entry(x, w, c) == entry(strided, w, c) == want
    assert entry(np.array([np.inf, 1.0, 0, 0]), w, c) == -1
    assert entry(np.zeros(4), np.zeros(5), 1.0) == 1   # a zero score: classes_[1]


@pytest.mark.parametrize("d", [3, 20, 33])
def test_compiled_steps_equal_the_compiled_pass_bit_for_bit(d):
    # on floats whose dot products round: learn_one's compiled step (the pass inlined
    # into it) sums as the compiled pass does, so a stream of steps is the pass
    rng = np.random.default_rng(d)
    n = 3000
    X = rng.standard_normal((n, d)) * 1.37
    y = np.where(X @ rng.standard_normal(d) + rng.standard_normal(n) > 0, 1.0, -1.0)
    w_pass, w_steps = np.zeros(d + 1), np.zeros(d + 1)
    status = np.zeros(3, dtype=np.int64)
    m = jit.compiled(_loops.epoch_last_xy)(X, y, 1.0, np.arange(n), 1.0, w_pass, status)
    step = jit.entry_point(_loops.counted_step, _loops.COUNTED_STEP)
    for x, t in zip(np.asfortranarray(X), y):     # strided rows
        assert step(x, t, 1.0, 1.0, w_steps, status) == 0
    assert status[2] == m > 0 and w_steps.tobytes() == w_pass.tobytes()


def _spy_compiled(monkeypatch):
    """The kernels then asked of :func:`markone._loops.compiled` (by
    :func:`markone._loops.pass_kernel`), by name; the real one is handed back."""
    asked, real = [], _loops.compiled
    monkeypatch.setattr(_loops, "compiled",
                        lambda fn: (asked.append(fn.__name__), real(fn))[1])
    return asked


def test_a_small_multiclass_fit_runs_plain_and_a_big_one_compiled(monkeypatch):
    # issue 38: the argmax pass was compiled whatever the size of the fit
    from markone import MulticlassPerceptron

    asked = _spy_compiled(monkeypatch)
    rng = np.random.default_rng(5)
    X = rng.integers(-3, 4, (300, 4)).astype(float)
    y = rng.integers(0, 3, 300)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain = MulticlassPerceptron(max_epochs=5).fit(X, y)
        assert asked == []
        monkeypatch.setattr(_loops, "PLAIN_RUN", 3 * 300 * 4)   # 5 passes: more
        monkeypatch.setattr(_loops, "PLAIN_PRESENTATIONS", 3 * 300 * 2)  # 2 plain
        switching = MulticlassPerceptron(max_epochs=5).fit(X, y)
    assert asked == ["_argmax_epoch"] * 3
    assert plain.w_.tobytes() == switching.w_.tobytes()   # integers: exact sums


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 40), st.integers(0, 2**32 - 1))
def test_the_dual_pass_is_the_same_plain_and_compiled_hypo(n, seed):
    # elementwise updates: the same IEEE results bit for bit, on any floats
    from markone.online import _dual_epoch

    rng = np.random.default_rng(seed)
    G = rng.standard_normal((n, n))
    y = rng.choice([-1.0, 1.0], n)
    idx = np.r_[rng.permutation(n), rng.permutation(n)]
    f0, runs = rng.standard_normal(n) * rng.integers(0, 2, n), []
    for fn in (jit.uncompiled(_dual_epoch), jit.compiled(_dual_epoch)):
        alpha, f = np.zeros(n, dtype=np.int64), f0.copy()
        runs.append((fn(G, y, idx, alpha, f), alpha.tolist(), f.tobytes()))
    assert runs[0] == runs[1]


def test_a_small_kernel_fit_runs_plain(monkeypatch):
    # issue 38: the kernel perceptron's dual pass was compiled whatever the size
    from markone import KernelPerceptron

    asked = _spy_compiled(monkeypatch)
    rng = np.random.default_rng(6)
    X = rng.standard_normal((200, 3))
    y = np.where(X[:, 0] > 0, 1, -1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain = KernelPerceptron(kernel="rbf", max_epochs=20).fit(X, y)
        assert asked == []
        monkeypatch.setattr(_loops, "PLAIN_RUN", 0)
        monkeypatch.setattr(_loops, "PLAIN_PRESENTATIONS", 0)
        compiled = KernelPerceptron(kernel="rbf", max_epochs=20).fit(X, y)
    assert asked and set(asked) == {"_dual_epoch"}
    assert plain.decision_function(X).tobytes() == compiled.decision_function(X).tobytes()


def test_kernels_imported_after_numba_was_loaded_compile():
    """numba loaded before ``markone._loops`` is imported (a module that compiles
    its own functions at import, e.g. ``verify.machine.theory``): the row operations'
    overloads are registered by the next compile, not halfway through the import
    (which raised NameError on a name defined below the hook)."""
    code = """
import numpy as np
from markone._internal.jit import compiled, load_numba
load_numba()
from markone import _loops
w, status = np.zeros(3), np.zeros(2, np.int64)
X = np.array([[1.0, 0.0], [0.0, 1.0]])
print(compiled(_loops.epoch_last_xy)(X, np.array([1.0, -1.0]), 1.0, np.arange(2), 1.0,
                                     w, status), w.tolist())
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)), cwd=ROOT)
    assert done.returncode == 0, done.stderr[-400:]
    assert done.stdout.split() == ["2", "[1.0,", "-1.0,", "0.0]"]


def test_the_plain_underflow_check_is_the_numpy_form(monkeypatch):
    """A plain run's first presentation (all weights zero) asks whether the score
    underflows; the plain path answers with the numpy form, not the scalar loop."""
    assert jit.uncompiled(_loops.score_underflows) is not _loops.score_underflows
    calls = []
    real = _loops.score_underflows
    monkeypatch.setattr(_loops, "score_underflows", lambda *a: calls.append(a) or real(*a))
    markone.train(np.arange(1.0, 101.0)[None, :], np.array([1]))
    assert calls == []


_tiny = st.sampled_from([0.0, -0.0, 1.0, -3.0, 2.0**-600, -(2.0**-540), 2.0**-1074,
                         np.inf, np.nan])


@settings(max_examples=200, deadline=None)
@given(w=hnp.arrays(np.float64, st.integers(1, 6), elements=_tiny),
       row_values=st.data(), c=_tiny)
def test_the_underflow_check_is_the_same_plain_and_scalar_hypo(w, row_values, c):
    row = row_values.draw(hnp.arrays(np.float64, w.shape[0] - 1, elements=_tiny)) \
        if w.shape[0] > 1 else np.zeros(0)
    with np.errstate(all="ignore"):
        plain = jit.uncompiled(_loops.score_underflows)(w, row, c)
        assert plain == bool(_loops.score_underflows(w, row, c))
