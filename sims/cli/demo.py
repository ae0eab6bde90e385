"""``markone demo``: the tour of markone in one command, under a minute.

It runs, in order: the learner core on Fisher's iris; the Mark I emulation learning
letters (with its machine time and a browser replay of the run); an exact
separability verdict with its certificate; the orthonormal worst case meeting
Novikoff's bound; and XOR's bounded cycle. It prints a short summary and writes the
figures, the certificate, the machine's run, ``summary.json`` and an ``index.html`` that shows them all
to ``./markone-demo/`` (or ``--out``).

The work is done by :func:`run_demo`, which the command line only calls.
"""

from __future__ import annotations

import html
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
import warnings

from markone._internal.typing import JSONDict, PathLike
from markone.cli import add_command, nonnegative_int, output_folder
from markone.cli import purpose
from markone.cli import JOB_EXITS

__all__ = ["register", "run_demo", "PUBLISHED_PAGE"]


def register(sub: Any) -> None:
    p = add_command(
        sub, "demo",
        help=purpose("demo"),
        description="Writes figures, a certificate, the machine run, a browser replay "
        "and index.html to the output folder, and prints a summary. Takes well under a "
        "minute.",
        example="markone demo --out markone-demo   then open markone-demo/index.html in "
        "a browser",
        func=_main, exits=JOB_EXITS,
    )
    p.add_argument("--out", type=output_folder, default="markone-demo",
                   help="output folder")
    p.add_argument("--seed", type=nonnegative_int, default=0,
                   help="seed of the machine and its data")


def _main(args):
    run_demo(args.out, seed=args.seed)
    return 0


class _Report:
    """Collects the tour's sections: printed to the terminal as they finish, and
    written as the guided tour of ``index.html`` at the end."""

    def __init__(self, out, echo, shown_as=None):
        self.out = out                      # where the files are written now
        self.shown_as = Path(shown_as or out)  # where the user will find them
        self.echo = echo
        self.sections = []

    def section(self, title, intro, facts, figures=(), links=()):
        """``intro``: plain-language paragraphs (what you see, what to notice);
        ``facts``: the results in sentences; ``figures``: ``(path, caption)``;
        ``links``: ``(path, text)``."""
        self.echo(f"\n== {title}")
        for fact in facts:
            self.echo(f"   {fact}")
        for path, text in links:
            self.echo(f"   {text}: {self.shown_as / Path(path).name}")
        self.sections.append((title, list(intro), list(facts),
                              [(Path(f), c) for f, c in figures],
                              [(Path(f), t) for f, t in links]))


def run_demo(out: PathLike = "markone-demo", *, seed: int = 0,
             echo: Callable[[str], Any] = print) -> JSONDict:
    """Run the tour, write everything to ``out``, return a summary dict.

    >>> import tempfile
    >>> summary = run_demo(tempfile.mkdtemp(), echo=lambda s: None)  # doctest: +SKIP
    """
    import matplotlib

    from markone._internal.io import staged_output, write_json
    from markone._internal.validation import check_int_at_least

    check_int_at_least(seed, "seed", 0)  # before anything is written
    matplotlib.use("Agg")
    out = Path(out)
    t0 = time.perf_counter()
    with staged_output(out) as stage:  # all files or none: a failure leaves out as it was
        rep = _Report(stage, echo, shown_as=out)
        summary: JSONDict = {"out": str(out)}
        summary["core"] = _core_section(rep)
        summary["machine"] = _machine_section(rep, seed)
        summary["separability"] = _separability_section(rep)
        summary["worst_case"] = _worst_case_section(rep)
        summary["xor"] = _xor_section(rep)
        summary["seconds"] = time.perf_counter() - t0
        write_json(stage / "summary.json", summary)
        _write_index(rep, summary)
    echo(f"\nwrote {out / 'index.html'} ({summary['seconds']:.1f} s)")
    return summary


def _core_section(rep):
    import markone
    from markone._internal.style import new_figure, save_figure, styled
    from markone._internal.io import plural
    from markone.plot import plot_boundary, plot_mistakes

    X, y = markone.datasets.iris()
    keep = y < 2
    Xs, ys = X[keep][:, 2:], y[keep]
    res = markone.train(Xs, ys)
    Xv, yv = X[y > 0][:, 2:], y[y > 0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", markone.ConvergenceWarning)
        hard = markone.train(Xv, yv, max_epochs=100)

    @styled
    def draw():
        fig, (ax, bx) = new_figure(1, 2, width=5.2, height=4.2)
        plot_boundary(ax, Xs, ys, res, labels=["setosa", "versicolor"],
                      title=f"Setosa or versicolor?\nLearned after "
                            f"{plural(res.mistakes, 'mistake')}")
        ax.set_xlabel("petal length (cm)")
        ax.set_ylabel("petal width (cm)")
        plot_mistakes(bx, hard, title="Versicolor or virginica?\nThe mistakes never stop")
        return save_figure(fig, rep.out / "core_iris.png")

    path = draw()
    last = hard.mistakes_per_epoch[-1]
    rep.section("The learner core: learning from mistakes", [
        "A perceptron decides by a weighted vote: it multiplies each measurement by a "
        "weight, adds them up, and answers one class when the total is positive and the "
        "other when it is not. It learns one example at a time: when it answers wrongly "
        "it adds the example to its weights (or subtracts it), and when it is right it "
        "changes nothing.",
        "Here it looks at iris flowers, measured by the length and width of their petals. "
        "Notice the difference between the two panels: when a straight line can separate "
        "the two kinds (left), the mistakes stop after a few; when the kinds overlap "
        "(right), they never stop.",
    ], [
        f"Setosa against versicolor: the perceptron learned to tell all "
        f"{int(keep.sum())} flowers apart after {plural(res.mistakes, 'mistake')}, in "
        f"{plural(res.epochs, 'pass', 'passes')} through the flowers.",
        f"Versicolor against virginica: no straight line separates them, and after "
        f"{plural(hard.epochs, 'pass', 'passes')} it still made "
        f"{plural(last, 'mistake')} in the last one.",
    ], [(path, "Left: the iris flowers by petal size, and the line the perceptron "
               "learned. Right: mistakes in each pass on a problem no line can solve.")])
    return {"mistakes": res.mistakes, "epochs": res.epochs, "w": res.w.tolist(),
            "hard_converged": hard.converged}


#: Captions of the Mark I's pictures, by file name (markone.hardware.demo writes them).
_MACHINE_CAPTIONS = {
    "machine_retina.png": "A training figure as the 400 photocells of the retina see it.",
    "machine_a_units.png": "Which of the 512 association units fire for one figure of "
                           "each letter: each letter lights a different pattern.",
    "machine_weights.png": "What each response unit learned, drawn back onto the retina "
                           "through the plugboard: red cells vote for +1, blue for -1.",
    "machine_learning_curve.png": "Figures misread against the time the machine's "
                                  "motors would have taken: the errors fall to zero.",
    "machine_training.gif": "Training as an animation: the figure shown and the knobs "
                            "of the response units that carry the letter code.",
}


def _machine_section(rep, seed):
    from markone.hardware.demo import format_minutes, generalisation_note, letters_demo
    from markone.hardware.plots import code_caption
    from markone.hardware.replay import write_replay_html
    from markone.hardware.run import MachineRun
    from markone._internal.io import plural

    info = letters_demo(rep.out, seed=seed, echo=lambda s: None)
    run_path = Path(info["run_json"])
    replay = write_replay_html(run_path, rep.out / "replay.html")
    n = info["n_figures"]
    misread = round((1 - info["test_accuracy"]) * n)
    code = code_caption(MachineRun.load(run_path))
    figures = [(f, _MACHINE_CAPTIONS.get(Path(f).name, Path(f).name))
               for f in info.get("figures", [])]
    rep.section("The Mark I learning letters", [
        "This is an emulation of the 1960 machine. A camera showed a printed letter to a "
        "20 by 20 grid of photocells. A plugboard, wired at random, connected the "
        "photocells to 512 association units; each fires when enough of its photocells "
        "see ink. Eight response units add up the votes of the association units that "
        "fire, each vote weighted by a knob (a potentiometer) that an electric motor "
        "turns. When the machine answers wrongly, the motors turn the knobs of the units "
        "that fired: learning is motors turning knobs [Bishop2006; Nagy2011].",
        code.replace("R-units", "response units (R1 to R8)", 1),
        "What 1960 reported: the US Navy's caption of June 1960 says the machine "
        "eventually recognised letters in one typeface without error, and 85% once a "
        "second typeface was added [Navy1960]. Our emulation of the first task is below.",
        f"Every number published about the machine and the IBM 704 simulations before "
        f"it, beside markone's reproduction with its exact interval and each difference "
        f"explained, is on the documentation's page \"{PUBLISHED_PAGE[0]}\" "
        f"(docs/{PUBLISHED_PAGE[1]}; markone sim run published makes its numbers) "
        f"[Navy1960; CornellChronicle2019; WikipediaMarkI2026].",
    ], [
        f"The machine learned {plural(len(info['chars']), 'letter')} ({info['chars']}) from "
        f"{plural(n, 'figure')} in {plural(info['epochs'], 'pass', 'passes')}, reading "
        f"every training figure right at the end." if info["converged"] else
        f"The machine saw {plural(n, 'figure')} of {plural(len(info['chars']), 'letter')} for "
        f"{plural(info['epochs'], 'pass', 'passes')} without reading all of them right.",
        f"On {plural(n, 'new figure')}, placed afresh in front of the camera, it misread "
        f"{misread} of {n}." + generalisation_note(info),
        f"At the motor speed the emulator assumes, this training would have taken "
        f"{format_minutes(info['sim_time_s'])} of motors turning "
        f"({plural(info['presentations'], 'figure')} shown).",
    ], figures, [(replay, "Replay the run in your browser, as the operators saw it"),
                 (run_path, "The run, as a file (JSON)")])
    names = {"files": {k: Path(v).name for k, v in info.get("files", {}).items()},
             "figures": [Path(f).name for f in info.get("figures", [])],
             "run_json": run_path.name}  # relative to the output folder
    return {**{k: v for k, v in info.items() if k not in ("summary_lines", "report")},
            **names}


def _separability_section(rep):
    import markone
    import verify
    from markone._internal.io import atomic_write
    from verify.certificate import (certificate_document, certificate_json,
                                    check_certificate_file)

    X, y = markone.datasets.xor()
    verdict = verify.check_separable(X, y, progress=False)  # the tour has its own lines
    path = atomic_write(rep.out / "xor-certificate.json", certificate_json(
        certificate_document(X, y, verdict, source={"builtin": "xor"})))
    checked = check_certificate_file(path).separable is False  # reads back, as a user's
    lam = ", ".join(str(v) for v in verdict.certificate.values())
    Xi, yi = markone.datasets.iris()
    keep = yi < 2
    sep = verify.check_separable(Xi[keep], yi[keep], progress=False)
    rep.section("Proof, not just a plot: separability with certificates", [
        "Can a straight line (a flat plane, in more dimensions) separate two classes? "
        "markone answers with evidence anyone can re-check by hand. If yes, the evidence "
        "is a line that works, checked on every point in exact fractions. If no, the "
        "evidence is a set of positive weights on the points that makes the two classes' "
        "weighted averages coincide, so that no line can put them on different sides "
        "(Gordan's theorem).",
        "XOR is the classic example that no line can solve: the four corners of a square, "
        "diagonal corners in the same class.",
    ], [
        f"XOR: no line separates it. The certificate gives every corner the weight "
        f"({lam}); with those weights both classes average to the centre of the square, "
        f"and a fresh check in exact arithmetic confirms it"
        + ("." if checked else ": the check FAILED."),
        f"Iris setosa against versicolor, all four measurements: a separating plane "
        f"exists, and it was checked exactly on all {int(keep.sum())} flowers."
        if sep.separable else "Iris setosa against versicolor: no separating plane.",
    ], links=[(path, "The XOR certificate, as a file that 'markone verify check' "
                     "re-checks")])
    return {"xor_separable": verdict.separable, "certificate_checked": bool(checked),
            "iris_separable": sep.separable}


def _worst_case_section(rep):
    import verify
    from markone._internal.style import count_axis, new_figure, save_figure, styled

    ms = list(range(1, 41))
    cases = [verify.orthonormal_case(m, labels=[(-1) ** i for i in range(m)]) for m in ms]

    @styled
    def draw():
        fig, (ax,) = new_figure(width=6.4, height=4.2)
        ax.plot(ms, [c.bound for c in cases], "k-", label="Novikoff's bound (R/γ)² = m")
        ax.plot(ms, [c.mistakes for c in cases], "o", color="#d95f02",
                label="the perceptron's mistakes")
        count_axis(ax.xaxis), count_axis(ax.yaxis)
        ax.set_xlabel("m, the number of examples (each at right angles to the others)")
        ax.set_ylabel("mistakes before it learns")
        ax.legend(loc="upper left")
        ax.set_title("The worst case meets the bound exactly")
        return save_figure(fig, rep.out / "orthonormal.png")

    path = draw()
    tight = all(c.mistakes == m for c, m in zip(cases, ms))
    rep.section("How many mistakes, at most? Novikoff's bound", [
        "In 1962 Albert Novikoff proved that when a line separates the classes with room "
        "to spare (a margin γ), and no example is farther than R from the origin, the "
        "perceptron makes at most (R/γ)² mistakes, whatever the order of the examples "
        "[Novikoff1962].",
        "Is that bound ever reached? Yes: m examples at right angles to each other (the "
        "unit vectors e1, e2, ..., em) force exactly m mistakes, and for them (R/γ)² = m. "
        "Notice that the dots sit exactly on the line.",
    ], [
        f"For every m from 1 to {ms[-1]}, the perceptron made exactly m mistakes: the "
        f"bound is met with equality." if tight else
        "For some m the mistakes fell short of the bound.",
    ], [(path, "Mistakes of the perceptron on m orthonormal examples (dots) and "
               "Novikoff's bound (line).")])
    return {"tight": tight, "m_max": ms[-1]}


def _xor_section(rep):
    import markone
    import verify
    from markone._internal.style import new_figure, save_figure, styled
    from markone._internal.io import plural
    from markone.plot import plot_cycle

    X, y = markone.datasets.xor()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", markone.ConvergenceWarning)
        run = markone.train(X, y)
    cyc = verify.check_cycling(X, y, progress=False)
    reach = verify.check_cycling(X, y, order="all", progress=False)

    @styled
    def draw():
        fig, (ax,) = new_figure(width=6.4, height=3.4)
        plot_cycle(ax, cyc.cycle, names=["weight on x₁", "weight on x₂", "intercept b"],
                   title=f"XOR: the weights go round a loop of "
                         f"{plural(cyc.period_updates, 'update')}, forever")
        return save_figure(fig, rep.out / "xor_cycle.png")

    path = draw()
    states = ", ".join("(" + ", ".join(str(v) for v in w) + ")" for w in cyc.cycle)
    rep.section("When no line exists: XOR goes round in circles", [
        "What does the perceptron do when no line can separate the classes? It never "
        "stops making mistakes; but it does not wander off either. On XOR, shown in the "
        "same order again and again, its weights come back to where they were after "
        "four updates and repeat that loop forever. The perceptron cycling theorem "
        "(Block and Levin, 1970) says the weights stay bounded on any data set "
        "[BlockLevin1970].",
        "That no single perceptron on the two inputs computes XOR is an elementary fact. "
        "Minsky and Papert's book Perceptrons (1969) put it in context: XOR is parity on "
        "two points, and the book proved how much of the retina the association units "
        "must see for parity and for connectedness as the retina grows "
        "[MinskyPapert1969].",
    ], [
        f"markone.train on XOR did not converge: after "
        f"{plural(run.epochs, 'pass', 'passes')} it still "
        f"{_wrong_in_every_pass(run.mistakes_per_epoch, len(y))}.",
        f"In the given order, the weights (w₁, w₂, b) visit {states} and come back: a "
        f"cycle of {plural(cyc.period_updates, 'update')}, found exactly.",
        f"Over every possible order of presentation, only "
        f"{plural(reach.states, 'weight vector')} can ever be reached, none of squared "
        f"length above {reach.max_norm_sq}"
        + (" (the search was complete)." if reach.complete else " (search cut short)."),
    ], [(path, "The weight vectors of XOR's cycle, one column per state in the "
               "order they are visited: after the last, the first comes again.")])
    return {"converged": run.converged, "epochs": run.epochs,
            "period_updates": cyc.period_updates, "reachable": reach.states,
            "max_norm_sq": reach.max_norm_sq}


def _wrong_in_every_pass(mistakes_per_pass, n):
    """The fewest mistakes of any pass over ``n`` examples, in words: "all" when
    every pass got every example wrong (not "at least 4" of 4).

    >>> _wrong_in_every_pass([4, 4, 4], 4), _wrong_in_every_pass([3, 2, 4], 4)
    ('got all 4 examples wrong in every pass', 'made at least 2 mistakes in every pass')
    """
    from markone._internal.io import plural

    least = min(mistakes_per_pass)
    if least == n:
        return f"got all {plural(n, 'example')} wrong in every pass"
    return f"made at least {plural(least, 'mistake')} in every pass"


#: The documentation's page of every published number, reproduced (title, file),
#: which the Mark I section names.
PUBLISHED_PAGE = ("What the Mark I did, and what markone does", "history-published.md")

#: The page's opening, before the numbers of this run.
_INTRO = ("In 1960 Frank Rosenblatt's Mark I Perceptron learned to tell printed letters "
          "apart: a camera, 400 photocells, a random tangle of wires and 512 little voting "
          "units, and electric motors turning knobs whenever it answered wrongly "
          "[Navy1960; Bishop2006; Nagy2011].")


def _cite_html(text):
    """``text`` as HTML, each cited source key a link to its entry under Sources."""
    from markone._internal.sources import link_citations

    return link_citations(html.escape(text, quote=False),
                          lambda key: f'<a href="#{key}">{key}</a>')


def _sources_html(keys):
    """The page's "Sources" section: the entry of every cited key, from the one
    bibliography (``markone._internal.sources``); unknown keys are an error."""
    from markone._internal.sources import NOT_FOUND, SOURCES, check_keys

    check_keys(keys)
    items = []
    for key in keys:
        s = SOURCES[key]
        ref = re.sub(r"\*([^*]+)\*", r"<i>\1</i>", html.escape(s.reference, quote=False))
        ident = "" if s.identifier == NOT_FOUND else f" {html.escape(s.identifier)}."
        caveat = f" ({html.escape(s.caveat)})" if s.caveat else ""
        items.append(f'<li id="{key}"><b>[{key}]</b> {ref}.{ident}{caveat}</li>')
    return ("<section><h2>Sources</h2><p>The historical statements above cite these "
            "sources by key; the documentation's page \"Sources\" lists them all, with "
            "what each is used for.</p><ul class=sources>" + "".join(items)
            + "</ul></section>")


def _write_index(rep, summary):
    from markone._internal.io import atomic_write
    from markone._internal.style import display_width_px
    from markone._internal.sources import cited_keys

    parts = []
    keys = dict.fromkeys(cited_keys(_INTRO))  # the cited sources, in order of citation
    for title, intro, facts, figures, links in rep.sections:
        keys.update(dict.fromkeys(k for text in [*intro, *facts] for k in cited_keys(text)))
        body = "".join(f"<p>{_cite_html(p)}</p>" for p in intro)
        body += "<ul class=facts>" + "".join(f"<li>{_cite_html(f)}</li>" for f in facts)
        body += "</ul>"
        for path, caption in figures:
            name = html.escape(path.name)
            body += (f'<figure><img src="{name}" width="{display_width_px(path)}" '
                     f'alt="{html.escape(caption)}"><figcaption>{html.escape(caption)}'
                     f"</figcaption></figure>")
        for path, text in links:
            body += f'<p class=link><a href="{html.escape(path.name)}">{html.escape(text)}</a></p>'
        parts.append(f"<section><h2>{html.escape(title)}</h2>{body}</section>")
    page = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>markone: a guided tour of the perceptron</title>
<style>
body {{ font: 20px/1.55 system-ui, sans-serif; max-width: 1100px; margin: 2em auto;
       padding: 0 1em; color: #1a1a1a; }}
h1 {{ font-size: 2em; margin-bottom: .2em; }}
h2 {{ border-bottom: 2px solid #ccc; margin-top: 2em; }}
/* Figures at their own size in pixels (text as large as this page's), centred on the
   screen even where wider than the column of text; shrunk to the screen's width where
   they are wider than it (a laptop's), so that nothing scrolls sideways. */
figure {{ margin: 1.2em 0; width: max-content; max-width: calc(100vw - 3rem);
         position: relative; left: 50%; transform: translateX(-50%); }}
figure img {{ display: block; max-width: 100%; height: auto; margin: 0 auto; }}
figcaption {{ color: #333; font-size: .9em; max-width: 50em; margin: .4em auto 0; }}
ul.facts {{ background: #f4f6f8; padding: .8em 1em .8em 2em; border-radius: 6px; }}
p.link a {{ font-weight: 600; }}
</style></head><body>
<h1>The perceptron, from 1960 to a proof</h1>
<p>{_cite_html(_INTRO)} This page walks through what
it did and what mathematics later proved about it. Every number below was computed just
now by <code>markone demo</code> (in {summary['seconds']:.0f} seconds); the figures
are the machine's and the theory's own output.</p>
{''.join(parts)}
{_sources_html(keys)}
<p>Made with markone. Run it again with <code>markone demo</code>; read more in the
documentation, starting with the page "Teaching with markone".</p>
</body></html>
"""
    atomic_write(rep.out / "index.html", page)
