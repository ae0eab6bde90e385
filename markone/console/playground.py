"""The console's playground: your own data, the perceptron core and the Mark I side by
side, and a live panel of exact answers.

The page ``/playground`` of the live console (``markone machine console``) holds a
labelled data set of two classes: points pasted or uploaded as a table (any number of
features; a plane for 2-D data, where a click adds a point), or a folder of figures
(text files of the retina's rows, ``#`` lit and ``.`` dark, the class being the
folder's name). :class:`Playground` keeps it, exactly (rationals), trains the
perceptron core (:func:`markone.train`) and the Mark I (:class:`~markone.hardware.MarkI`)
on it side by side, and saves and loads the whole session as one JSON file.

The live panel's exact answers come from an *analyst* (:class:`Analyst`): ``verify``,
a layer above, provides it (:func:`verify.panel.analyst`), and this module never
imports it. The command that starts the console names it by a ``"module:function"``
string (:data:`ANALYST`), as the command line names its commands; the server imports
it by that name once. Without it the playground works and its panel says why it is
unavailable.

The API (:meth:`Playground.routes`; the console's own guards apply: loopback, ``Host``,
``Origin``, token, bounded bodies):

==================================  =================================================
``GET  /api/playground``             the data, the panel and the last run
``POST /api/playground/data``        ``{"csv": text}`` or ``{"figures": [{"name":
                                     "A/1.txt", "text": "#..."}]}``: new data
``POST /api/playground/point``       ``{"x": [0.25, -0.5], "label": 1}`` adds a point
                                     (2-D data); ``{"remove": i}`` removes one
``POST /api/playground/clear``       no data
``POST /api/playground/cycle``       the perceptron's exact cycle (non-separable 2-D),
                                     searched outside the console's lock:
                                     ``{"generation": g}`` (the state's) asks for
                                     those data's; a change meanwhile answers
                                     ``{"cycle": null, "superseded": true}``
``POST /api/playground/train``       ``{"max_epochs": 50}``: the core and the Mark I
``POST /api/playground/session``     ``{"text": saved session}``: load it
``GET  /api/playground/saved``       the session file's content, to save
``GET  /api/playground/certificate`` the certificate file ``markone verify check``
                                     reads
``GET  /api/playground/replay``      ``{"html": page}``: a self-contained replay page
==================================  =================================================

>>> from markone.hardware import MarkIParams
>>> ground = Playground(MarkIParams(), seed=0, analyst=None)
>>> ground.load_csv("x,y,class\\n0,0,no\\n1,1,yes\\n")["data"]["classes"]
['no', 'yes']
>>> ground.panel()["available"], ground.add_point({"x": [2, "1/2"], "label": 1})["data"]["n"]
(False, 3)
"""

from __future__ import annotations

import hashlib
import importlib
import json
import re
import threading
import warnings
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any, Protocol

import numpy as np

from markone import engine
from markone._internal.exact import parse_number
from markone._internal.io import JSONRefused, read_strict_json
from markone._internal.typing import JSONDict
from markone._table import parse_text_table
from markone.errors import ConvergenceWarning
from markone.hardware import MarkI, MarkIParams
from markone.hardware.live import check_live_size
from markone.hardware.replay import _asset, _script_safe_json

__all__ = ["Playground", "Answer", "Later", "load_analyst", "bar_images", "render_playground_html",
           "ANALYST", "PAGE", "MAX_POINTS", "MAX_FEATURES", "MAX_EPOCHS",
           "SESSION_FORMAT", "SESSION_VERSION"]

#: The analyst ``markone machine console`` gives the playground: ``verify``'s.
ANALYST = "verify.panel:analyst"
#: The playground page's path on the console's server.
PAGE = "/playground"
#: Most points (rows, figures) a playground holds.
MAX_POINTS = 2000
#: Most features a point has (a figure has one per photocell, whatever this is).
MAX_FEATURES = 400
#: Most passes a training asks for.
MAX_EPOCHS = 200
#: Most updates of the core's run kept for the replay.
MAX_UPDATES_KEPT = 5000
#: The session file's format and version.
SESSION_FORMAT = "markone-playground-session"
SESSION_VERSION = 1
#: Longest file name of a figure, and class name, accepted.
MAX_NAME = 200
MAX_CLASS = 40
_LIT, _DARK = set("#1"), set(".0")


class Analyst(Protocol):
    """What the live panel asks (:class:`verify.panel.PanelAnalyst` answers)."""

    def panel(self, X: Any, y: Any) -> JSONDict: ...

    def cycle(self, X: Any, y: Any) -> JSONDict: ...

    def certificate(self, X: Any, y: Any) -> JSONDict: ...


class Answer(dict):
    """A route's own JSON answer (the console sends it instead of its state)."""


class Later:
    """A route's answer that needs long work: the console runs ``wait()`` outside its
    lock (a click meanwhile is answered at once), then ``finish(result)`` under it,
    which makes the :class:`Answer`.

    >>> later = Later(lambda: 2, lambda r: Answer(twice=2 * r))
    >>> later.finish(later.wait())
    {'twice': 4}
    """

    def __init__(self, wait: Callable[[], Any], finish: Callable[[Any], Answer]) -> None:
        self.wait, self.finish = wait, finish


class _CycleSearch:
    """One cycle search, on the data of one generation, run in a thread of its own
    (one search at a time: ``turn``); :meth:`supersede` lets its waiters go at once,
    and one not started yet never starts."""

    def __init__(self, generation: int, ask: Callable[[], JSONDict],
                 turn: threading.Lock) -> None:
        self.generation, self.ask, self.turn = generation, ask, turn
        self.result: JSONDict | None = None
        self.superseded = False
        self.done = threading.Event()
        threading.Thread(target=self._run, daemon=True,
                         name=f"markone-cycle-{generation}").start()

    def _run(self):
        with self.turn:
            if not self.superseded:
                self.result = self.ask()
        self.done.set()

    def supersede(self):
        self.superseded = True
        self.done.set()

    def wait(self) -> JSONDict | None:
        self.done.wait()
        return None if self.superseded else self.result


def load_analyst(spec: str | None) -> tuple[Analyst | None, str]:
    """The analyst named ``"module:function"`` (the function makes it), and ``""``;
    or None and why there is none.

    >>> load_analyst(None)
    (None, 'the console was started without an analyst of exact answers')
    >>> load_analyst("no_such_module_here:analyst")[1]
    "no_such_module_here cannot be imported (No module named 'no_such_module_here')"
    """
    if spec is None:
        return None, "the console was started without an analyst of exact answers"
    module, _, function = spec.partition(":")
    try:
        return getattr(importlib.import_module(module), function)(), ""
    except ImportError as exc:
        return None, f"{module} cannot be imported ({exc})"


def _number(v: Any, where: str) -> Fraction:
    """An exact number from JSON (int, float, or text like ``"-1/3"``)."""
    if isinstance(v, bool) or not isinstance(v, (int, float, str)):
        raise ValueError(f"{where} must be a number (or its text, like \"-1/3\"), got "
                         f"{v!r}.")
    if isinstance(v, str):
        try:
            return parse_number(v[:100], where=f"{where}: ")
        except (ValueError, ZeroDivisionError):
            raise ValueError(f"{where} must be a number (or its text, like \"-1/3\"), "
                             f"got {v[:100]!r}.") from None
    if isinstance(v, float) and not np.isfinite(v):
        raise ValueError(f"{where} must be a finite number, got {v!r}.")
    return Fraction(v)


def _two_classes(labels: Sequence[Any], what: str) -> tuple[list[str], list[int]]:
    """The two class names (sorted: the first is -1) and each label's class 0 or 1."""
    values = np.unique(np.asarray(labels))
    if len(values) > 2:
        shown = ", ".join(map(str, values[:5])) + (", ..." if len(values) > 5 else "")
        raise ValueError(f"{what} has {len(values)} classes ({shown}); the playground "
                         "takes two: keep the rows of two classes.")
    names = [str(v) for v in values]
    if any(not 0 < len(n) <= MAX_CLASS for n in names):
        raise ValueError(f"{what}: a class name must have 1 to {MAX_CLASS} characters.")
    index = {v: k for k, v in enumerate(values.tolist())}
    if len(names) == 1:   # one class so far: the other is named for the clicks to come
        names.append("other" if names[0] != "other" else "another")
    return names, [index[v] for v in np.asarray(labels).tolist()]


def _figure_class(name: str) -> str:
    """The class of a figure file: its folder's name (``A/1.txt``), else the file name
    up to its first ``_`` (``A_1.txt``)."""
    parts = name.replace("\\", "/").split("/")
    label = parts[-2] if len(parts) > 1 else parts[-1].split("_")[0]
    if not 0 < len(label) <= MAX_CLASS:
        raise ValueError(f"figure {name!r}: its class is the name of its folder "
                         f"(A/1.txt) or the start of its name (A_1.txt), 1 to "
                         f"{MAX_CLASS} characters.")
    return label


def _parse_figure(name: str, text: str, shape: tuple[int, int]) -> list[int]:
    """A figure's photocells (row by row, 1 lit, 0 dark) from its text: ``shape[0]``
    lines of ``shape[1]`` characters, ``#`` or ``1`` lit, ``.`` or ``0`` dark."""
    rows = [line.strip() for line in text.splitlines() if line.strip()]
    if len(rows) != shape[0] or any(len(r) != shape[1] for r in rows):
        raise ValueError(f"figure {name!r} must be {shape[0]} lines of {shape[1]} "
                         f"characters (# lit, . dark), got {len(rows)} lines.")
    bad = set("".join(rows)) - _LIT - _DARK
    if bad:
        raise ValueError(f"figure {name!r} holds {sorted(bad)[0]!r}; write # (or 1) for "
                         "a lit photocell and . (or 0) for a dark one.")
    return [1 if c in _LIT else 0 for r in rows for c in r]


def _retina_images(X: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """2-D points as figures: a 2 x 2 spot at the point's place in the data's box."""
    rows, cols = shape
    low, high = X.min(axis=0), X.max(axis=0)
    span = np.where(high > low, high - low, 1.0)
    col = np.floor((X[:, 0] - low[0]) / span[0] * (cols - 2) + 1e-9).astype(int)
    row = np.floor((high[1] - X[:, 1]) / span[1] * (rows - 2) + 1e-9).astype(int)
    images = np.zeros((len(X), rows, cols))
    for k, (i, j) in enumerate(zip(row, col)):
        images[k, i:i + 2, j:j + 2] = 1.0
    return images


def bar_images(X: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """Points of any number of features as figures on the retina: one bar (a
    thermometer code) per feature.

    The retina's ``cols`` columns are shared out among the ``d`` features, ``cols //
    d`` adjacent columns each from the left (the columns left over stay dark).
    Feature ``j``'s value ``x``, placed in the data's range ``[low, high]`` of that
    feature, lights the bottom ``1 + floor((x - low) / (high - low) * (rows - 1))``
    photocells of its columns: one at the lowest value, the whole column at the
    highest (a feature of one value lights one). So at most ``cols`` features fit (20
    on the 20 x 20 retina), each read to ``rows`` levels; more are refused.

    >>> bar_images(np.array([[0.0, 3.0], [3.0, 0.0], [1.0, 2.0]]), (4, 4))[2].astype(int)
    array([[0, 0, 0, 0],
           [0, 0, 1, 1],
           [1, 1, 1, 1],
           [1, 1, 1, 1]])
    """
    rows, cols = shape
    X = np.asarray(X, dtype=float)
    if X.shape[1] > cols:
        raise ValueError(f"the Mark I's retina has {cols} columns, one bar of at least "
                         f"one column a feature: it takes at most {cols} features, and "
                         f"these points have {X.shape[1]}; keep at most {cols} features "
                         "for the Mark I (the core takes them all).")
    low, high = X.min(axis=0), X.max(axis=0)
    span = np.where(high > low, high - low, 1.0)
    heights = 1 + np.floor((X - low) / span * (rows - 1) + 1e-9).astype(int)
    width = cols // X.shape[1]
    images = np.zeros((len(X), rows, cols))
    for j in range(X.shape[1]):
        lit = np.arange(rows)[None, :] >= rows - heights[:, j:j + 1]
        images[:, :, j * width:(j + 1) * width] = lit[:, :, None]
    return images


def _canonical(obj: Any) -> Any:
    """``obj`` with every whole float an int: a browser writes 1.0 as 1."""
    if isinstance(obj, float) and obj.is_integer():
        return int(obj)
    if isinstance(obj, dict):
        return {k: _canonical(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_canonical(v) for v in obj]
    return obj


def _digest(doc: Mapping[str, Any]) -> str:
    """The SHA-256 of a session's content (its canonical JSON, ``sha256`` left out,
    whole floats written as ints, as a browser that saves it writes them)."""
    body = _canonical({k: v for k, v in doc.items() if k != "sha256"})
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _epochs(body: Mapping[str, Any]) -> int:
    n = body.get("max_epochs", 50)
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_EPOCHS:
        raise ValueError(f"max_epochs must be a whole number of passes from 1 to "
                         f"{MAX_EPOCHS}, got {n!r}.")
    return n


class Playground:
    """Two classes of points (or figures), the core and the Mark I learning them, and
    the live panel's exact answers (see the module docstring).

    Parameters
    ----------
    params : MarkIParams
        The Mark I's parameters (the console's ``--set``).
    seed : int
        The Mark I's wiring seed.
    analyst : str or None
        ``"module:function"`` of the analyst (:data:`ANALYST`); None: no panel.
    """

    def __init__(self, params: MarkIParams, seed: int = 0,
                 analyst: str | None = ANALYST) -> None:
        self.params, self.seed = params, int(seed)
        self.analyst_spec = analyst
        self.analyst, self.unavailable = load_analyst(analyst)
        self.shape = tuple(params.retina_shape)
        self._turn = threading.Lock()   # one cycle search at a time
        self.clear()

    def __repr__(self) -> str:
        return (f"Playground(kind={self.kind!r}, n={len(self.X)}, classes="
                f"{self.classes!r})")

    # ------------------------------------------------------------------ data
    def clear(self, body: Mapping[str, Any] | None = None) -> Answer:
        """No data: the plane, two classes ``-1`` and ``+1``."""
        self._set("points", ["-1", "+1"], [], [])
        return self.state()

    def _set(self, kind, classes, X, labels):
        self.kind, self.classes = kind, list(classes)
        self.X: list[tuple[Fraction, ...]] = [tuple(r) for r in X]
        self.labels: list[int] = list(labels)
        self.d = len(self.X[0]) if self.X else (2 if kind == "points" else 0)
        self.run: JSONDict | None = None
        self._changed()

    def _changed(self):
        self.run = None
        self._panel: JSONDict | None = None
        self._cycle: JSONDict | None = None
        self.generation = getattr(self, "generation", -1) + 1
        search = getattr(self, "_search", None)
        if search is not None:   # its cycle is of other data: never shown
            search.supersede()
        self._search: _CycleSearch | None = None

    def load_csv(self, text: str) -> Answer:
        """New data from the text of a table (the last column the class)."""
        if not isinstance(text, str):
            raise ValueError("csv must be the table's text.")
        X, y = parse_text_table(text, "the table", exact=True)
        if len(X) > MAX_POINTS or X.shape[1] > MAX_FEATURES:
            raise ValueError(f"the table has {len(X)} rows of {X.shape[1]} features; the "
                             f"playground takes at most {MAX_POINTS} rows of "
                             f"{MAX_FEATURES}.")
        classes, labels = _two_classes(y, "the table")
        rows = [[parse_number(str(v)) for v in row] for row in X.tolist()]
        self._set("points", classes, rows, labels)
        return self.state()

    def load_figures(self, figures: Any) -> Answer:
        """New data from figure files: ``[{"name": "A/1.txt", "text": "..."}]``."""
        if not isinstance(figures, list) or not 0 < len(figures) <= MAX_POINTS:
            raise ValueError(f"figures must be a list of 1 to {MAX_POINTS} files, each "
                             "{\"name\": ..., \"text\": ...}.")
        names, rows = [], []
        for f in figures:
            if not isinstance(f, dict) or not isinstance(f.get("name"), str) or \
                    not isinstance(f.get("text"), str) or len(f["name"]) > MAX_NAME:
                raise ValueError("each figure must be {\"name\": its file name (at most "
                                 f"{MAX_NAME} characters), \"text\": its content}}.")
            names.append(_figure_class(f["name"]))
            rows.append(_parse_figure(f["name"], f["text"], self.shape))
        classes, labels = _two_classes(names, "the figures")
        self._set("figures", classes, [[Fraction(v) for v in r] for r in rows], labels)
        return self.state()

    def load_data(self, body: Mapping[str, Any]) -> Answer:
        """``POST /api/playground/data``: a table or figures."""
        if ("csv" in body) == ("figures" in body):
            raise ValueError('send {"csv": table text} or {"figures": [files]}.')
        return self.load_csv(body["csv"]) if "csv" in body else \
            self.load_figures(body["figures"])

    def add_point(self, body: Mapping[str, Any]) -> Answer:
        """``POST /api/playground/point``: add ``{"x": [a, b], "label": 0 or 1}`` to
        2-D points, or ``{"remove": i}``."""
        if "remove" in body:
            return self._remove(body["remove"])
        if self.kind != "points" or self.d != 2:
            raise ValueError("points are added by a click on the plane, which 2-D data "
                             "have; load a table of two features.")
        x, label = body.get("x"), body.get("label")
        if not isinstance(x, list) or len(x) != 2:
            raise ValueError("x must be the point's two coordinates, [x, y].")
        if label not in (0, 1) or isinstance(label, bool):
            raise ValueError("label must be the class: 0 (the first) or 1 (the second).")
        if len(self.X) >= MAX_POINTS:
            raise ValueError(f"the playground holds at most {MAX_POINTS} points.")
        self.X.append(tuple(_number(v, f"x[{k}]") for k, v in enumerate(x)))
        self.labels.append(label)
        self._changed()
        return self.state()

    def _remove(self, i):
        if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < len(self.X):
            raise ValueError(f"remove must be a point's index, 0 to {len(self.X) - 1}, "
                             f"got {i!r}.")
        del self.X[i], self.labels[i]
        self._changed()
        return self.state()

    # ------------------------------------------------------------------ answers
    def signs(self) -> list[int]:
        """The labels as -1/+1 (the first class is -1)."""
        return [2 * k - 1 for k in self.labels]

    def floats(self) -> np.ndarray:
        """The points as float64 rows."""
        return np.array([[float(v) for v in r] for r in self.X], dtype=float).reshape(
            len(self.X), self.d)

    def panel(self) -> JSONDict:
        """The live panel: the analyst's answer on the data (computed once per
        change), or why there is none."""
        if self._panel is None:
            self._panel = self._ask("panel")
        return self._panel

    def _ask(self, question, X=None, y=None):
        """The analyst's answer to ``question`` on the data (or on ``X``, ``y``)."""
        if self.analyst is None:
            return {"available": False, "why": self.unavailable}
        X, y = (self.X, self.signs()) if X is None else (X, y)
        if not X:
            return {"available": True, "empty": True}
        try:
            answer = getattr(self.analyst, question)(X, y)
        except ValueError as exc:   # data the analyst refuses: said on the panel
            return {"available": True, "error": str(exc)}
        return dict(answer, available=True)

    def cycle(self, body: Mapping[str, Any] | None = None) -> Answer:
        """The exact cycle on non-separable 2-D data, waited for (for a caller of
        this class; the console's route is :meth:`cycle_later`)."""
        later = self.cycle_later(body)
        return later if isinstance(later, Answer) else later.finish(later.wait())

    def cycle_later(self, body: Mapping[str, Any] | None = None) -> Answer | Later:
        """``POST /api/playground/cycle``: the exact cycle on non-separable 2-D data.

        The search (limited by a count of updates, so the same data give the same
        cycle) runs in a thread of its own, outside the console's lock: a click
        meanwhile is answered at once, and supersedes it (a search for data that
        changed is answered ``{"cycle": None, "superseded": True}``, its cycle never
        shown). ``body["generation"]``, when given, is the generation of the data
        the page shows (its state's ``generation``)."""
        asked = (body or {}).get("generation", self.generation)
        if isinstance(asked, bool) or not isinstance(asked, int) or asked < 0:
            raise ValueError(f"generation must be the whole number the playground's "
                             f"state gave (0 or more), got {asked!r}.")
        if asked != self.generation:
            return Answer(cycle=None, superseded=True, generation=self.generation)
        if self.d != 2 or self.panel().get("separable") is not False:
            raise ValueError("the cycle is looked for on 2-D data that no line "
                             "separates; these data are not such.")
        if self._cycle is not None:
            return Answer(cycle=self._cycle, generation=self.generation)
        if self._search is None:
            X, y = list(self.X), self.signs()
            self._search = _CycleSearch(self.generation, lambda: self._ask("cycle", X, y),
                                        self._turn)
        return Later(self._search.wait, lambda found: self._found(asked, found))

    def _found(self, generation, cycle):
        """Under the console's lock: the search's answer, kept if its data are still
        the playground's."""
        if cycle is None or generation != self.generation:
            return Answer(cycle=None, superseded=True, generation=self.generation)
        self._cycle = cycle
        return Answer(cycle=cycle, generation=generation)

    def certificate(self, body: Mapping[str, Any] | None = None) -> Answer:
        """``GET /api/playground/certificate``: the certificate file's content."""
        if not self.X:
            raise ValueError("no data: add points before exporting a certificate.")
        answer = self._ask("certificate")
        if not answer.get("available"):
            raise ValueError(f"no certificate: {answer['why']}.")
        answer.pop("available")
        return Answer(answer)

    def state(self) -> Answer:
        """What the page shows: the data, the panel, the last run."""
        X = self.floats()
        return Answer(data={"kind": self.kind, "classes": self.classes, "n": len(X),
                            "d": self.d, "X": X.tolist(), "labels": self.labels,
                            "retina": list(self.shape)},
                      panel=self.panel(), run=self.run, machine=self.machine_info(),
                      generation=self.generation)

    def machine_info(self) -> JSONDict:
        """The Mark I's seed and what it sees of the data."""
        return {"seed": self.seed, "sees": self._machine_sees()}

    def _machine_sees(self) -> str:
        """How the Mark I sees the data: ``figures``, 2-D points as ``spots``, others
        as ``bars`` (:func:`bar_images`), or ``""``: too many features for bars."""
        if self.kind == "figures":
            return "figures"
        if self.d == 2:
            return "spots"
        return "bars" if self.d <= self.shape[1] else ""

    # ------------------------------------------------------------------ training
    def train(self, body: Mapping[str, Any] | None = None) -> Answer:
        """``POST /api/playground/train``: the core and the Mark I, side by side, for at
        most ``max_epochs`` passes each."""
        max_epochs = _epochs(body or {})
        if len(set(self.labels)) < 2:
            raise ValueError("training needs points of both classes.")
        self.run = {"max_epochs": max_epochs, "core": self._core(max_epochs),
                    "machine": self._machine(max_epochs)}
        return self.state()

    def _core(self, max_epochs):
        with warnings.catch_warnings():   # not converging is shown on the page
            warnings.simplefilter("ignore", ConvergenceWarning)
            result = engine.train(self.floats(), np.array(self.signs()),
                                  max_epochs=max_epochs, record=True)
        kept = np.asarray(result.weights_after)[:MAX_UPDATES_KEPT]
        return {"mistakes_per_epoch": [int(m) for m in result.mistakes_per_epoch],
                "converged": bool(result.converged), "epochs": int(result.epochs),
                "w": [float(v) for v in result.w],
                "updates": [int(i) for i in result.mistake_indices[:MAX_UPDATES_KEPT]],
                "weights_after": kept.tolist(),
                "right": int(np.sum(result.predict(self.floats())
                                    == np.array(self.signs())))}

    def _machine(self, max_epochs):
        sees = self._machine_sees()
        if not sees:
            return {"unavailable": f"the Mark I sees {self.shape[0]} x {self.shape[1]} "
                                   f"figures, a point one bar a feature on its "
                                   f"{self.shape[1]} columns: at most {self.shape[1]} "
                                   f"features, and these points have {self.d} (keep at "
                                   f"most {self.shape[1]} features to show it them)"}
        X = self.floats()
        images = (X.reshape(-1, *self.shape) if sees == "figures"
                  else (_retina_images if sees == "spots" else bar_images)(X, self.shape))
        names = np.array([self.classes[k] for k in self.labels])
        machine = MarkI(self.params, seed=self.seed)
        run = machine.train(images, names, max_epochs=max_epochs)
        predicted = machine.predict(images)
        return {"errors_per_epoch": [int(e) for e in run.errors_per_epoch],
                "converged": bool(run.converged), "epochs": int(run.epochs),
                "sim_time_s": float(run.sim_time_s), "sees": sees,
                "predicted": [self.classes.index(str(p)) if str(p) in self.classes
                              else -1 for p in predicted],
                "right": int(np.sum(predicted == names))}

    # ------------------------------------------------------------------ sessions
    def session(self, body: Mapping[str, Any] | None = None) -> Answer:
        """``GET /api/playground/session``: the session file's content (data, machine,
        run), with its SHA-256."""
        doc: JSONDict = {
            "format": SESSION_FORMAT, "version": SESSION_VERSION,
            "data": {"kind": self.kind, "classes": self.classes,
                     "X": [[str(v) for v in r] for r in self.X], "labels": self.labels},
            "machine": {"params": self.params.to_dict(), "seed": self.seed},
            "run": self.run}
        doc["sha256"] = _digest(doc)
        return Answer(doc)

    def load_session(self, body: Mapping[str, Any]) -> Answer:
        """``POST /api/playground/session``: ``{"text": a saved session}`` replaces
        the data, the machine and the run (trained again, as saved)."""
        text = body.get("text")
        if not isinstance(text, str):
            raise ValueError('send {"text": the session file\'s text}.')
        doc = _read_session(text)
        data, machine = doc["data"], doc["machine"]
        try:
            X = [[_number(v, "data.X") for v in row] for row in data["X"]]
            kind, classes, labels = data["kind"], data["classes"], data["labels"]
            seed, params = machine["seed"], machine["params"]
        except (KeyError, TypeError) as exc:
            raise ValueError(f"this session file lacks or garbles {exc}; save it again "
                             "from the playground.") from None
        _check_session_data(kind, classes, X, labels)
        params = _session_machine(params, seed, kind, X)
        before = (self.kind, self.classes, self.X, self.labels, self.params, self.seed)
        self._use_machine(params, seed)
        self._set(kind, classes, X, labels)
        try:
            if doc["run"] is not None:
                self._check_run(doc["run"])
        except ValueError:   # the playground stays as it was
            self._use_machine(*before[-2:])
            self._set(*before[:-2])
            raise
        return self.state()

    def _use_machine(self, params, seed):
        """Train the Mark I with ``params`` (a session's, applied) and ``seed``."""
        self.params, self.seed = params, seed
        self.shape = tuple(params.retina_shape)

    def _check_run(self, saved):
        """Train again as the session says and refuse a run that differs."""
        max_epochs = saved.get("max_epochs") if isinstance(saved, dict) else None
        self.train({"max_epochs": max_epochs})
        if json.loads(json.dumps(self.run)) != saved:
            raise ValueError("this session's run is not what the core and the Mark I do "
                             "on its data (trained again here): the file was edited; "
                             "load the file as saved.")

    # ------------------------------------------------------------------ pages
    def replay(self, body: Mapping[str, Any] | None = None) -> Answer:
        """``GET /api/playground/replay``: ``{"html": one self-contained page}`` that
        replays this session without a server."""
        return Answer(html=render_playground_html({"replay": True,
                                                    "state": dict(self.state())}))

    def page(self, token: str) -> str:
        """The playground page served live, with the console's ``token``."""
        return render_playground_html({"token": token, "state": dict(self.state())})

    def routes(self) -> dict[str, tuple[str, Callable[[dict], Any]]]:
        """The API's paths -> (method, handler of the request's body)."""
        return {"/api/playground": ("GET", lambda body: self.state()),
                "/api/playground/data": ("POST", self.load_data),
                "/api/playground/point": ("POST", self.add_point),
                "/api/playground/clear": ("POST", self.clear),
                "/api/playground/cycle": ("POST", self.cycle_later),
                "/api/playground/train": ("POST", self.train),
                "/api/playground/session": ("POST", self.load_session),
                "/api/playground/saved": ("GET", self.session),
                "/api/playground/certificate": ("GET", self.certificate),
                "/api/playground/replay": ("GET", self.replay)}


def _read_session(text: str) -> JSONDict:
    """A session document read strictly, its format, version and digest checked."""
    try:
        doc = read_strict_json(text, max_depth=8)
    except (JSONRefused, ValueError):
        raise ValueError("this is not a playground session file (not strict JSON); "
                         "load a file the playground's Save wrote.") from None
    if not isinstance(doc, dict) or doc.get("format") != SESSION_FORMAT:
        found = doc.get("format") if isinstance(doc, dict) else type(doc).__name__
        raise ValueError(f"this file is not a playground session: its format is "
                         f"{found!r}, expected {SESSION_FORMAT!r}.")
    if doc.get("version") != SESSION_VERSION:
        raise ValueError(f"this session has version {doc.get('version')!r}; this "
                         f"markone reads version {SESSION_VERSION}.")
    if doc.get("sha256") != _digest(doc):
        raise ValueError("this session file was changed after it was saved (its sha256 "
                         "does not match its content); load the file as saved.")
    lost = [k for k in ("data", "machine", "run") if k not in doc]
    if lost:
        raise ValueError(f"this session file lacks {', '.join(lost)}; save it again.")
    return doc


def _session_machine(params, seed, kind, X):
    """A session's Mark I parameters (its settings applied, however they differ from
    the console's), checked as ``--set`` checks them, no larger than a request may
    build (:data:`~markone.hardware.live.REWIRE_LIMITS`), and its seed."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**32:
        raise ValueError(f"this session's machine seed must be a whole number from 0 "
                         f"to 2**32 - 1, got {seed!r}.")
    if not isinstance(params, dict):
        raise ValueError("this session's machine parameters must be an object of "
                         "MarkIParams fields; save it again from the playground.")
    try:
        made = MarkIParams.from_dict(params)
        check_live_size(made)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"this session's Mark I parameters are refused: {exc}") from None
    rows, cols = made.retina_shape
    if kind == "figures" and X and len(X[0]) != rows * cols:
        raise ValueError(f"this session's figures have {len(X[0])} photocells but its "
                         f"Mark I's retina {rows} x {cols}; save it again.")
    return made


def _check_session_data(kind, classes, X, labels):
    ok = (kind in ("points", "figures") and isinstance(classes, list)
          and len(classes) == 2 and all(isinstance(c, str) for c in classes)
          and isinstance(labels, list) and len(labels) == len(X) <= MAX_POINTS
          and all(lab in (0, 1) and not isinstance(lab, bool) for lab in labels)
          and len({len(r) for r in X}) <= 1)
    if not ok:
        raise ValueError("this session's data are inconsistent (kind, two classes, one "
                         "label 0 or 1 per row, rows of one length); save it again.")


_PLACE = re.compile("__MARKONE_PLAYGROUND__|<link rel=\"stylesheet\" href=\"playground"
                    "\\.css\">|<script src=\"playground\\.js\"></script>")


def render_playground_html(options: Mapping[str, Any]) -> str:
    """The playground page with ``options`` embedded (``state``: what it shows;
    ``token`` when served live; ``replay``: true for a page that talks to no server),
    its styles and script inlined.

    >>> page = render_playground_html({"state": {}})
    >>> page.startswith("<!DOCTYPE html>"), "<script src=" in page, "<link" in page
    (True, False, False)
    """
    parts = {"__MARKONE_PLAYGROUND__": _script_safe_json(dict(options)),
             '<link rel="stylesheet" href="playground.css">':
                 f"<style>\n{_asset('playground.css')}</style>",
             '<script src="playground.js"></script>':
                 f"<script>\n{_asset('playground.js')}</script>"}
    return _PLACE.sub(lambda m: parts[m.group(0)], _asset("playground.html"))
