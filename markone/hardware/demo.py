"""Demonstrations of the Mark I: learning letters, and the Navy's 1960 result.

:func:`letters_demo` trains the machine with default physics on a few letters, writes
its pictures and its run (``machine-run.json``) to a folder and returns a summary;
``markone machine demo letters`` and ``markone demo`` print it. :func:`navy_comparison`
runs the task of the June 1960 Navy caption (one typeface, then two).

Examples
--------
>>> import tempfile
>>> summary = letters_demo(tempfile.mkdtemp(), chars="AB", per_class=2, figures=False)
>>> summary["train_accuracy"], summary["converged"]
(1.0, True)
>>> print(summary["report"].splitlines()[0])
Mark I: learned 2 letters (AB, block typeface) from 4 figures in ... passes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from markone.datasets import letters
from markone._internal.io import percent, plural
from markone._internal.typing import JSONDict, PathLike
from markone.hardware import plots
from markone.hardware.faults import FaultPlan, apply_faults, faults_for
from markone.hardware.machine import MarkI
from markone.hardware.params import MarkIParams
from markone.hardware.runits import r_unit_name

__all__ = ["letters_demo", "navy_comparison", "navy_sweep", "navy_table", "format_minutes",
           "generalisation_note", "NAVY_SETTINGS"]

#: Settings compared with the Navy's 1960 result: name -> (MarkIParams changes, jitter).
NAVY_SETTINGS: dict[str, tuple[dict[str, Any], int]] = {
    "default physics": ({}, 1),
    "jitter of 2 pixels": ({}, 2),
    "photocell noise 0.3": ({"photocell_noise_sd": 0.3}, 1),
    "source sets (512 weights)": ({"topology": "source_sets"}, 1),
}


def format_minutes(seconds: float) -> str:
    """Machine time in words: ``"about 40 seconds"``, ``"about 3 minutes"``,
    ``"about 1.5 hours"``.

    >>> format_minutes(40), format_minutes(100), format_minutes(5400)
    ('about 40 seconds', 'about 2 minutes', 'about 1.5 hours')
    """
    if seconds < 90:
        return f"about {round(seconds)} seconds"
    minutes = seconds / 60
    if minutes < 90:
        return f"about {round(minutes)} minutes"
    return f"about {minutes / 60:.1f} hours"


def letters_demo(out_dir: PathLike, *, seed: int = 0, chars: str = "ABCD",
                 per_class: int = 5, max_epochs: int = 50, typeface: str = "block",
                 params: MarkIParams | None = None,
                 faults: FaultPlan | Mapping[str, Any] | None = None, figures: bool = True,
                 echo: Callable[[str], Any] | None = None) -> JSONDict:
    """Train the Mark I on letters with default physics; write pictures and the run.

    Parameters
    ----------
    out_dir : path
        Folder for ``machine-run.json`` and the pictures (created if needed).
    seed : int
        Seeds the letters' jitter, the plugboard and everything else.
    chars, per_class, typeface
        The training figures (see :func:`markone.datasets.letters`).
    max_epochs : int
        Most passes; training stops after a pass without mistakes.
    params : MarkIParams, optional
        Default physics unless given.
    faults : FaultPlan or dict, optional
        Hardware faults: a :class:`~markone.hardware.faults.FaultPlan`, or the keyword
        arguments of :func:`~markone.hardware.faults.random_faults` drawn on the
        machine. None: a healthy machine.
    figures : bool
        Write the PNGs and the GIF (the JSON run is always written).
    echo : callable, optional
        Called with each line of the report (e.g. ``print``).

    Returns
    -------
    dict
        ``train_accuracy``, ``test_accuracy`` (fresh jitter), ``mistakes`` per R-unit,
        ``saturated``, ``sim_time_s``, ``epochs``, ``converged``, ``theta``,
        ``a_firing_rate``, ``files`` (name -> path), ``run_json`` (path),
        ``figures`` (picture paths), ``report`` (printable text) and
        ``summary_lines`` (its lines).
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    images, labels = letters(chars, per_class=per_class, seed=seed, typeface=typeface)
    test_images, test_labels = letters(chars, per_class=per_class, seed=seed + 1,
                                       typeface=typeface)
    machine = MarkI(params or MarkIParams(), seed=seed)
    if faults is not None:
        apply_faults(machine, faults_for(machine, faults))
    run = machine.train(images, labels, max_epochs=max_epochs, log=True)
    files = {"run": str(run.save(out / "machine-run.json"))}
    a_rows = machine.a_features(images)
    classes = run.classes
    first = [int(np.flatnonzero(labels == c)[0]) for c in classes]
    if figures:
        files["retina"] = str(plots.plot_retina(images[0], out / "machine_retina.png",
                                                title=f"letter {labels[0]} on the retina"))
        files["a_activity"] = str(plots.plot_a_activity(a_rows[first], labels[first],
                                                        out / "machine_a_units.png"))
        files["weights"] = str(plots.plot_weights(run, out / "machine_weights.png"))
        files["learning_curve"] = str(plots.plot_learning_curve(
            run, out / "machine_learning_curve.png"))
        files["animation"] = str(plots.animate_training(run, out / "machine_training.gif"))
    summary = {
        "chars": "".join(classes), "typeface": typeface,
        "n_figures": len(images), "epochs": run.epochs, "converged": run.converged,
        "presentations": run.n_presentations,
        "train_accuracy": machine.score(images, labels),
        "test_accuracy": machine.score(test_images, test_labels),
        "mistakes": run.mistakes.tolist(), "saturated": int(run.saturated.sum()),
        "sim_time_s": run.sim_time_s, "motor_step_s": machine.params.motor_step_s,
        "theta": machine.theta,
        "a_firing_rate": float(a_rows.mean()), "files": files,
    }
    summary["report"] = _report(summary)
    summary["summary_lines"] = summary["report"].splitlines()
    summary["run_json"] = files["run"]
    summary["figures"] = [path for name, path in files.items() if name != "run"]
    if echo is not None:
        for line in summary["summary_lines"]:
            echo(line)
    return summary


def _report(s):
    lines = [
        f"Mark I: {'learned' if s['converged'] else 'trained on'} "
        f"{plural(len(s['chars']), 'letter')} ({s['chars']}, {s['typeface']} "
        f"typeface) from {plural(s['n_figures'], 'figure')} "
        + (f"in {plural(s['epochs'], 'pass', 'passes')}." if s["converged"] else
           f"for {plural(s['epochs'], 'pass', 'passes')}, the most allowed, and stopped "
           "before an error-free pass."),
        f"  accuracy: {percent(s['train_accuracy'])} on the training figures, "
        f"{percent(s['test_accuracy'])} on freshly placed ones"
        + (f"\n    {why.strip()}" if (why := generalisation_note(s)) else ""),
        "  R-unit mistakes: " + ", ".join(f"{r_unit_name(k)} {m}" for k, m in
                                          enumerate(s["mistakes"]))
        + f" (total {sum(s['mistakes'])})",
        f"  weight moves blocked by end stops: {s['saturated']}",
        f"  A-units firing: {100 * s['a_firing_rate']:.0f}% (theta = {s['theta']})",
        f"  machine time for this training: {format_minutes(s['sim_time_s'])} "
        f"({s['presentations']} figures shown, motors at {s['motor_step_s']:g} s per "
        "step, an assumed speed: see markone machine params)",
    ]
    lines += [f"  wrote {path}" for path in s["files"].values()]
    return "\n".join(lines)


def generalisation_note(info: JSONDict) -> str:
    """Why the letters run read new figures worse than its training figures, in one
    sentence (with a leading space), from that run's numbers (``n_figures``,
    ``chars``, ``train_accuracy``, ``test_accuracy`` of
    :func:`markone.hardware.demo.letters_demo`); '' when there is no such gap.

    >>> print(generalisation_note({"n_figures": 20, "chars": "ABCD",
    ...                            "train_accuracy": 1.0, "test_accuracy": 0.6}))
     It read all 20 training figures right, but it learned each letter from only 5 placed figures, and a learner given fewer examples generalises worse to new ones [Bishop2006, §1.1].
    >>> generalisation_note({"n_figures": 20, "chars": "ABCD", "train_accuracy": 1.0,
    ...                      "test_accuracy": 1.0})
    ''
    """
    n, letters = info["n_figures"], len(info["chars"])
    right = round(info["test_accuracy"] * n)
    if right == n or info["train_accuracy"] <= info["test_accuracy"]:
        return ""
    trained = round(info["train_accuracy"] * n)
    if not info.get("converged", True) and trained < n:
        return (f" It read only {trained} of its {n} training figures right: training "
                "stopped before an error-free pass, so it had not yet learned the "
                "figures it was shown; allow more passes.")
    said = ({1: "its one training figure", 2: "both training figures"}.get(
        n, f"all {n} training figures") if trained == n
        else f"{trained} of its {n} training figures")
    return (f" It read {said} right, but it learned each letter from only "
            f"{plural(n // letters, 'placed figure')}, and a learner given fewer "
            "examples generalises worse to new ones [Bishop2006, §1.1].")


def navy_comparison(*, seed: int = 0, chars: str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
                    per_class: int = 4, max_epochs: int = 60, jitter: int = 1,
                    params: MarkIParams | None = None) -> JSONDict:
    """The Navy's June 1960 task: letters in one typeface, then a second one added.

    Trains a fresh default machine (i) on ``chars`` in the block typeface and (ii) on
    the same letters in both typefaces, each for at most ``max_epochs`` passes, and
    measures the fraction recognised on the training figures and on freshly placed
    ones (new jitter of up to ``jitter`` pixels).

    Returns
    -------
    dict
        ``one_typeface`` and ``two_typefaces``: each with ``train_accuracy``,
        ``test_accuracy``, ``epochs``, ``converged``, ``sim_time_s``, ``saturated``;
        and ``block_only_on_serif``: how the one-typeface machine reads the serif.
    """
    results: JSONDict = {}
    for name, faces in (("one_typeface", ("block",)), ("two_typefaces", ("block", "serif"))):
        images, labels = letters(chars, per_class=per_class, seed=seed, typeface=faces,
                                 jitter=jitter)
        test, test_labels = letters(chars, per_class=per_class, seed=seed + 1,
                                    typeface=faces, jitter=jitter)
        machine = MarkI(params or MarkIParams(), seed=seed)
        run = machine.train(images, labels, max_epochs=max_epochs)
        results[name] = {
            "train_accuracy": machine.score(images, labels),
            "test_accuracy": machine.score(test, test_labels),
            "epochs": run.epochs, "converged": run.converged,
            "sim_time_s": run.sim_time_s, "saturated": int(run.saturated.sum()),
        }
        if name == "one_typeface":
            serif, serif_labels = letters(chars, per_class=per_class, seed=seed + 1,
                                          typeface="serif", jitter=jitter)
            results["block_only_on_serif"] = machine.score(serif, serif_labels)
    return results


def navy_sweep(settings: Mapping[str, tuple[dict[str, Any], int]] | None = None, *,
               seed: int = 0, per_class: int = 20,
               max_epochs: int = 30) -> dict[str, JSONDict]:
    """:func:`navy_comparison` for each of ``settings`` (default
    :data:`NAVY_SETTINGS`); returns ``{name: result}``."""
    settings = NAVY_SETTINGS if settings is None else settings
    return {name: navy_comparison(seed=seed, per_class=per_class, max_epochs=max_epochs,
                                  jitter=jitter, params=MarkIParams(**changes))
            for name, (changes, jitter) in settings.items()}


def navy_table(sweep: Mapping[str, JSONDict]) -> str:
    """The :func:`navy_sweep` results as a Markdown table (percentages)."""
    head = ("| setting | one typeface: training / fresh | passes | "
            "two typefaces: training / fresh | passes | block-trained, reading serif |")
    lines = [head, "|---|---|---|---|---|---|"]
    for name, r in sweep.items():
        one, two = r["one_typeface"], r["two_typefaces"]
        cells = [name]
        for x in (one, two):
            cells.append(f"{percent(x['train_accuracy'])} / {percent(x['test_accuracy'])}")
            cells.append(f"{x['epochs']}" + ("" if x["converged"] else " (cut)"))
        cells.append(percent(r['block_only_on_serif']))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)
