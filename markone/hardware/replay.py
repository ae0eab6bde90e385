"""The Mark I console: replay a recorded training run in the browser.

:func:`write_replay_html` turns a recorded Mark I run (a ``MachineRun``, its JSON file,
or the JSON as a dict) into one self-contained HTML file: the page's CSS, script and the
run itself are inlined, so it opens from a USB stick or an e-mail attachment with no
network, no server and no build step. The page shows what the machine's operators
saw: the figure on the 20 x 20 retina, the A-units that fire, each R-unit's answer, the
potentiometers turning while the motors run (at the machine's own pace or faster),
and the running count of mistakes against machine time.

The page itself is plain HTML, CSS and JavaScript kept next to this module
(``console/console.html``, ``console.css``, ``console.js``); opening the bare
``console.html`` gives an empty console that can open run files.

The run format (``"markone-machine-run"``, versions 1 to 3) is the one
``MachineRun.save`` writes; :func:`check_run` checks a run against it in Python, and the page repeats the
checks so that a bad file shows a clear message instead of a blank screen.

Examples
--------
A one-presentation run on a toy machine (2 x 2 retina, 4 A-units, 1 R-unit):

>>> import tempfile, pathlib
>>> run = {
...     "format": "markone-machine-run", "version": 1, "markone_version": "0.1.0",
...     "retina_shape": [2, 2], "n_a_units": 4, "n_r_units": 1, "classes": ["X", "O"],
...     "codes": [[-1], [1]], "figures": [[1, 0, 0, 1]], "weights_initial": [[0, 0, 0, 0]],
...     "sim_time_s": 0.5, "presentations": [{
...         "t_s": 0.0, "end_t_s": 0.5, "figure": 0, "label": 1, "active_a": [0, 3],
...         "scores": [0.0], "response": [1], "target": [1], "reinforced": [True],
...         "changes": [[0, 0, 1], [0, 3, 1]], "saturated": 0, "motor_s": 0.2,
...         "figure_correct": True}]}
>>> out = write_replay_html(run, pathlib.Path(tempfile.mkdtemp()) / "replay.html")
>>> html = out.read_text()
>>> "markone-machine-run" in html and "http://" not in html
True
>>> check_run(dict(run, version=9))
Traceback (most recent call last):
...
ValueError: run uses format version 9, but this markone reads version 4 or older; replay it with the newer markone that wrote it.
"""

from __future__ import annotations

import html
import json
import os
import re
import tempfile
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any

from markone._internal.io import atomic_write, read_json, to_jsonable
from markone._internal.typing import PathLike
from markone._internal.validation import check_positive
from markone._version import __version__
from markone.hardware._run_format import FORMAT as RUN_FORMAT
from markone.hardware._run_format import VERSION as RUN_VERSION

__all__ = ["write_replay_html", "render_replay_html", "render_live_html", "console_html",
           "check_run",
           "RUN_FORMAT", "RUN_VERSION"]


_TOP_FIELDS = ("retina_shape", "n_a_units", "n_r_units", "classes", "codes", "figures",
               "weights_initial", "sim_time_s", "presentations")
_PRESENTATION_FIELDS = ("t_s", "end_t_s", "figure", "label", "active_a", "scores",
                        "response", "target", "reinforced", "changes", "saturated",
                        "motor_s", "figure_correct")
_HOW_TO = ("record one with MarkI(...).train(..., log=True) and save it with "
           "run.save(path)")


def check_run(run: Mapping[str, Any]) -> Mapping[str, Any]:
    """Check a machine run (as a JSON dict) against the format the console reads.

    Parameters
    ----------
    run : dict
        The parsed JSON of a ``MachineRun`` (format ``"markone-machine-run"``).

    Returns
    -------
    dict
        ``run`` itself, when it can be replayed.

    Raises
    ------
    ValueError
        Naming the first problem: another ``"format"``, a newer ``"version"``, missing
        fields, arrays of the wrong size, or indices out of range.

    Examples
    --------
    >>> check_run({"format": "markone-certificate", "version": 1})
    Traceback (most recent call last):
    ...
    ValueError: run has format 'markone-certificate', expected 'markone-machine-run'; record one with MarkI(...).train(..., log=True) and save it with run.save(path).
    """
    if not isinstance(run, Mapping):
        raise TypeError(f"run must be a JSON object (dict), got {type(run).__name__}.")
    if run.get("format") != RUN_FORMAT:
        raise ValueError(f"run has format {run.get('format')!r}, expected "
                         f"{RUN_FORMAT!r}; {_HOW_TO}.")
    version = run.get("version")
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise ValueError(f"run has no valid format version (got {version!r}); "
                         f"expected an integer from 1 to {RUN_VERSION}.")
    if version > RUN_VERSION:
        raise ValueError(f"run uses format version {version}, but this markone reads "
                         f"version {RUN_VERSION} or older; replay it with the newer "
                         "markone that wrote it.")
    missing = [k for k in _TOP_FIELDS if k not in run]
    if missing:
        raise ValueError(f"run is missing the field(s) {', '.join(missing)}; the file is "
                         f"truncated or was not written by MachineRun.save.")
    try:
        _check_contents(run)
    except (TypeError, KeyError, IndexError) as exc:
        raise ValueError(f"run is malformed: a field has the wrong type ({exc}).") from exc
    return run


def _check_contents(run):
    n_a, n_r = run["n_a_units"], run["n_r_units"]
    for name, value in (("n_a_units", n_a), ("n_r_units", n_r)):
        _require(isinstance(value, int) and not isinstance(value, bool) and value > 0,
                 f"{name} must be a positive integer, got {value!r}")
    rows, cols = _pair(run["retina_shape"])
    _require(_is_matrix(run["weights_initial"], n_r, n_a),
             f"weights_initial must be {n_r} rows of {n_a} numbers")
    if run.get("weight_mask") is not None:
        _require(_is_matrix(run["weight_mask"], n_r, n_a),
                 f"weight_mask must be null or {n_r} rows of {n_a} 0/1 values")
    _require(len(run["codes"]) == len(run["classes"]) > 0
             and all(len(c) == n_r for c in run["codes"]),
             f"codes must hold one code of {n_r} values for each of the "
             f"{len(run['classes'])} classes")
    _require(all(len(f) == rows * cols for f in run["figures"]),
             f"every figure must have {rows * cols} retina cells ({rows} x {cols})")
    if not run["presentations"]:   # a whole run, saved without its log: not malformed
        raise ValueError("this run has no presentations to replay: it was recorded "
                         "without its log; record it with "
                         "MarkI(...).train(..., log=True).")
    for i, p in enumerate(run["presentations"]):
        _check_presentation(p, i, run, n_a, n_r)
    n = len(run["presentations"])
    _require(all(isinstance(c, Mapping) and isinstance(c["name"], str) and "new" in c
                 and isinstance(c["presentation"], int) and 0 <= c["presentation"] <= n
                 for c in run.get("knob_changes", ())),
             "knob_changes must list {presentation, at_s, name, old, new} changes, each "
             f"before a presentation of the run (0..{n})")
    _check_earlier(run.get("earlier", []))


def _check_earlier(earlier):
    """A run's ``earlier`` runs (format 4): each a whole run of one machine, ended by
    a rewired knob change."""
    _require(isinstance(earlier, list), "earlier must be a list of runs")
    for k, part in enumerate(earlier):
        try:
            check_run(part)
        except ValueError as exc:
            raise ValueError(f"earlier[{k}]: {exc}") from None
        knobs = part.get("knob_changes") or [{}]
        _require("earlier" not in part and knobs[-1].get("rewired") is True,
                 f"earlier[{k}] must be the run of one machine that a rewired knob "
                 "change ended, with no earlier runs of its own")


def _check_presentation(p, i, run, n_a, n_r):
    at = f"presentations[{i}]"   # the run file's JSON index, from 0
    lost = [k for k in _PRESENTATION_FIELDS if k not in p]
    _require(not lost, f"{at} is missing the field(s) {', '.join(lost)}")
    _require(0 <= p["figure"] < len(run["figures"]),
             f"{at}: \"figure\" is {p['figure']}, but the run has "
             f"{len(run['figures'])} figures")
    _require(0 <= p["label"] < len(run["classes"]),
             f"{at}: \"label\" is {p['label']}, but the run has {len(run['classes'])} "
             "classes")
    _require(p["t_s"] <= p["end_t_s"] and 0 <= p["motor_s"] <= p["end_t_s"] - p["t_s"] + 1e-9,
             f"{at} has inconsistent times (t_s={p['t_s']}, end_t_s={p['end_t_s']}, "
             f"motor_s={p['motor_s']})")
    _require(all(0 <= a < n_a for a in p["active_a"]),
             f"{at} lists an A-unit outside 0..{n_a - 1} in active_a")
    for key in ("scores", "response", "target", "reinforced"):
        _require(len(p[key]) == n_r, f"{at}: {key} must have {n_r} entries")
    _require(all(len(c) == 3 and 0 <= c[0] < n_r and 0 <= c[1] < n_a for c in p["changes"]),
             f"{at}: changes must be [r, a, new_value] with r < {n_r} and a < {n_a}")


def _require(ok, message):
    if not ok:
        raise ValueError(f"run is malformed: {message}.")


def _pair(shape):
    _require(isinstance(shape, (list, tuple)) and len(shape) == 2
             and all(isinstance(v, int) and v > 0 for v in shape),
             f"retina_shape must be [rows, columns], got {shape!r}")
    return shape


def _is_matrix(m, n_rows, n_cols):
    return len(m) == n_rows and all(len(row) == n_cols for row in m)


def _as_run_dict(run_or_path):
    """The run as a JSON-ready dict, from a path, a dict or a ``MachineRun``."""
    if isinstance(run_or_path, (str, os.PathLike)):
        path = Path(run_or_path)
        if not path.exists():
            raise FileNotFoundError(f"no such run file: {path}; {_HOW_TO}.")
        try:
            return read_json(path)
        except ValueError as exc:
            raise ValueError(f"{exc}; {_HOW_TO}.") from exc
    if isinstance(run_or_path, Mapping):
        return to_jsonable(dict(run_or_path))
    if callable(getattr(run_or_path, "to_dict", None)):
        return to_jsonable(run_or_path.to_dict())
    if callable(getattr(run_or_path, "save", None)):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "run.json"
            run_or_path.save(path)
            return read_json(path)
    raise TypeError(f"run_or_path must be a MachineRun, a dict or the path of a run "
                    f"JSON file, got {type(run_or_path).__name__}.")


def _asset(name):
    return resources.files("markone.hardware").joinpath("console", name).read_text("utf-8")


def _script_safe_json(obj):
    """JSON for a ``<script type="application/json">`` block: no ``<`` survives."""
    text = json.dumps(obj, separators=(",", ":"), sort_keys=True, allow_nan=False, ensure_ascii=False)
    return text.replace("<", "\\u003c")


def render_replay_html(run_or_path: Any, *, speed: float = 1.0) -> str:
    """Return the replay page of a run as one HTML string (see :func:`write_replay_html`).

    Examples
    --------
    >>> render_replay_html({"format": "markone-machine-run", "version": 9})
    Traceback (most recent call last):
    ...
    ValueError: run uses format version 9, but this markone reads version 4 or older; replay it with the newer markone that wrote it.
    """
    speed = check_positive(speed, "speed")
    run = check_run(_as_run_dict(run_or_path))
    return _page(run, {"speed": speed})


def render_live_html(state: Mapping[str, Any], live: Mapping[str, Any]) -> str:
    """The console page in live mode, as ``markone machine console`` serves it.

    Parameters
    ----------
    state : dict
        The session as :meth:`markone.hardware.live.LiveSession.to_dict` gives it
        (JSON-ready); its ``"run"`` may have no presentation yet.
    live : dict
        What the page needs to ask the server: ``"token"``, ``"out"`` (where a save
        goes), ``"catalogue"`` (figure name -> flat 0/1 image) and ``"controls"``
        (:func:`~markone.hardware.live.console_controls`; none when left out).

    Examples
    --------
    >>> from markone.hardware import MarkI
    >>> from markone.hardware.live import LiveSession
    >>> state = LiveSession(MarkI(seed=0)).to_dict()
    >>> page = render_live_html(state, {"token": "t", "out": "run.json", "catalogue": {}})
    >>> '"live":{' in page and "http://" not in page and "https://" not in page
    True
    """
    return _page(to_jsonable(state["run"]), {"speed": 1.0, "live": dict(
        live, pending=bool(state.get("pending", False)), view=state.get("view"),
        params_now=state.get("params_now"))})


def _page(run, options):
    """The console page with ``run`` and ``options`` embedded, CSS and scripts
    inlined; the live panel's script only in live mode (a replay never talks to a
    server)."""
    names = ("console.css", "console.js") + (("live.js",) if "live" in options else ())
    assets = {name: _asset(name) for name in names}
    for name, text in assets.items():
        closing = "</style" if name.endswith(".css") else "</script"
        if closing in text.lower():
            raise RuntimeError(f"{name} contains {closing!r} and cannot be inlined.")
    parts = {
        '<link rel="stylesheet" href="console.css">':
            f"<style>\n{assets['console.css']}</style>",
        '<script src="console.js"></script>': f"<script>\n{assets['console.js']}</script>",
        '<script src="live.js"></script>':
            f"<script>\n{assets['live.js']}</script>" if "live.js" in assets else "",
        "__MARKONE_RUN__": _script_safe_json(run),
        "__MARKONE_OPTIONS__": _script_safe_json(options),
        "__MARKONE_VERSION__": __version__,
    }
    template = _asset("console.html")
    for key in parts:
        if template.count(key) != 1:
            raise RuntimeError(f"console.html must contain {key!r} exactly once.")
    # One pass, so that text inside the run can never be taken for a placeholder.
    pattern = re.compile("|".join(re.escape(k) for k in parts))
    return pattern.sub(lambda m: parts[m.group(0)], template)


def write_replay_html(run_or_path: Any, out_html: PathLike, *, speed: float = 1.0) -> Path:
    """Write a self-contained HTML page that replays a recorded Mark I training run.

    Parameters
    ----------
    run_or_path : MachineRun, dict or path-like
        The run: a ``MachineRun`` (from ``MarkI(...).train(..., log=True)``), the path
        of a JSON file written by ``run.save(path)``, or that JSON as a dict.
    out_html : path-like
        Where to write the page (written atomically; folders are created).
    speed : float, default 1.0
        Initial replay speed: machine seconds per wall-clock second (1 is the
        machine's own pace); the page offers faster and slower speeds.

    Returns
    -------
    pathlib.Path
        The path written.

    Raises
    ------
    ValueError
        If the run is not a ``"markone-machine-run"`` file, has a newer format
        version, misses fields or is inconsistent; ``speed`` is not a positive number.
    FileNotFoundError
        If ``run_or_path`` names a file that does not exist.

    Notes
    -----
    The page needs no network and no server: CSS, script and run are inlined. Keys:
    Space plays or pauses, the arrows step and change the speed, Home and End jump,
    1-8 choose the R-unit whose potentiometers are shown. The page also exposes
    ``window.markoneConsole.state()`` (step, machine time, mistake count, weights).

    Examples
    --------
    See the module docstring; from the shell::

        markone machine replay RUN.json --html OUT.html
    """
    html = render_replay_html(run_or_path, speed=speed)
    return atomic_write(out_html, html)


def console_html(run: Any, *, height: int = 760) -> str:
    """The Mark I console replaying ``run``, as an ``<iframe>`` for a notebook cell
    (self-contained: the page and the run travel inside the notebook)."""
    page = render_replay_html(run)
    return (f'<iframe title="Mark I console" style="width:100%;height:{int(height)}px;'
            f'border:1px solid #ccc" srcdoc="{html.escape(page, quote=True)}"></iframe>'
            f"<p>{html.escape(repr(run))}</p>")
