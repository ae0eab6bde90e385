"""Fisher's iris: a separable pair trained exactly, and three classes with averaging.

Setup (Fisher 1936; the perceptron on iris as in Raschka, *Python Machine Learning*,
2015, ch. 2, and Bishop 2006 §4.1.7):

* **setosa vs versicolor** on petal length and width (cm) with a constant 1 appended,
  in the data's own order, trained exactly (the decimals as exact rationals): the
  weights, mistakes and passes; ``R`` and the maximum margin ``gamma`` (certified
  interval from :func:`verify.max_margin`) and Novikoff's bound ``(R/gamma)^2``.
* **all three classes** on the four standardised features (mean and sd of the
  training part), a stratified split of ``n_test`` test flowers, the argmax (Kesler)
  :class:`markone.MulticlassPerceptron` for ``max_epochs`` passes in ``orders`` shuffled
  orders: the last against the averaged weights, train and test accuracy
  (versicolor and virginica overlap, so the last iterate never settles).

``results.json``: ``binary`` (``w`` as exact fractions, ``mistakes``, ``epochs``,
``mistakes_per_epoch``, ``R``, ``gamma``, ``gamma_interval``, ``bound``,
``bound_holds``) and ``multiclass`` (``train_accuracy`` / ``test_accuracy`` per
variant, per order, and their means).
"""

from __future__ import annotations

import warnings
from pathlib import Path
from fractions import Fraction

import numpy as np

from markone._internal.validation import as_generator, child_seeds
from markone._internal.typing import JSONDict, PathLike
from markone._internal.style import legend_outside, styled
from verify.margin import novikoff_bound
from sims._common import inline, new_figure, save_figure
import markone
from verify import max_margin

__all__ = ["NAME", "DEFAULTS", "SMALL", "tasks", "run_task", "combine", "plot", "run"]

NAME = "iris"
DEFAULTS = {"n_test": 45, "orders": 20, "max_epochs": 100}
SMALL = {"orders": 3, "max_epochs": 10}
VARIANTS = ("last", "averaged")


def tasks(config: JSONDict, seed: int) -> list[JSONDict]:
    """The binary problem (deterministic) and the three-class sweep (seeded)."""
    return [{"id": "binary"},
            {"id": "multiclass", "seed": child_seeds(seed, 1)[0], **config}]


def _binary():
    X, y = markone.datasets.iris()
    keep = y < 2
    petal, labels = X[keep][:, 2:4], y[keep]
    res = markone.train(petal.astype(str), labels, exact=True)   # decimals, exactly
    m = max_margin(petal, labels)
    return {"w": [str(v) for v in res.w], "mistakes": res.mistakes,
            "epochs": res.epochs, "mistakes_per_epoch": list(res.mistakes_per_epoch),
            "converged": res.converged, "R": m.R, "gamma": m.gamma,
            "gamma_interval": [m.lower, m.upper], "bound": m.bound,
            "bound_holds": res.mistakes <= novikoff_bound(m.R, m.upper),
            "margin_u": m.u.tolist(), "petal": petal.tolist(), "labels": labels.tolist()}


def _split(y, n_test, rng):
    test = np.zeros(len(y), dtype=bool)
    classes = np.unique(y)
    for k, c in enumerate(classes):
        idx = np.flatnonzero(y == c)
        take = n_test // len(classes) + (k < n_test % len(classes))
        test[rng.choice(idx, size=take, replace=False)] = True
    return ~test, test


def _multiclass(spec):
    X, y = markone.datasets.iris()
    split_seed, order_seed = child_seeds(spec["seed"], 2)
    train, test = _split(y, spec["n_test"], as_generator(split_seed))
    mu, sd = X[train].mean(axis=0), X[train].std(axis=0)
    Z = (X - mu) / sd
    acc: dict[str, dict[str, list[float]]] = {v: {"train": [], "test": []}
                                              for v in VARIANTS}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", markone.ConvergenceWarning)
        for s in child_seeds(order_seed, spec["orders"]):
            for v in VARIANTS:
                clf = markone.MulticlassPerceptron(order="shuffle", seed=s, variant=v,
                                                   max_epochs=spec["max_epochs"])
                clf.fit(Z[train], y[train])
                acc[v]["train"].append(float(clf.score(Z[train], y[train])))
                acc[v]["test"].append(float(clf.score(Z[test], y[test])))
    return {"accuracy": acc, "n_train": int(train.sum()), "n_test": int(test.sum())}


def run_task(spec: JSONDict) -> JSONDict:
    """Run the binary problem or the three-class sweep."""
    return _binary() if spec["id"] == "binary" else _multiclass(spec)


def combine(config: JSONDict, task_results: list[JSONDict]) -> JSONDict:
    """The binary record and the mean accuracies of each variant."""
    binary, multi = task_results
    acc = multi["accuracy"]
    return {"binary": binary,
            "multiclass": {**multi,
                           "train_accuracy": {v: float(np.mean(acc[v]["train"]))
                                              for v in VARIANTS},
                           "test_accuracy": {v: float(np.mean(acc[v]["test"]))
                                             for v in VARIANTS}}}


@styled
def plot(results: JSONDict, out_dir: PathLike) -> list[Path]:
    """Petal data with the perceptron's and the max-margin lines; accuracies."""
    fig, (ax, bx) = new_figure(2, width=5)
    b = results["binary"]
    P, y = np.asarray(b["petal"]), np.asarray(b["labels"])
    for lab, name, mk in ((0, "setosa", "o"), (1, "versicolor", "s")):
        ax.scatter(P[y == lab, 0], P[y == lab, 1], s=14, marker=mk, alpha=0.7,
                   label=name)
    xs = np.linspace(P[:, 0].min() - 0.3, P[:, 0].max() + 0.3, 2)
    for (w1, w2, w0), style, lab in (
            ([float(Fraction(v)) for v in b["w"]], "k-",
             f"perceptron: {b['mistakes']} mistakes, {b['epochs']} passes"),
            (b["margin_u"], "C2--", f"max-margin u (augmented), γ = {b['gamma']:.3f}")):
        ax.plot(xs, -(w0 + w1 * xs) / w2, style, label=lab)
    ax.set(xlabel="petal length (cm)", ylabel="petal width (cm)",
           ylim=(P[:, 1].min() - 0.3, P[:, 1].max() + 0.3),
           title=f"Setosa or versicolor: w = ({', '.join(b['w'])})\n"
                 f"Novikoff's bound (R/γ)² = {b['bound']:.0f}")
    legend_outside(ax)
    acc = results["multiclass"]["accuracy"]
    x = np.arange(len(VARIANTS))
    for split, off in (("train", -0.2), ("test", 0.2)):
        vals = [acc[v][split] for v in VARIANTS]
        bx.bar(x + off, [np.mean(v) for v in vals], width=0.4,
               yerr=[np.std(v) for v in vals], capsize=3, label=f"{split}")
    bx.set_xticks(x, [f"{v} weights" for v in VARIANTS])
    bx.set(ylim=(0.5, 1.02), ylabel="accuracy (mean ± sd over orders)",
           title="three classes, standardised features")
    legend_outside(bx)
    return [save_figure(fig, out_dir, "iris")]


run = inline(__name__)
