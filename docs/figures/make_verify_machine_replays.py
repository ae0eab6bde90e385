"""Regenerate the counterexample replays of docs/verify-machine.md:
``python docs/figures/make_verify_machine_replays.py``.

Each counterexample is trained on the emulated Mark I with ``log=True`` and written as a
self-contained replay page (``markone.hardware.replay.write_replay_html``) into
``docs/replays/``.
"""

import sys
from pathlib import Path

import numpy as np

__all__ = ["end_stops_block", "short_exposure_blends", "main"]

OUT = Path(__file__).resolve().parent.parent / "replays"


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
                         epochs=1, log=True)


def short_exposure_blends():
    """A and B shown for 10 ms each: the machine reads the previous figure, converges
    on the blends, and then names every settled figure wrongly."""
    from markone._figures import letters
    from markone.hardware import MarkI, MarkIParams

    images, labels = letters("AB", per_class=1, seed=0)
    machine = MarkI(MarkIParams(exposure_s=0.01, n_r_units=1), seed=0)
    return machine.train(images, labels, epochs=30, log=True)


def main():
    from markone.hardware.replay import write_replay_html

    for name, make in (("end_stops_block", end_stops_block),
                       ("short_exposure_blends", short_exposure_blends)):
        path = write_replay_html(make(), OUT / f"{name}.html", speed=0.5)
        print(f"{path}: {path.stat().st_size // 1024} KB")


if __name__ == "__main__":
    sys.exit(main())
