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
import time
from pathlib import Path

from markone.cli import add_command, nonnegative_int

__all__ = ["register", "run_demo"]


def register(sub):
    p = add_command(
        sub, "demo",
        help="the tour: Mark I learning letters, a certificate, the worst case, XOR's cycle",
        description="Writes figures, a certificate, the machine run, a browser replay "
        "and index.html to the output folder, and prints a summary. Takes well under a "
        "minute.",
        example="markone demo --out markone-demo && open markone-demo/index.html",
        func=_main,
    )
    p.add_argument("--out", default="markone-demo", help="output folder")
    p.add_argument("--seed", type=nonnegative_int, default=0,
                   help="seed of the machine and its data")


def _main(args):
    run_demo(args.out, seed=args.seed)
    return 0


class _Report:
    """Collects printed lines and the figures of the index page."""

    def __init__(self, out, echo):
        self.out = out
        self.echo = echo
        self.sections = []  # (title, paragraphs, files)

    def section(self, title, lines, files=()):
        self.echo(f"\n== {title}")
        for ln in lines:
            self.echo(f"   {ln}")
        self.sections.append((title, list(lines), [Path(f).name for f in files]))


def run_demo(out="markone-demo", *, seed=0, echo=print):
    """Run the tour, write everything to ``out``, return a summary dict.

    >>> import tempfile
    >>> summary = run_demo(tempfile.mkdtemp(), echo=lambda s: None)  # doctest: +SKIP
    """
    import matplotlib

    from markone._io import staged_output, write_json
    from markone._validation import check_int_at_least

    matplotlib.use("Agg")
    check_int_at_least(seed, "seed", 0)
    out = Path(out)
    t0 = time.perf_counter()
    with staged_output(out) as stage:  # all files or none: a failure leaves out as it was
        rep = _Report(stage, echo)
        summary = {"out": str(out)}
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
    import warnings

    import matplotlib.pyplot as plt

    import markone
    from markone._io import write_figure
    from markone.plot import plot_boundary, plot_mistakes

    X, y = markone.datasets.iris()
    keep = y < 2
    Xs, ys = X[keep][:, 2:], y[keep]
    res = markone.train(Xs, ys)
    Xv, yv = X[y > 0][:, 2:], y[y > 0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", markone.ConvergenceWarning)
        hard = markone.train(Xv, yv, max_epochs=100)
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6))
    plot_boundary(axes[0], Xs, ys, res, labels=["setosa", "versicolor"],
                  title=f"iris petals: converged after {res.mistakes} mistakes")
    axes[0].set_xlabel("petal length (cm)")
    axes[0].set_ylabel("petal width (cm)")
    plot_mistakes(axes[1], hard, title="versicolor vs virginica: mistakes never stop")
    fig.tight_layout()
    path = write_figure(fig, rep.out / "core_iris.png")
    w = ", ".join(f"{v:g}" for v in res.w)
    rep.section("The learner core: iris", [
        f"setosa vs versicolor (petal length, width): converged in {res.epochs} passes "
        f"with {res.mistakes} mistakes; w = [{w}] (last entry: the intercept weight)",
        f"versicolor vs virginica: not separable, still {hard.mistakes_per_epoch[-1]} "
        f"mistakes in pass {hard.epochs} (converged={hard.converged})",
    ], [path])
    return {"mistakes": res.mistakes, "epochs": res.epochs, "w": res.w.tolist(),
            "hard_converged": hard.converged}


def _machine_section(rep, seed):
    from markone.hardware.demo import letters_demo
    from markone.hardware.replay import write_replay_html

    info = letters_demo(rep.out, seed=seed, echo=lambda s: None)
    run_path = Path(info["run_json"])
    replay = write_replay_html(run_path, rep.out / "replay.html")
    lines = info.get("summary_lines") or [f"{k}: {v}" for k, v in info.items()
                                          if k not in ("figures", "run_json")]
    lines = [ln.strip() for ln in lines if not ln.strip().startswith("wrote ")]
    lines.append(f"replay the run in a browser: {replay.name}")
    rep.section("The Mark I learning letters", lines,
                [*info.get("figures", []), run_path, replay])
    names = {"files": {k: Path(v).name for k, v in info.get("files", {}).items()},
             "figures": [Path(f).name for f in info.get("figures", [])],
             "run_json": run_path.name}  # relative to the output folder
    return {**{k: v for k, v in info.items() if k not in ("summary_lines", "report")},
            **names}


def _separability_section(rep):
    import markone
    import verify
    from markone._io import write_json

    X, y = markone.datasets.xor()
    verdict = verify.check_separable(X, y)
    checked = verify.check_certificate(X, y, verdict)
    path = write_json(rep.out / "xor-certificate.json", {
        "data": {"X": X.tolist(), "y": y.tolist()}, "verdict": verdict})
    lam = ", ".join(f"{i}: {v}" for i, v in verdict.certificate.items())
    Xi, yi = markone.datasets.iris()
    keep = yi < 2
    sep = verify.check_separable(Xi[keep], yi[keep])
    rep.section("Separability, with certificates", [
        f"XOR: separable={verdict.separable} ({verdict.method}); certificate lambda = "
        f"{{{lam}}}: sum lambda_i y_i [x_i, 1] = 0 exactly, re-checked: {checked}",
        f"iris setosa vs versicolor (4 features): separable={sep.separable}, witness "
        f"checked exactly on all {int(keep.sum())} flowers ({sep.method})",
    ], [path])
    return {"xor_separable": verdict.separable, "certificate_checked": bool(checked),
            "iris_separable": sep.separable}


def _worst_case_section(rep):
    import matplotlib.pyplot as plt

    import verify
    from markone._io import write_figure

    ms = list(range(1, 41))
    cases = [verify.orthonormal_case(m, labels=[(-1) ** i for i in range(m)]) for m in ms]
    fig, ax = plt.subplots(figsize=(4.8, 3.4))
    ax.plot(ms, [c.bound for c in cases], "k-", label="Novikoff bound (R/gamma)^2 = m")
    ax.plot(ms, [c.mistakes for c in cases], "o", ms=4, color="#d95f02",
            label="perceptron mistakes")
    ax.set_xlabel("m (orthonormal examples)")
    ax.set_ylabel("mistakes")
    ax.legend(fontsize=8)
    ax.set_title("the bound is tight", fontsize=10)
    fig.tight_layout()
    path = write_figure(fig, rep.out / "orthonormal.png")
    tight = all(c.mistakes == m for c, m in zip(cases, ms))
    rep.section("The worst case meets Novikoff's bound", [
        f"orthonormal e_1..e_m, R = 1, gamma = 1/sqrt(m): exactly m mistakes for every "
        f"m in 1..{ms[-1]}: {tight}",
    ], [path])
    return {"tight": tight, "m_max": ms[-1]}


def _xor_section(rep):
    import warnings

    import matplotlib.pyplot as plt
    import numpy as np

    import markone
    import verify
    from markone._io import write_figure

    X, y = markone.datasets.xor()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", markone.ConvergenceWarning)
        run = markone.train(X, y)
    cyc = verify.check_cycling(X, y)
    reach = verify.check_cycling(X, y, order="all")
    W = np.array(cyc.cycle, dtype=float)
    fig = plt.figure(figsize=(4.8, 4))
    ax = fig.add_subplot(projection="3d")
    loop = np.vstack([W, W[:1]])
    ax.plot(loop[:, 0], loop[:, 1], loop[:, 2], "-o", color="#7570b3")
    for k, w in enumerate(W):
        ax.text(*w, f" w{k}", fontsize=8)
    ax.set_xlabel("w1")
    ax.set_ylabel("w2")
    ax.set_zlabel("bias")
    ax.set_title(f"XOR: a cycle of {cyc.period_updates} updates", fontsize=10)
    path = write_figure(fig, rep.out / "xor_cycle.png")
    rep.section("XOR cycles, and stays bounded", [
        f"markone.train on XOR: converged={run.converged} after {run.epochs} passes, "
        f"at least {min(run.mistakes_per_epoch)} mistakes in every pass",
        cyc.message,
        f"over every order of presentation: {reach.states} reachable weight vectors, "
        f"largest squared norm {reach.max_norm_sq} (complete={reach.complete})",
    ], [path])
    return {"converged": run.converged, "epochs": run.epochs,
            "period_updates": cyc.period_updates, "reachable": reach.states,
            "max_norm_sq": reach.max_norm_sq}


def _write_index(rep, summary):
    from markone._io import atomic_write

    parts = []
    for title, lines, files in rep.sections:
        items = "".join(f"<li>{html.escape(ln)}</li>" for ln in lines)
        media = []
        for f in files:
            esc = html.escape(f)
            if f.endswith((".png", ".gif")):
                media.append(f'<figure><img src="{esc}" alt="{html.escape(title)}: {esc}">'
                             f"<figcaption>{esc}</figcaption></figure>")
            else:
                media.append(f'<p><a href="{esc}">{esc}</a></p>')
        parts.append(f"<section><h2>{html.escape(title)}</h2><ul>{items}</ul>"
                     f"{''.join(media)}</section>")
    page = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<title>markone demo</title>
<style>
body {{ font: 17px/1.5 system-ui, sans-serif; max-width: 1000px; margin: 2em auto;
       padding: 0 1em; color: #222; }}
h1 {{ font-size: 1.8em; }} h2 {{ border-bottom: 1px solid #ccc; }}
img {{ max-width: 100%; }} figure {{ margin: 1em 0; }}
figcaption {{ color: #666; font-size: .85em; }}
</style></head><body>
<h1>markone: the tour</h1>
<p>Rosenblatt's Mark I Perceptron emulated, perceptron theory verified, written by
<code>markone demo</code> in {summary['seconds']:.1f} s.</p>
{''.join(parts)}
</body></html>
"""
    atomic_write(rep.out / "index.html", page)
