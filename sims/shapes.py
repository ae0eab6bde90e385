"""Discs and squares: two hand-made features, separable when large, not when small.

Setup (the "perceptron sorts plane figures by shape" demonstrations of the Mark I
Operators' Manual, 1960, recast as in Bishop 2006 §4.1.7 and Duda, Hart & Stork,
*Pattern Classification*, 2nd ed., 2001, §5.5): filled discs and squares on 24 x 24
images at random positions, sizes and rotations (:func:`markone.datasets.shapes`),
each described by two features (:func:`shape_features`): the *extent* (area over the
area of its bounding box: pi/4 for a disc, between 1/2 and 1 for a turned square)
and the largest centroid distance over the radius of the disc of equal area (1 for a
disc, sqrt(pi/2) = 1.25 for a square), standardised on the training set with a
constant 1 appended (``intercept=True``).

* Large shapes (8-18 px across): separability decided by LP with an exact certificate
  (:func:`verify.check_separable`, ``method="lp"``), the maximum margin gamma
  (:func:`verify.max_margin`), Novikoff's bound (R/gamma)^2, and the updates of the
  perceptron over ``orders`` shuffled orders (never above the bound).
* Small shapes (3-8 px): pixelation blurs the features and the classes overlap (not
  separable: the LP's exact Gordan certificate, ``certificate_size`` points); the
  last, pocket and averaged vectors after ``max_epochs`` passes, train and test error
  over ``orders`` shuffled orders.

``results.json``: ``large`` (``separable``, ``gamma``, ``R``, ``bound``, ``updates``,
``max_updates``) and ``small`` (``separable``, ``train_error`` / ``test_error`` per
variant, per order), and the features of both training sets for the figure.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np

from markone._internal.validation import child_seeds
from markone._internal.typing import ArrayLike, JSONDict, PathLike
from markone._internal.style import legend_outside, styled
from sims._common import inline, new_figure, save_figure
import markone
from markone.datasets import shapes
from verify import check_separable, max_margin

__all__ = ["NAME", "DEFAULTS", "SMALL", "tasks", "run_task", "combine", "plot", "run",
           "shape_features"]

NAME = "shapes"
DEFAULTS = {"n_train": 200, "n_test": 1000, "size": 24, "large": [8, 18],
            "small": [3, 8], "orders": 20, "max_epochs": 50}
SMALL = {"n_train": 60, "n_test": 200, "orders": 4, "max_epochs": 10}
VARIANTS = ("last", "pocket", "averaged")


def shape_features(images: ArrayLike) -> np.ndarray:
    """Extent and max centroid distance / equal-area radius of each binary image.

    Distances are measured between pixel centres, so a small figure's second feature
    falls below the continuous value (1 for a disc, 1.25 for a square): for a 4 x 4
    square it is ``1.5 sqrt(2) / sqrt(16 / pi) = 0.94``.

    >>> import numpy as np
    >>> square = np.zeros((1, 6, 6)); square[0, 1:5, 1:5] = 1
    >>> shape_features(square).round(2).tolist()
    [[1.0, 0.94]]
    """
    images = np.asarray(images, dtype=bool)
    feats = np.empty((len(images), 2))
    for i, im in enumerate(images):
        ys, xs = np.nonzero(im)
        area = ys.size
        box = (np.ptp(ys) + 1) * (np.ptp(xs) + 1)
        dist = np.hypot(ys - ys.mean(), xs - xs.mean()).max()
        feats[i] = area / box, dist / np.sqrt(area / np.pi)
    return feats


def _data(n, size, diameter, seed):
    images, labels = shapes(n, kinds=("disc", "square"), size=size,
                            diameter=tuple(diameter), seed=seed)
    return shape_features(images), np.where(labels == "square", 1, -1)


def _standardise(train, *others):
    mu, sd = train.mean(axis=0), train.std(axis=0)
    sd[sd == 0] = 1.0
    return [(a - mu) / sd for a in (train, *others)]


def tasks(config: JSONDict, seed: int) -> list[JSONDict]:
    """Two tasks: the large shapes and the small ones, each with its own seed."""
    s_large, s_small = child_seeds(seed, 2)
    return [{"id": kind, "kind": kind, "seed": s, **config}
            for kind, s in (("large", s_large), ("small", s_small))]


def run_task(spec: JSONDict) -> JSONDict:
    """Certify (non-)separability, then train over shuffled orders."""
    from markone.batch import train_many

    data_seed, test_seed, order_seed = child_seeds(spec["seed"], 3)
    F, y = _data(spec["n_train"], spec["size"], spec[spec["kind"]], data_seed)
    Ft, yt = _data(spec["n_test"], spec["size"], spec[spec["kind"]], test_seed)
    X, Xt = _standardise(F, Ft)
    verdict = check_separable(X, y, method="lp", progress=False)
    margin = max_margin(X, y)
    out = {"features": F.tolist(), "labels": y.tolist(), "separable": verdict.separable,
           "certificate_size": len(verdict.certificate or ()),
           "gamma": margin.gamma, "R": margin.R, "bound": margin.bound}
    seeds = child_seeds(order_seed, spec["orders"])
    if spec["kind"] == "large":
        res = train_many([X] * len(seeds), [y] * len(seeds), order="shuffle",
                         seeds=seeds, max_epochs=100_000)
        out.update(updates=res.mistakes.tolist(),
                   converged=bool(res.converged.all()),
                   w=[w.tolist() for w in res.w])
        return out
    errors = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", markone.ConvergenceWarning)
        for v in VARIANTS:
            fits = [markone.train(X, y, order="shuffle", seed=s, variant=v,
                                  max_epochs=spec["max_epochs"]) for s in seeds]
            errors[v] = {"train": [float(np.mean(f.predict(X) != y)) for f in fits],
                         "test": [float(np.mean(f.predict(Xt) != yt)) for f in fits]}
    out["errors"] = errors
    return out


def combine(config: JSONDict, task_results: list[JSONDict]) -> JSONDict:
    """The large-shape bound check and the small-shape error table."""
    large, small = task_results
    return {
        "large": {**large, "max_updates": max(large["updates"]),
                  "mean_updates": float(np.mean(large["updates"])),
                  "bound_holds": max(large["updates"]) <= large["bound"]},
        "small": {**small,
                  "train_error": {v: float(np.mean(small["errors"][v]["train"]))
                                  for v in VARIANTS},
                  "test_error": {v: float(np.mean(small["errors"][v]["test"]))
                                 for v in VARIANTS}},
    }


@styled
def plot(results: JSONDict, out_dir: PathLike) -> list[Path]:
    """The two features of both training sets, and the small shapes' errors."""
    fig, axes = new_figure(3, width=3.5, height=3.8)
    for ax, kind in zip(axes[:2], ("large", "small")):
        r = results[kind]
        F, y = np.asarray(r["features"]), np.asarray(r["labels"])
        for lab, name, mk in ((-1, "disc", "o"), (1, "square", "s")):
            ax.scatter(F[y == lab, 0], F[y == lab, 1], s=12, marker=mk,
                       alpha=0.6, label=name)
        verdict = (f"separable, γ = {r['gamma']:.3f}, (R/γ)² = {r['bound']:.0f}"
                   if r["separable"] else "not separable")
        ax.set(xlabel="extent (area / bounding box)",
               ylabel="max centroid distance / equal-area radius",
               title=f"{kind} shapes:\n{verdict}")
        legend_outside(ax)
    ax = axes[2]
    small = results["small"]
    x = np.arange(len(VARIANTS))
    for k, (split, off) in enumerate((("train", -0.2), ("test", 0.2))):
        vals = [small["errors"][v][split] for v in VARIANTS]
        ax.bar(x + off, [np.mean(v) for v in vals], width=0.4,
               yerr=[np.std(v) for v in vals], capsize=3, label=f"{split} error")
    ax.set_xticks(x, VARIANTS)
    ax.set(ylabel=f"error (mean ± sd over {len(small['errors']['last']['train'])} "
           "orders)", title="small shapes: which vector to keep")
    legend_outside(ax)
    return [save_figure(fig, out_dir, "shapes")]


run = inline(__name__)
