"""The Mark I's learning curve passes the figure audit on the smallest runs too."""

import numpy as np

from markone.datasets import letters
from markone.hardware import MarkI
from markone.hardware.plots import plot_learning_curve


def test_a_one_pass_run_draws_a_curve_whose_legend_covers_nothing(tmp_path):
    """One pass of four figures, every one misread: the point sits in the top right
    corner, where the legend used to be (``machine demo --max-epochs 1 --per-class 1``
    exited 2 under the strict audit the tests run with)."""
    images, labels = letters("ABCD", per_class=1, seed=0)
    run = MarkI(seed=0).train(images, labels, max_epochs=1, log=True)
    assert run.epochs == 1 and np.asarray(run.errors_per_epoch).tolist() == [4]
    assert plot_learning_curve(run, tmp_path / "curve.png").stat().st_size > 0
