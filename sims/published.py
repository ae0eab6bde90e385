"""Every published number of the Mark I and its simulations, reproduced with an interval.

Each published number (:data:`CLAIMS`) is measured on a seeded set of ``runs``
machines or simulations, and set beside its exact binomial interval at ``confidence``:

``navy_one_typeface``, ``navy_second_typeface``
    the June 1960 Navy caption [Navy1960]: after training, the letters of one typeface
    identified without error; 85% correct once a second typeface was added. Measured
    on the emulated Mark I (:func:`markone.hardware.demo.navy_comparison`, default
    physics): the letters ``navy_chars`` (the 26 capitals),
    ``navy_per_class`` figures per letter and typeface,
    at most ``navy_max_epochs`` passes. Without error: the fraction of machines that
    read every training figure of one typeface right (Clopper-Pearson interval over
    machines); 85%: the fraction of the two-typeface training figures read right,
    pooled over machines (Clopper-Pearson interval over figures).
``ibm704_left_right``
    the 1958 IBM 704 demonstration: cards marked on the left or on the right, told
    apart after about 50 trials [CornellChronicle2019]. Not the Mark I: a simulated
    perceptron (random S-to-A wiring, then :func:`markone.train`'s error correction)
    shown a stream of ``cards`` fresh cards once each; a run has learned after the
    trial of its last mistake. Measured: the median over runs, with the exact
    distribution-free interval of a median (:func:`sims._stats.median_interval`, the
    binomial order-statistic interval).
``square_circle``, ``square_diamond``, ``e_f``
    the figures an encyclopaedia attributes to Rosenblatt's experiments
    [WikipediaMarkI2026]: square against circle, shifted and turned, 99.8% with 500
    A-units after 10,000 training images; square against diamond, 100% after 60
    images with 1,000 A-units; E against F, over 80% after 60 images with the same
    1,000 A-units. Rosenblatt's paper on his IBM 704 simulations [Rosenblatt1960],
    where they are said to come from, was not read: each is marked *secondary,
    unconfirmed*. Measured on the simulated perceptron, each training image shown
    once: the fraction of ``test_figures`` fresh figures per run read right, pooled
    over runs (Clopper-Pearson interval over figures).

Every setting is listed with its provenance, as ``markone machine params`` lists the
machine's: *documented* (the source states it; its key) or *assumed* (the reason).

``results.json``: ``confidence``, ``runs`` and ``claims``, one object per published
number: ``claim`` (the words), ``source`` (its citation), ``status`` (``primary``, or
``secondary, unconfirmed``), ``simulator``, ``published`` (the number), ``relation``
(``equals``, ``about`` or ``more than``), ``measure`` (what is counted), ``measured``,
``successes`` and ``trials`` (the counts of a proportion) or ``values`` (one per run,
for the median), ``interval`` (``[low, high]``), ``inside`` (the published number lies
in the interval), ``agrees`` (the interval is consistent with the claim: for ``more
than``, its upper end is above the number), ``why`` (the explanation) and ``settings``
(``name``, ``value``, ``unit``, ``provenance``, ``note``).
"""

from __future__ import annotations

import dataclasses
import string
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from markone import train
from markone._internal.style import styled
from markone._internal.typing import JSONDict, PathLike
from markone._internal.validation import check_int_at_least, child_seeds
from markone.datasets import letters, shapes
from markone.online import predict_sign
from sims._common import check_between, check_letters, inline, new_figure, save_figure
from sims._stats import clopper_pearson_interval, median_interval, median_values_needed

if TYPE_CHECKING:
    from markone.hardware.params import ParamRow

__all__ = ["NAME", "DEFAULTS", "SMALL", "CLAIMS", "Claim", "tasks", "run_task",
           "combine", "plot", "run", "simulate", "cards", "settings", "claims_table",
           "claims_page", "TINY"]

NAME = "published"
DEFAULTS = {"runs": 10, "confidence": 0.95, "navy_chars": string.ascii_uppercase,
            "navy_per_class": 4, "navy_max_epochs": 30,
            "cards": 400, "cards_a_units": 512, "shapes_train": 10000,
            "shapes_a_units": 500, "few_train": 60, "few_a_units": 1000,
            "test_figures": 500}
SMALL = {"runs": 6, "navy_chars": "ABCD", "navy_per_class": 1, "navy_max_epochs": 10,
         "cards": 100, "cards_a_units": 100, "shapes_train": 200, "shapes_a_units": 100,
         "few_a_units": 200, "test_figures": 50}

_UNCONFIRMED = "secondary, unconfirmed"
_SIMULATED = "simulated perceptron (IBM 704-style: random S-to-A wiring, markone.train)"


@dataclasses.dataclass(frozen=True)
class Claim:
    """One published number: its words, source, value and how markone measures it.

    ``below`` and ``above`` explain a measurement under or over the published number
    when the interval leaves it out (each cites its sources by key).
    """

    key: str
    claim: str
    source: str
    status: str
    simulator: str
    published: float
    relation: str
    measure: str
    below: str
    above: str


CLAIMS = (
    Claim("navy_one_typeface",
          "after training, the letters of one typeface identified without error",
          "[Navy1960]", "primary", "Mark I emulation (markone.hardware, default physics)",
          1.0, "equals", "machines that read every training figure of one typeface right",
          "some machines still misread a training figure after the last pass allowed; "
          "the caption does not say how long the Mark I was trained [Navy1960]",
          ""),
    Claim("navy_second_typeface",
          "85% correct once letters of a second typeface were added",
          "[Navy1960]", "primary", "Mark I emulation (markone.hardware, default physics)",
          0.85, "equals", "training figures of two typefaces read right, over machines",
          "the emulated machines read fewer figures right than the Mark I did; the "
          "caption does not say how many figures or passes were used [Navy1960]",
          "the default emulator has noise-free photocells, figures placed within one "
          "pixel and 4,096 weights, where the Mark I surely had noise, drift and "
          "placement error; which of them made the 85% the sources do not say "
          "[Navy1960]"),
    Claim("ibm704_left_right",
          "cards marked on the left or on the right told apart after about 50 trials",
          "[CornellChronicle2019; NYT1958]", "primary",
          _SIMULATED, 50, "about", "trials up to a run's last mistake (median over runs)",
          "the simulated perceptron learns the cards faster than the 1958 programme did; "
          "the size of the mark, the retina and the number of A-units of 1958 are not "
          "given in the accounts [CornellChronicle2019]",
          "the simulated perceptron learns the cards more slowly than the 1958 programme "
          "did; the size of the mark, the retina and the number of A-units of 1958 are "
          "not given in the accounts [CornellChronicle2019]"),
    Claim("square_circle",
          "square against circle, shifted and turned: 99.8% correct with 500 A-units",
          "[WikipediaMarkI2026; Rosenblatt1960, attributed]", _UNCONFIRMED, _SIMULATED,
          0.998, "equals", "fresh test figures read right, over runs",
          "on a 20 x 20 retina the turned squares and circles of fixed size differ by a "
          "few cells, and each training image is shown once; the retina, the figures' "
          "size and the rule of 1960 are not given by the secondary source "
          "[WikipediaMarkI2026]",
          "the simulated figures are easier to tell apart than those of 1960 "
          "[WikipediaMarkI2026]"),
    Claim("square_diamond",
          "square against diamond: 100% correct after 60 images, with 1,000 A-units",
          "[WikipediaMarkI2026; Rosenblatt1960, attributed]", _UNCONFIRMED, _SIMULATED,
          1.0, "equals", "fresh test figures read right, over runs",
          "60 images shown once leave some positions unseen, and a figure at a new "
          "position lights other A-units; how the 1960 figures were placed the "
          "secondary source does not say [WikipediaMarkI2026]",
          ""),
    Claim("e_f",
          "E against F: over 80% correct after 60 images, with 1,000 A-units",
          "[WikipediaMarkI2026; Rosenblatt1960, attributed]", _UNCONFIRMED, _SIMULATED,
          0.8, "more than", "fresh test figures read right, over runs",
          "60 images shown once are too few for this simulated perceptron to tell E "
          "from F at new positions; the letters' size, typeface and placement of 1960 "
          "are not given by the secondary source [WikipediaMarkI2026]",
          ""),
)

_BY_KEY = {c.key: c for c in CLAIMS}
#: Each task's kind of work -> the claims its runs measure.
_WORK = {"navy": ("navy_one_typeface", "navy_second_typeface"),
         "cards": ("ibm704_left_right",), "square_circle": ("square_circle",),
         "square_diamond": ("square_diamond",), "e_f": ("e_f",)}
#: The settings of each simulation's training images and A-units, and the values the
#: source states (None: not stated).
_SIZES = {"cards": ("cards", None, "cards_a_units", None),
          "square_circle": ("shapes_train", 10000, "shapes_a_units", 500),
          "square_diamond": ("few_train", 60, "few_a_units", 1000),
          "e_f": ("few_train", 60, "few_a_units", 1000)}


def tasks(config: JSONDict, seed: int) -> list[JSONDict]:
    """One task per (kind of work, run), each with its own seed."""
    check_between(config["confidence"], "confidence", 0, 1)
    need = median_values_needed(config["confidence"])
    check_int_at_least(config["runs"], "runs", 1)
    if config["runs"] < need:
        raise ValueError(f"runs(={config['runs']}) is too few: the exact "
                         f"{config['confidence']:g} interval of the cards' median "
                         f"needs at least {need} runs; use --set runs={need} or more.")
    check_letters(config["navy_chars"])
    keys = [k for k in DEFAULTS if k not in ("runs", "confidence")]
    seeds = child_seeds(seed, len(_WORK) * config["runs"])
    return [{"id": f"{work}-run{r}", "work": work, "run": r,
             "seed": seeds[i * config["runs"] + r], **{k: config[k] for k in keys}}
            for i, work in enumerate(_WORK) for r in range(config["runs"])]


def run_task(spec: JSONDict) -> JSONDict:
    """Run one machine or simulation; its counts."""
    out = {"work": spec["work"], "run": spec["run"]}
    out.update(_RUNNERS[spec["work"]](spec))
    return out


def _navy(spec):
    from markone.hardware.demo import navy_comparison

    res = navy_comparison(seed=spec["seed"], chars=spec["navy_chars"],
                          per_class=spec["navy_per_class"],
                          max_epochs=spec["navy_max_epochs"])
    one_n = len(spec["navy_chars"]) * spec["navy_per_class"]
    two_n = 2 * one_n
    return {"one_correct": round(res["one_typeface"]["train_accuracy"] * one_n),
            "one_figures": one_n, "one_epochs": res["one_typeface"]["epochs"],
            "two_correct": round(res["two_typefaces"]["train_accuracy"] * two_n),
            "two_figures": two_n, "two_epochs": res["two_typefaces"]["epochs"]}


def cards(n: int, *, size: int = 20, mark: int = 4, seed: Any = None
          ) -> tuple[np.ndarray, np.ndarray]:
    """``n`` cards: a filled ``mark x mark`` square on the left (label -1) or the right
    (+1) half of a ``size x size`` retina, at a random place in that half.

    >>> images, labels = cards(2, size=6, mark=2, seed=0)
    >>> images.shape, sorted(int(im.sum()) for im in images)
    ((2, 6, 6), [4, 4])
    >>> all((im[:, :3].sum() > 0) == (y < 0) for im, y in zip(images, labels))
    True
    """
    rng = np.random.default_rng(seed)
    labels = rng.choice([-1, 1], size=n)
    images = np.zeros((n, size, size), dtype=np.uint8)
    half = size // 2
    for i, y in enumerate(labels):
        row = rng.integers(0, size - mark + 1)
        col = rng.integers(0, half - mark + 1) + (half if y > 0 else 0)
        images[i, row:row + mark, col:col + mark] = 1
    return images, labels


def simulate(train_images: np.ndarray, train_labels: np.ndarray,
             test_images: np.ndarray, *, n_a_units: int, seed: Any = None
             ) -> tuple[np.ndarray, tuple[int, ...]]:
    """A simulated perceptron as Rosenblatt ran them on the IBM 704: S-units wired at
    random to ``n_a_units`` all-or-none A-units (the Mark I's plugboard rule, its
    threshold set for 5-20% firing on the training images), then one R-unit with an
    adjustable threshold (the intercept) trained by :func:`markone.train`'s error
    correction, each training image shown once.

    Returns the test images' answers (-1/+1) and the trial (0-based) of every mistake.

    >>> images, labels = cards(40, seed=1)
    >>> answers, mistakes = simulate(images, labels, images, n_a_units=64, seed=2)
    >>> answers.shape, len(mistakes) <= 40
    ((40,), True)
    """
    from markone.hardware.params import MarkIParams
    from markone.hardware.plugboard import calibrate_theta, fire, wire

    params = MarkIParams(retina_shape=train_images.shape[1:], n_a_units=n_a_units)
    wiring = wire(params, seed=seed)
    s_train = train_images.reshape(len(train_images), -1)
    theta = calibrate_theta(wiring, s_train, params.theta_target_rate,
                            params.n_excitatory, params.n_inhibitory)
    a_train = fire(wiring, s_train, theta)
    a_test = fire(wiring, test_images.reshape(len(test_images), -1), theta)
    res = train(a_train.astype(np.float64), np.asarray(train_labels), max_epochs=1,
                order=list(range(len(a_train))), record=True)
    w = np.asarray(res.w, dtype=float)
    answers = predict_sign(a_test.astype(np.float64) @ w[:-1] + w[-1])
    return answers, tuple(int(i) for i in res.mistake_indices)


def _cards(spec):
    data_seed, wiring_seed = child_seeds(spec["seed"], 2)
    images, labels = cards(spec["cards"], seed=data_seed)
    _, mistakes = simulate(images, labels, images[:1], n_a_units=spec["cards_a_units"],
                           seed=wiring_seed)
    return {"trials_to_learn": mistakes[-1] + 1 if mistakes else 0}


def _two_shapes(first, second, n, seed, *, rotate):
    """``n`` figures, half ``first`` half ``second`` (labels -1, +1), shuffled; a disc
    has the square's area, so that the count of lit cells does not tell them apart."""
    rng = np.random.default_rng(seed)
    side = 8.0
    parts = []
    for kind, m in ((first, n // 2), (second, n - n // 2)):
        d = side * 2 / np.sqrt(np.pi) if kind == "disc" else side
        parts.append(shapes(m, kinds=(kind,), diameter=(d, d), rotate=rotate, seed=rng)[0])
    images = np.concatenate(parts)
    labels = np.r_[-np.ones(n // 2, int), np.ones(n - n // 2, int)]
    order = rng.permutation(n)
    return images[order], labels[order]


def _letters_ef(n, seed):
    images, labels = letters("EF", per_class=(n + 1) // 2, seed=seed)
    return images[:n], np.where(labels[:n] == "E", -1, 1)


def _figures(work, n, seed):
    if work == "e_f":
        return _letters_ef(n, seed)
    kinds = ("square", "disc") if work == "square_circle" else ("square", "diamond")
    return _two_shapes(*kinds, n, seed, rotate=work == "square_circle")


def _tested(spec):
    """A shapes or letters claim: train on the stated count, test on fresh figures."""
    work = spec["work"]
    train_seed, test_seed, wiring_seed = child_seeds(spec["seed"], 3)
    n_train, _, a_units, _ = _SIZES[work]
    images, labels = _figures(work, spec[n_train], train_seed)
    test, test_labels = _figures(work, spec["test_figures"], test_seed)
    answers, _ = simulate(images, labels, test, n_a_units=spec[a_units], seed=wiring_seed)
    return {"correct": int(np.sum(answers == test_labels)),
            "figures": int(len(test_labels))}


_RUNNERS: dict[str, Callable[[JSONDict], JSONDict]] = {
    "navy": _navy, "cards": _cards, "square_circle": _tested,
    "square_diamond": _tested, "e_f": _tested}


def combine(config: JSONDict, task_results: list[JSONDict]) -> JSONDict:
    """Each published number beside its measurement and interval."""
    by_work: dict[str, list[JSONDict]] = {w: [] for w in _WORK}
    for t in task_results:
        by_work[t["work"]].append(t)
    counts = {
        "navy_one_typeface": _proportion(
            sum(t["one_correct"] == t["one_figures"] for t in by_work["navy"]),
            len(by_work["navy"])),
        "navy_second_typeface": _proportion(
            sum(t["two_correct"] for t in by_work["navy"]),
            sum(t["two_figures"] for t in by_work["navy"])),
        "ibm704_left_right": {"values": [t["trials_to_learn"] for t in by_work["cards"]]},
    }
    for work in ("square_circle", "square_diamond", "e_f"):
        counts[work] = _proportion(sum(t["correct"] for t in by_work[work]),
                                   sum(t["figures"] for t in by_work[work]))
    claims = {c.key: _judge(c, counts[c.key], config) for c in CLAIMS}
    return {"confidence": config["confidence"], "runs": config["runs"], "claims": claims}


def _proportion(successes, trials):
    return {"successes": int(successes), "trials": int(trials)}


def _judge(claim, counted, config):
    """The claim's record: its measurement, interval and verdict."""
    conf = config["confidence"]
    if "values" in counted:
        values = counted["values"]
        measured = float(np.median(values))
        low, high = median_interval(values, conf)
    else:
        measured = counted["successes"] / counted["trials"]
        low, high = clopper_pearson_interval(counted["successes"], counted["trials"], conf)
    inside = low <= claim.published <= high
    agrees = high > claim.published if claim.relation == "more than" else inside
    return {"claim": claim.claim, "source": claim.source, "status": claim.status,
            "simulator": claim.simulator, "published": claim.published,
            "relation": claim.relation, "measure": claim.measure, **counted,
            "measured": measured, "interval": [float(low), float(high)],
            "inside": bool(inside), "agrees": bool(agrees),
            "why": _why(claim, measured, inside, agrees),
            "settings": [row._asdict() for row in settings(claim.key, config)]}


def _why(claim, measured, inside, agrees):
    if inside:
        return "the published number lies inside the interval"
    if agrees:
        return (f"the interval lies above {_number(claim.published)}, as the claim "
                "(more than) says")
    side = claim.below if measured < claim.published else claim.above
    return f"the interval leaves out {_number(claim.published)}: {side}"


def _number(value):
    return f"{value:g}" if isinstance(value, int) else f"{100 * value:g}%"


def settings(key: str, config: JSONDict) -> list[ParamRow]:
    """Every setting of one claim's runs, documented (the source's key) or assumed
    (the reason), as ``markone machine params`` gives the machine's.

    >>> rows = settings("square_diamond", DEFAULTS)
    >>> [(r.name, r.value, r.provenance) for r in rows][:2]
    [('training images', 60, 'documented'), ('A-units', 1000, 'documented')]
    """
    work = next(w for w, keys in _WORK.items() if key in keys)
    rows = [_row("runs", config["runs"], "machines or simulations", "assumed",
                     "each with its own seed; enough for an interval, within the "
                     "experiment's 2 minutes of CPU")]
    return _SETTINGS[work](config) + rows


def _row(name: str, value: Any, unit: str, provenance: str, note: str) -> ParamRow:
    """One setting as a row of ``markone machine params``' table."""
    from markone.hardware.params import ParamRow

    return ParamRow(name, value, unit, provenance, note)


def _stated(name, value, stated, unit, source):
    """A setting the source states: documented, unless ``--set`` changed it."""
    if value == stated:
        return _row(name, value, unit, "documented", f"stated {source}")
    return _row(name, value, unit, "assumed",
                    f"changed by a setting; the source states {stated} {source}")


def _simulation_rows(spec_rows):
    from markone.hardware.params import MarkIParams

    wiring = MarkIParams()
    return spec_rows + [
        _row("retina", "20 x 20", "S-units", "assumed",
                 "the Mark I's; the simulations' retina is not given in the accounts"),
        _row("S-to-A wiring", f"{wiring.n_excitatory} + {wiring.n_inhibitory}",
                 "connections per A-unit", "assumed",
                 "the Mark I emulation's defaults (markone machine params)"),
        _row("A-unit threshold", "5-20% firing", "of the training images",
                 "assumed", "the Mark I emulation's theta='auto'"),
        _row("rule", "error correction, each training image shown once", "",
                 "assumed", "the learner core's rule; 1960 also studied forced "
                 "(S-controlled) learning [Rosenblatt1960, abstract]"),
        _row("R-unit", "one, with an adjustable threshold", "", "assumed",
                 "markone.train's intercept, so that a figure that fires no A-unit "
                 "is still answered"),
    ]


def _cards_rows(config):
    return _simulation_rows([
        _row("cards", config["cards"], "trials", "assumed",
                 "a stream eight times the published 50, so that a run's last mistake "
                 "is seen"),
        _row("mark", "4 x 4 square", "cells", "assumed",
                 "the accounts say only that a card was marked on one side"),
        _row("A-units", config["cards_a_units"], "A-units", "assumed",
                 "the Mark I's count [Nagy2011]; the 1958 programme's is not given")])


def _navy_rows(config):
    from markone.hardware.params import MarkIParams

    counts = MarkIParams().provenance_counts()
    return [
        _row("letters", f"{config['navy_chars']}: block typeface; then block and "
                 "serif", "", "assumed",
                 "the caption names no letters or typefaces [Navy1960]"),
        _row("figures", config["navy_per_class"], "per letter and typeface",
                 "assumed", "placed within one pixel; the caption gives no count"),
        _row("passes", config["navy_max_epochs"], "at most", "assumed",
                 "training stops at an error-free pass; the caption gives no limit"),
        _row("machine", "MarkIParams()", "", "assumed",
                 f"{sum(counts.values())} parameters: {counts['documented']} documented, "
                 f"{counts['disputed']} disputed, {counts['assumed']} assumed "
                 "(markone machine params)"),
    ]


def _shape_rows(work):
    def rows(config):
        src = "[WikipediaMarkI2026]"
        n_train, stated_train, a_units, stated_units = _SIZES[work]
        first = [_stated("training images", config[n_train], stated_train, "images", src),
                 _stated("A-units", config[a_units], stated_units, "A-units", src),
                 _row("test figures", config["test_figures"], "per run", "assumed",
                          "the source gives no size of its test set")]
        return _simulation_rows(first + [_row(*r) for r in _FIGURE_ROWS[work]])
    return rows


_FIGURE_ROWS = {
    "square_circle": [
        ("figures", "a square of side 8 cells and a disc of equal area", "", "assumed",
         "fixed sizes are stated [WikipediaMarkI2026], not which; equal areas, so that "
         "the count of lit cells does not tell them apart"),
        ("variation", "position and rotation", "", "documented",
         "stated [WikipediaMarkI2026]")],
    "square_diamond": [
        ("figures", "a square of side 8 cells, and turned by 45 degrees", "", "assumed",
         "the source gives no size"),
        ("variation", "position", "", "assumed",
         "not stated; a turned square would be a diamond")],
    "e_f": [
        ("figures", "E and F, block typeface", "", "assumed",
         "markone's letters; the source gives no typeface"),
        ("variation", "position, within one pixel", "", "assumed", "not stated")],
}

_SETTINGS: dict[str, Callable[[JSONDict], list[ParamRow]]] = {
    "navy": _navy_rows, "cards": _cards_rows,
    **{w: _shape_rows(w) for w in ("square_circle", "square_diamond", "e_f")}}


def claims_table(results: JSONDict) -> str:
    """The published numbers beside markone's reproduction, as a Markdown table.

    >>> print(claims_table({"confidence": 0.95, "claims": {"navy_second_typeface": {
    ...     "claim": "c", "source": "[Navy1960]", "status": "primary",
    ...     "published": 0.85, "relation": "equals", "measured": 0.9,
    ...     "interval": [0.8, 0.95], "inside": True, "agrees": True}}}).splitlines()[2])
    | c | [Navy1960] | primary | 85% | 90% | 80% – 95% | yes |
    """
    lines = ["| published claim | source | status | published | markone | "
             f"{100 * results['confidence']:g}% interval | published number inside |",
             "|---|---|---|---|---|---|---|"]
    claims = results["claims"]
    for c in [claims[k] for k in _BY_KEY if k in claims]:
        more = _more(c)
        low, high = c["interval"]
        count = "values" in c
        lines.append(f"| {c['claim']} | {c['source']} | {c['status']} | "
                     f"{more}{_shown(c['published'], count)} | "
                     f"{_shown(c['measured'], count)} | {_shown(low, count)} – "
                     f"{_shown(high, count)} | {_verdict(c)} |")
    return "\n".join(lines)


def claims_page(results: JSONDict) -> str:
    """The Markdown of the page "What the Mark I did, and what markone does": the
    table of :func:`claims_table`, then each number's measurement and difference, then
    every setting with its provenance. ``docs/history-published.md`` holds it, made
    from a default run's ``results.json``.

    >>> page = claims_page(run({**DEFAULTS, **TINY}, seed=0))
    >>> page.splitlines()[0].startswith("| published claim |"), "### Settings" in page
    (True, True)
    """
    claims = [results["claims"][k] for k in _BY_KEY if k in results["claims"]]
    level = f"{100 * results['confidence']:g}%"
    lines = [claims_table(results), "", "### Each number, and the difference", ""]
    for c in claims:
        count = "values" in c
        low, high = c["interval"]
        over = (f"{len(c['values'])} runs" if count
                else f"{c['successes']} of {c['trials']}")
        lines.append(f"- **{c['claim']}** {c['source']}, {c['status']}; on the "
                     f"{c['simulator']}: {c['measure']}, {_shown(c['measured'], count)} "
                     f"({over}; {level} interval {_shown(low, count)} to "
                     f"{_shown(high, count)}). Published: {_more(c)}{_shown(c['published'], count)}"
                     f"; {c['why']}.")
    lines += ["", "### Settings", "",
              "*documented*: the source states it (its key); *assumed*: the reason.", ""]
    for c in claims:
        lines += [f"**{c['claim']}** {c['source']}", ""]
        lines += [f"- {r['name']}: {r['value']} {r['unit']} (*{r['provenance']}*): "
                  f"{r['note']}".replace("  (", " (") for r in c["settings"]]
        lines.append("")
    return "\n".join(lines).rstrip()


#: The smallest settings that still run every claim (a test's, a doctest's).
TINY = {"runs": 6, "navy_chars": "AB", "navy_per_class": 1, "navy_max_epochs": 3,
        "cards": 20, "cards_a_units": 20, "shapes_train": 20, "shapes_a_units": 20,
        "few_train": 10, "few_a_units": 20, "test_figures": 10}


def _more(c):
    return "over " if c["relation"] == "more than" else ""


def _verdict(c):
    if c["inside"]:
        return "yes"
    return "no, above it as claimed" if c["agrees"] else "no"


def _shown(value, count=False):
    """A proportion as a percentage to 0.1 (``99.8%``), a count as a number."""
    if count:
        return f"{value:g}"
    return f"{round(100 * value, 1):g}%"


@styled
def plot(results: JSONDict, out_dir: PathLike) -> list[Path]:
    """Each proportion's published number against its interval; the trials claim
    on its own axis."""
    fig, (ax, bx) = new_figure(2, width=5)
    props = [(k, c) for k, c in results["claims"].items() if "values" not in c]
    for i, (key, c) in enumerate(props):
        low, high = c["interval"]
        ax.plot([low, high], [i, i], lw=3, color="C0")
        ax.plot(c["measured"], i, "o", color="C0")
        ax.plot(c["published"], i, "x", ms=10, mew=2, color="C3")
    ax.set_yticks(range(len(props)), [k for k, _ in props])
    ax.set(xlabel="fraction right (x: published)", xlim=(0, 1.02),
           title="published numbers and markone's intervals")
    trials = [(k, c) for k, c in results["claims"].items() if "values" in c]
    for i, (key, c) in enumerate(trials):
        bx.plot(c["values"], [i] * len(c["values"]), "|", ms=14, color="C0")
        bx.plot(c["interval"], [i, i], lw=3, color="C0")
        bx.plot(c["published"], i, "x", ms=10, mew=2, color="C3")
    bx.set_yticks(range(len(trials)), [k for k, _ in trials])
    bx.set(xlabel="trials to learn (runs; x: published)", title="the 1958 cards")
    return [save_figure(fig, out_dir, NAME)]


run = inline(__name__)
