"""Label noise: the last iterate keeps jumping, the averaged one settles near Bayes.

Setup (Freund & Schapire 1999, the averaged/voted perceptron; the picture as in
Shalev-Shwartz & Ben-David 2014, §9.1 remarks, and Daumé III, *A Course in Machine
Learning*, §4.7): ``d``-dimensional standard Gaussian inputs, labels ``sign(u.x)``
from a random unit ``u`` with a fraction ``flip`` of them flipped at random; ``n``
training examples presented for ``passes`` passes, each pass a fresh permutation, no
intercept. Every ``record_every`` presentations the last iterate and the average of
all iterates so far (:func:`markone.batch.trace_many`) are scored by their exact
population error: for isotropic Gaussian inputs, a vector at angle ``theta`` from
``u`` disagrees with ``u`` on a fraction ``theta/pi`` of inputs, and flips are
independent of ``x``, so ``err(w) = flip + (1 - 2 flip) theta / pi``. The Bayes error
is ``flip``. ``results.json``: ``steps``, ``error_last`` and ``error_averaged``
(means over runs), ``bayes_error``, and the final errors of every run.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from markone._internal.validation import as_generator, child_seeds
from markone._internal.typing import ArrayLike, JSONDict, PathLike
from markone._internal.style import legend_outside, styled
from sims._common import check_between, chunked, inline, new_figure, save_figure

__all__ = ["NAME", "DEFAULTS", "SMALL", "tasks", "run_task", "combine", "plot", "run",
           "gaussian_error"]

NAME = "averaging_noise"
DEFAULTS = {"runs": 20, "d": 10, "n": 500, "flip": 0.1, "passes": 20,
            "record_every": 20, "batch": 5}
SMALL = {"runs": 4, "n": 100, "passes": 4, "batch": 2}


def gaussian_error(W: ArrayLike, u: ArrayLike, flip: float) -> np.ndarray:
    """Exact population error of each row of ``W`` for Gaussian inputs and noisy ``u``.

    ``flip + (1 - 2 flip) * angle(w, u) / pi``; a zero vector predicts +1 (error 1/2).

    >>> gaussian_error([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]], [1.0, 0.0], 0.1).tolist()
    [0.1, 0.5, 0.5]
    """
    W = np.asarray(W, dtype=float)
    u = np.asarray(u, dtype=float) / np.linalg.norm(u)
    norms = np.linalg.norm(W, axis=-1)
    cos = np.divide(W @ u, norms, out=np.zeros_like(norms), where=norms > 0)
    err = flip + (1 - 2 * flip) * np.arccos(np.clip(cos, -1.0, 1.0)) / np.pi
    return np.where(norms > 0, err, 0.5)


def _noisy_gaussian(n, d, flip, seed):
    rng = as_generator(seed)
    u = rng.standard_normal(d)
    u /= np.linalg.norm(u)
    X = rng.standard_normal((n, d))
    y = np.where(X @ u > 0, 1, -1) * np.where(rng.random(n) < flip, -1, 1)
    return X, y, u


def tasks(config: JSONDict, seed: int) -> list[JSONDict]:
    """Batches of runs, one seed per run drawn up front."""
    check_between(config["flip"], "flip", 0, 0.5, low_included=True, why="with half "
                  "the labels flipped or more there is nothing to learn")
    seeds = child_seeds(seed, config["runs"])
    keys = ("d", "n", "flip", "passes", "record_every")
    return [{"id": f"batch-{k:04d}", "seeds": part, **{x: config[x] for x in keys}}
            for k, part in enumerate(chunked(seeds, config["batch"]))]


def run_task(spec: JSONDict) -> JSONDict:
    """All runs of the batch at once; exact errors of both vectors at every record."""
    from markone.batch import shuffle_orders, trace_many

    Xs, ys, us, streams = [], [], [], []
    for s in spec["seeds"]:
        data_seed, order_seed = child_seeds(s, 2)
        X, y, u = _noisy_gaussian(spec["n"], spec["d"], spec["flip"], data_seed)
        Xs.append(X)
        ys.append(y)
        us.append(u)
        streams.append(shuffle_orders(order_seed, spec["n"], spec["passes"]).ravel())
    last, avg = trace_many(Xs, ys, np.stack(streams), intercept=False,
                           record_every=spec["record_every"])
    err_last = np.stack([gaussian_error(last[r], us[r], spec["flip"])
                         for r in range(len(us))])
    err_avg = np.stack([gaussian_error(avg[r], us[r], spec["flip"])
                        for r in range(len(us))])
    return {"error_last": err_last.tolist(), "error_averaged": err_avg.tolist()}


def combine(config: JSONDict, task_results: list[JSONDict]) -> JSONDict:
    """Mean error curves over runs, and each run's final errors."""
    last = np.concatenate([np.asarray(t["error_last"]) for t in task_results])
    avg = np.concatenate([np.asarray(t["error_averaged"]) for t in task_results])
    steps = config["record_every"] * np.arange(1, last.shape[1] + 1)
    return {
        "runs": int(last.shape[0]), "bayes_error": config["flip"],
        "steps": steps.tolist(), "epochs": (steps / config["n"]).tolist(),
        "error_last": last.mean(axis=0).tolist(),
        "error_averaged": avg.mean(axis=0).tolist(),
        "error_last_sd": last.std(axis=0).tolist(),
        "final_error_last": last[:, -1].tolist(),
        "final_error_averaged": avg[:, -1].tolist(),
    }


@styled
def plot(results: JSONDict, out_dir: PathLike) -> list[Path]:
    """Exact error of the last and the averaged vector along training."""
    fig, (ax,) = new_figure(width=6.5)
    ep = np.asarray(results["epochs"])
    last, sd = np.asarray(results["error_last"]), np.asarray(results["error_last_sd"])
    ax.fill_between(ep, last - sd, last + sd, color="C0", alpha=0.2, lw=0)
    ax.plot(ep, last, "C0-", lw=1, label="last iterate (mean ± sd over runs)")
    ax.plot(ep, results["error_averaged"], "C1-", lw=2, label="averaged perceptron")
    ax.axhline(results["bayes_error"], color="k", ls="--",
               label=f"Bayes error = flip rate {results['bayes_error']:g}")
    ax.set(xlabel="passes over the training set", ylabel="exact population error",
           ylim=(0, min(0.5, 3 * float(np.max(last[len(last) // 10:])))),
           title=f"The averaged vector under label noise\n"
                 f"({100 * results['bayes_error']:g}% of labels flipped, {results['runs']} runs)")
    legend_outside(ax)
    return [save_figure(fig, out_dir, "averaging_noise")]


run = inline(__name__)
