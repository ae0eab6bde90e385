"""The counterexample replays of docs/verify-machine.md, built with the site.

Each counterexample is trained on the emulated Mark I with ``log=True`` and rendered as
a self-contained replay page (``markone.hardware.replay.render_replay_html``); the
MkDocs hook (``docs/hooks.py``) adds :func:`replay_pages` to the site as
``replays/*.html``, so no generated page is kept in git.
``python docs/figures/make_verify_machine_replays.py OUT`` writes them into ``OUT``.
"""

import sys
from pathlib import Path

import numpy as np

__all__ = ["end_stops_block", "symmetric_stops_block", "short_exposure_blends",
           "replay_pages", "main"]


def end_stops_block():
    """Two figures, two A-units, end stops at (0, 1): the blocking stream of
    check_machine, replayed for 6 passes (the machine never learns)."""
    from markone.hardware import MarkI, MarkIParams
    from verify.machine import check_machine

    p = MarkIParams(retina_shape=(1, 2), n_a_units=2, n_excitatory=1, n_inhibitory=0,
                    max_fanout=1, theta=1, n_r_units=1, weight_range=(0, 1))
    figures, labels = np.array([[1, 0], [0, 1]]), np.array(["a", "b"])
    machine = MarkI(p, seed=0)
    ev = check_machine(machine, figures, labels).r_units[0].converges.evidence
    return machine.train(figures, labels, order=ev["prefix"] + ev["cycle"] * 6,
                         max_epochs=1, log=True)


def symmetric_stops_block():
    """Two figures, two A-units, end stops at +/-1: every separating setting needs a
    weight of 2 steps; the blocking stream of check_machine, replayed for 6 passes."""
    from markone.hardware import MarkI, MarkIParams
    from verify.machine import check_machine

    p = MarkIParams(retina_shape=(1, 2), n_a_units=2, n_excitatory=1, n_inhibitory=0,
                    max_fanout=1, theta=1, n_r_units=1, weight_range=(-1, 1))
    figures, labels = np.array([[0, 1], [1, 1]]), np.array(["a", "b"])
    machine = MarkI(p, seed=0)
    ev = check_machine(machine, figures, labels).r_units[0].converges.evidence
    return machine.train(figures, labels, order=ev["prefix"] + ev["cycle"] * 6,
                         max_epochs=1, log=True)


def short_exposure_blends():
    """A and B shown for 10 ms each: the machine reads the previous figure, converges
    on the blends, and then names every settled figure wrongly."""
    from markone.datasets import letters
    from markone.hardware import MarkI, MarkIParams

    images, labels = letters("AB", per_class=1, seed=0)
    machine = MarkI(MarkIParams(exposure_s=0.01, n_r_units=1), seed=0)
    return machine.train(images, labels, max_epochs=30, log=True)


def replay_pages():
    """``{path in the site: HTML}`` of the counterexample replays."""
    from markone.hardware.replay import render_replay_html

    return {f"replays/{make.__name__}.html": render_replay_html(make(), speed=0.5)
            for make in (end_stops_block, symmetric_stops_block, short_exposure_blends)}


def main(argv):
    if len(argv) != 1:
        return "usage: python docs/figures/make_verify_machine_replays.py OUT_FOLDER"
    for name, html in replay_pages().items():
        path = Path(argv[0]) / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(html, encoding="utf-8")
        print(f"{path}: {len(html) // 1024} KB")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
