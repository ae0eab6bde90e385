"""Adapters: run any perceptron implementation on a conformance problem.

* :class:`CallableAdapter` wraps a Python function, either ``f(problem) -> answer``
  (the full protocol: every case) or ``f(X, y, order) -> (w, mistakes)`` (the binary
  last-iterate cases; ``X`` arrives augmented with the constant 1);
* :class:`EstimatorAdapter` a scikit-learn style estimator, fed one row at a time
  with ``partial_fit``; the weights are read from ``coef_`` and ``intercept_``;
* :class:`RiverAdapter` a River style learner (``learn_one``/``predict_one``), fed
  ``{j: x_j}`` dicts and boolean labels; weights read from ``weights``/``intercept``
  (or ``coef_``/``intercept_``);
* :class:`CommandAdapter` any program: the problem as JSON on its stdin, the answer as
  JSON on its stdout (see ``docs/test-your-perceptron.md``).

The estimator adapters count a mistake whenever a presentation changed the weights,
and set ``fit_intercept`` (or ``intercept``) to the case's intercept when the estimator
has such a parameter. Whatever goes wrong inside the implementation raises
:class:`ImplementationError` carrying its traceback or stderr.

>>> a = adapter_for(lambda problem: {"w": [1, -1], "mistakes": 2})
>>> a.answer({"task": "binary", "variant": "last", "intercept": False,
...           "X": [[1, 0], [0, 1]], "y": [1, -1], "order": [0, 1]})
{'w': [1, -1], 'mistakes': 2}
"""

from __future__ import annotations

import copy
import importlib
import importlib.util
import inspect
import json
import math
import os
import shlex
import shutil
import signal
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from markone._internal.exact import int_of_digits
from markone.engine import augment
from markone._internal.typing import JSONDict
from verify._internal.budget import check_timeout
from verify.conformance.command import OutputLimits, run_bounded
from verify.errors import DeadlineExceeded, OutputLimitExceeded
from verify.conformance.profile import Profile, handshake_problem
from verify.conformance.protocol import answers_by_vote, exact_numbers
from verify.errors import ImplementationError, LimitExceeded, NotApplicable

__all__ = ["CallableAdapter", "EstimatorAdapter",
           "RiverAdapter", "CommandAdapter", "adapter_for", "load_impl"]


class Adapter(Protocol):
    """What the suite runs: a ``name`` and ``answer(problem)``, the implementation's
    answer as a JSON-ready dict (or None when it gives none)."""

    name: str

    def answer(self, problem: JSONDict) -> JSONDict | None: ...


def _user_traceback(exc):
    """The traceback of ``exc`` without the adapter's own frame (the caller's)."""
    tb = exc.__traceback__.tb_next if exc.__traceback__ is not None else None
    return "".join(traceback.format_exception(type(exc), exc, tb)).rstrip()


def _call(what, fn, *args, **kwargs):
    try:
        return fn(*args, **kwargs)
    except NotApplicable:     # an f(problem) may decline a case it cannot express
        raise
    except Exception as exc:  # anything the implementation raises is its own
        raise ImplementationError(f"{what} raised {type(exc).__name__}: {exc}",
                                  _user_traceback(exc)) from exc


def _vector_like(v):
    return isinstance(v, (list, tuple, np.ndarray)) and np.ndim(v) == 1 and not any(
        isinstance(x, (list, tuple, dict)) for x in v)


def normalise_answer(out: Any, problem: JSONDict) -> JSONDict:
    """Accept the answer shapes people write: a dict, ``(w, mistakes)``, ``w`` alone,
    or the number of mistakes alone (binary cases); anything else is explained."""
    if isinstance(out, dict):
        return out
    binary_w = problem["task"] == "binary" and not answers_by_vote(problem)
    if isinstance(out, (tuple, list)) and len(out) == 2 and _vector_like(out[0]) and \
            np.ndim(out[1]) == 0:
        key = "w" if binary_w else "alpha" if problem["task"] == "kernel" else None
        if key:
            return {key: np.asarray(out[0]).tolist(), "mistakes": _int(out[1])}
    if isinstance(out, (int, np.integer)) and not isinstance(out, bool):
        return {"mistakes": int(out)}
    if _vector_like(out) and binary_w:
        return {"w": np.asarray(out).tolist()}
    raise ImplementationError(
        f"the implementation returned {type(out).__name__} {_short(out)}; it must "
        "return (w, mistakes), w alone, the number of mistakes alone, or a dict like "
        "{\"w\": [...], \"mistakes\": k}")


def _int(v):
    try:
        f = float(v)
    except (TypeError, ValueError):
        raise ImplementationError(f"the number of mistakes is {v!r}, not an integer")
    if f != int(f):
        raise ImplementationError(f"the number of mistakes is {v!r}, not an integer")
    return int(f)


def _short(obj, n=80):
    text = repr(obj)
    return text if len(text) <= n else text[:n - 5] + " ...)"


def _float_X(problem):
    return np.array(problem["X"], dtype=float)


class CallableAdapter:
    """A Python function ``f(problem)`` or ``f(X, y, order)``."""

    def __init__(self, fn: Callable[..., Any], name: str | None = None) -> None:
        self.fn = fn
        self.name = str(name or getattr(fn, "__qualname__", repr(fn)))
        try:
            params = [p for p in inspect.signature(fn).parameters.values()
                      if p.default is p.empty and p.kind in
                      (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        except (TypeError, ValueError):
            params = [None]
        if len(params) not in (1, 3):
            raise TypeError(
                f"{self.name} takes {len(params)} required arguments; an implementation "
                "is f(problem) -> answer (every case) or f(X, y, order) -> (w, mistakes) "
                "(binary last-iterate cases).")
        self.legacy = len(params) == 3

    def answer(self, problem: JSONDict) -> JSONDict | None:
        if not self.legacy:
            return normalise_answer(_call(self.name, self.fn, problem), problem)
        if problem["task"] != "binary" or problem["variant"] != "last":
            raise NotApplicable(
                "f(X, y, order) computes the last iterate of the binary rule; write "
                "f(problem) to be tested on the variant, multiclass and kernel cases")
        X = augment(_float_X(problem), problem["intercept"])
        y = np.asarray(problem["y"], dtype=np.int64)
        order = np.asarray(problem["order"], dtype=np.int64)
        return normalise_answer(_call(self.name, self.fn, X, y, order), problem)


def _fresh(obj):
    """A fresh copy of an estimator or learner (or a new instance of a class)."""
    if isinstance(obj, type):
        return obj()
    if hasattr(obj, "clone") and callable(obj.clone):
        return obj.clone()
    if hasattr(obj, "get_params"):
        from sklearn.base import clone

        return clone(obj)
    return copy.deepcopy(obj)


def _set_intercept(est, flag):
    """Set ``fit_intercept``/``intercept`` to the case's choice when the estimator has
    it; return the name set (or None)."""
    if not hasattr(est, "get_params"):
        return None
    params = est.get_params()
    for name in ("fit_intercept", "intercept"):
        if isinstance(params.get(name), bool):
            est.set_params(**{name: bool(flag)})
            return name
    return None


def _linear_state(coef, intercept, with_intercept):
    """Weights as the suite writes them: coef then intercept (kept when the case has
    an intercept, or when the implementation learned a nonzero one anyway)."""
    coef = np.array(coef, dtype=float)        # a copy: estimators update in place
    b = np.atleast_1d(np.array(intercept, dtype=float))
    if coef.ndim == 2 and coef.shape[0] > 1:       # one row per class
        return np.hstack([coef, b[:, None]]) if with_intercept or b.any() else coef
    coef = coef.ravel()
    return np.concatenate([coef, b[:1]]) if with_intercept or b.any() else coef


class EstimatorAdapter:
    """A scikit-learn style estimator trained with one-row ``partial_fit`` calls."""

    def __init__(self, estimator: Any, name: str | None = None) -> None:
        self.estimator = estimator
        self.name = name or (estimator.__name__ if isinstance(estimator, type)
                             else type(estimator).__name__)

    def answer(self, problem: JSONDict) -> JSONDict | None:
        if problem["task"] == "kernel" or problem["variant"] != "last":
            raise NotApplicable(
                "a partial_fit estimator exposes one weight vector (coef_); the case "
                f"pins the {problem['task']} {problem['variant']} rule")
        est = _call(self.name, _fresh, self.estimator)
        _call(self.name, _set_intercept, est, problem["intercept"])
        X = _float_X(problem)
        multi = problem["task"] == "multiclass"
        classes = list(range(problem["n_classes"])) if multi else [-1, 1]

        def state():
            if not hasattr(est, "coef_"):
                return None
            return _linear_state(est.coef_, getattr(est, "intercept_", 0.0),
                                 problem["intercept"])

        prev, mistakes = None, 0
        for i in problem["order"]:
            _call(self.name + ".partial_fit", est.partial_fit, X[i:i + 1],
                  np.array([problem["y"][i]]), classes=classes)
            now = state()
            changed = now is not None and (
                np.any(now != 0) if prev is None else
                now.shape != prev.shape or np.any(now != prev))
            mistakes += bool(changed)
            prev = now
        zero_w = np.zeros((len(classes), X.shape[1] + problem["intercept"]) if multi
                          else X.shape[1] + problem["intercept"])
        w = prev if prev is not None else zero_w
        if multi:
            pred = _call(self.name + ".predict", est.predict,
                         np.array(problem["queries"], dtype=float))
            return {"W": w.tolist(), "mistakes": mistakes,
                    "predictions": [int(p) for p in pred]}
        return {"w": w.tolist(), "mistakes": mistakes}


class RiverAdapter:
    """A River style learner: ``learn_one(x, y)`` with ``x = {j: x_j}`` and labels
    True/False (binary cases)."""

    def __init__(self, learner: Any, name: str | None = None) -> None:
        self.learner = learner
        self.name = name or (learner.__name__ if isinstance(learner, type)
                             else type(learner).__name__)

    def answer(self, problem: JSONDict) -> JSONDict | None:
        if problem["task"] != "binary" or problem["variant"] != "last":
            raise NotApplicable(
                "a learn_one learner is asked binary last-iterate cases (labels "
                f"True/False); the case pins the {problem['task']} {problem['variant']} "
                "rule")
        model = _call(self.name, _fresh, self.learner)
        _call(self.name, _set_intercept, model, problem["intercept"])
        X = _float_X(problem)
        d = X.shape[1]

        def state(with_intercept):
            if hasattr(model, "coef_"):
                return _linear_state(model.coef_, getattr(model, "intercept_", 0.0),
                                     with_intercept)
            weights = getattr(model, "weights", None)
            if weights is None:
                raise ImplementationError(
                    f"{self.name} has neither coef_/intercept_ nor weights/intercept; "
                    "the adapter cannot read its weight vector (wrap it in f(problem))")
            coef = [float(weights.get(j, 0.0)) for j in range(d)]
            return _linear_state(coef, float(getattr(model, "intercept", 0.0)),
                                 with_intercept)

        # an intercept the learner learned at some point is reported to the end, even
        # when it came back to 0 (its length must not depend on its value)
        prev, mistakes, learned = np.zeros(d + problem["intercept"]), 0, False
        for i in problem["order"]:
            x = {j: float(X[i, j]) for j in range(d)}
            _call(self.name + ".learn_one", model.learn_one, x, bool(problem["y"][i] > 0))
            now = state(problem["intercept"] or learned)
            learned = learned or len(now) > d
            mistakes += bool(now.shape != prev.shape or np.any(now != prev))
            prev = now
        return {"w": prev.tolist(), "mistakes": mistakes}


class CommandAdapter:
    """A program that reads the problem as JSON on stdin and writes the answer as JSON
    on stdout (exit status 0).

    Each run is bounded (:func:`verify.conformance.command.run_bounded`): its own
    process group, stopped whole when the run ends (with the processes that left it);
    ``limits`` on what it writes (:class:`OutputLimits`); and, only when given,
    ``timeout_s`` seconds for each exchange and ``total_timeout_s`` seconds for all of
    them together, counted from now (``markone adversary check --timeout``): a run
    still going then is stopped, and later runs are not started. Without them a run is waited for however long it takes, so no
    verdict depends on how busy the machine is. A run that breaks a bound is the
    implementation's error, with a message naming the bound."""

    def __init__(self, command: str, *, timeout_s: float | None = None,
                 limits: OutputLimits | None = None,
                 total_timeout_s: float | None = None) -> None:
        self.timeout_s = check_timeout(timeout_s)
        self.argv = shlex.split(command)
        if not self.argv:
            raise ValueError("--cmd is empty; give the command that runs your "
                             "implementation, e.g. --cmd \"node perceptron.js\".")
        if shutil.which(self.argv[0]) is None:
            raise FileNotFoundError(
                f"--cmd: cannot find the program {self.argv[0]!r} (not on PATH and not "
                "an executable file).")
        self.name = command
        self.limits = OutputLimits() if limits is None else limits
        self.total_timeout_s = total_timeout_s
        self._deadline = math.inf if total_timeout_s is None else \
            time.monotonic() + total_timeout_s
        self._timed_out: ImplementationError | None = None

    def answer(self, problem: JSONDict) -> JSONDict | None:
        return normalise_answer(self._exchange(problem), problem)

    def declared_profile(self) -> Profile | None:
        """The profile the program declares in answer to the handshake
        (:func:`verify.conformance.profile.handshake_problem`), or None when it
        answers anything else (a program that does not know the handshake).

        Raises ValueError when it declares a profile that is not valid."""
        try:
            out = self._exchange(handshake_problem())
        except ImplementationError:
            return None
        if not isinstance(out, dict) or "profile" not in out:
            return None
        try:
            return Profile.from_json(out["profile"])
        except ValueError as exc:
            raise ValueError(f"`{self.name}` answers the handshake with a profile "
                             f"that is not valid: {exc}") from None

    def _timeout(self):
        """Seconds this run may take, and the limit that says so (for the message)."""
        left = self._deadline - time.monotonic()
        if self._timed_out is not None or left <= 0:
            raise ImplementationError(
                (str(self._timed_out) + " (in an earlier run)" if self._timed_out
                 else f"`{self.name}` ran out of time")
                + f"; --timeout {self.total_timeout_s:g} s covers every run together, "
                "so this one was not started", getattr(self._timed_out, "text", ""))
        if self.timeout_s is not None and self.timeout_s <= left:
            return self.timeout_s, self.timeout_s
        return left, self.total_timeout_s

    def _exchange(self, problem):
        """Run the program on ``problem``; its answer as parsed JSON."""
        seconds, limit = self._timeout() if self.timeout_s is not None or \
            self.total_timeout_s is not None else (None, None)
        try:
            # what the program writes is its own business: bytes that are not UTF-8
            # become U+FFFD (and then fail as not JSON), never an error of markone's
            run = run_bounded(self.argv, json.dumps(problem), timeout_s=seconds,
                              limits=self.limits)
        except DeadlineExceeded as exc:
            error = ImplementationError(f"`{self.name}` did not answer within "
                                        f"{limit:g} s ({exc})", exc.stderr)
            if limit == self.total_timeout_s:
                self._timed_out = error
            raise error from None
        except OutputLimitExceeded as exc:
            raise ImplementationError(f"`{self.name}`: {exc}", exc.stderr) from None
        if run.returncode != 0:
            raise ImplementationError(f"`{self.name}` {_exit_words(run.returncode)}",
                                      run.stderr.rstrip())
        try:
            return exact_numbers(json.loads(run.stdout, parse_int=int_of_digits),
                                 max_digits=self.limits.max_digits)
        except json.JSONDecodeError as exc:
            raise ImplementationError(
                f"`{self.name}` did not write one JSON object on stdout ({exc}); it "
                f"wrote {_short(run.stdout)}", run.stderr.rstrip(), run.stdout) from exc
        except LimitExceeded as exc:
            raise ImplementationError(f"`{self.name}`: {exc}", run.stderr.rstrip()
                                      ) from None


def _exit_words(status):
    if status < 0:
        try:
            return f"was killed by {signal.Signals(-status).name}"
        except ValueError:
            return f"was killed by signal {-status}"
    return f"exited with status {status}"


def adapter_for(obj: Any, name: str | None = None) -> Adapter:
    """The adapter for a Python object: an estimator with ``partial_fit``, a learner
    with ``learn_one``, a function, or a class of either (instantiated with its
    defaults for every case)."""
    if hasattr(obj, "partial_fit"):
        return EstimatorAdapter(obj, name)
    if hasattr(obj, "learn_one"):
        return RiverAdapter(obj, name)
    if callable(obj):
        return CallableAdapter(obj, name)
    raise TypeError(
        f"{name or _short(obj)} is a {type(obj).__name__}: an implementation is a "
        "function f(problem) or f(X, y, order), an estimator with partial_fit, or a "
        "learner with learn_one.")


def load_impl(spec: str) -> Adapter:
    """Import ``module:attr`` or ``path/to/file.py:attr`` and wrap it (adapter_for)."""
    target, sep, attr = spec.rpartition(":")
    if not sep or not target or not attr or not attr.replace(".", "_").isidentifier():
        raise ValueError(f"--impl must look like module:function or path/to/file.py:"
                         f"function, got {spec!r}.")
    if target.endswith(".py") or os.sep in target or "/" in target:
        module = _import_file(Path(target))
    else:
        module = _import_module(target)
    obj = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise ValueError(f"--impl: {target} has no attribute {attr!r}"
                             f"{_callables_hint(obj, target, attr)}.")
        obj = getattr(obj, part)
    return adapter_for(obj, name=spec)


def _callables_hint(obj: Any, target: str, attr: str) -> str:
    """The callables ``obj`` (a module, or a class in it) defines itself, as the
    remedy of an ``--impl`` that named another; '' when it defines none.

    >>> import types
    >>> mod = types.ModuleType("mine")
    >>> def fit(X, y, order): pass
    >>> fit.__module__ = "mine"
    >>> mod.fit, mod.np = fit, types
    >>> _callables_hint(mod, "mine.py", "fitt")
    '; it defines fit: pass --impl mine.py:fit'
    """
    own = [name for name, value in vars(obj).items() if callable(value)
           and not name.startswith("_")
           and getattr(value, "__module__", None) == getattr(obj, "__name__", None)]
    if not own:
        return ""
    if len(own) == 1:
        return f"; it defines {own[0]}: pass --impl {target}:{own[0]}"
    return f"; it defines {', '.join(own)}: pass --impl {target}:NAME with one of them"


def _import_file(path: Path) -> Any:
    """The module of a Python file named by ``--impl`` (what it raises on import is
    the implementation's error)."""
    if not path.is_file():
        raise FileNotFoundError(f"--impl: no such file {path}")
    name = f"_markone_impl_{path.stem}"
    module_spec = importlib.util.spec_from_file_location(name, path)
    if module_spec is None or module_spec.loader is None:
        raise ValueError(f"--impl: {path} cannot be imported as a Python module.")
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[name] = module
    loader = module_spec.loader.exec_module
    _call(f"importing {path}", loader, module)
    return module


def _import_module(target: str) -> Any:
    """The module ``target`` named by ``--impl``, imported from the current folder
    too; a module that is not there is the user's error, one that raises on import
    the implementation's."""
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        return importlib.import_module(target)
    except ModuleNotFoundError as exc:
        if exc.name and target.startswith(exc.name):
            raise ValueError(f"--impl: cannot import {target!r} ({exc}); run from the "
                             "folder that holds it or give path/to/file.py:function"
                             ) from exc
        raise ImplementationError(f"importing {target} raised {exc!r}",
                                  _user_traceback(exc)) from exc
    except Exception as exc:
        raise ImplementationError(f"importing {target} raised "
                                  f"{type(exc).__name__}: {exc}",
                                  _user_traceback(exc)) from exc
