"""Speed of ``verify.check_machine`` and of the ``damage`` experiment (issue 12).

Prints, from one run:

* ``check_machine`` on the 26-letter task (10 jittered figures per letter, 260 figures)
  with the default machine (512 A-units, 8 R-units, end stops at +/-50): the target is
  under 10 s; how many R-units provably learn for every order; and the same task on a machine with end stops at +/-5, where the searches
  for streams that reach the stops and block learning run; for each stream that
  reaches a stop, what happens when the machine goes on after it (continuations);
* the share of that time spent deciding separability (the exact certificates), as a
  ratio;
* the ``damage`` experiment at its default size (target: under 2 minutes), in process.

Usage: ``flock /work/bench.lock python benchmarks/bench_machine_verify.py``.
"""

import string
import time

import numpy as np

from markone.datasets import letters
from markone.hardware import MarkI, MarkIParams


def timed(fn):
    """Wall-clock seconds (and the result); :func:`cpu_timed` gives CPU seconds too."""
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def cpu_timed(fn):
    c0, t0 = time.process_time(), time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, time.process_time() - c0, out


def main():
    images, labels = letters(string.ascii_uppercase, per_class=10, seed=0)
    machine = MarkI(seed=0)
    t_default, report = _default_machine(machine, images, labels)
    for r in report.r_units:
        _show_r_unit(r)
    _recheck_and_certificates(report, machine, images, labels, t_default)
    _tight_stops(images, labels, t_default)
    from sims import damage
    t_damage, res = timed(lambda: damage.run(seed=0))
    n = len(damage.tasks(damage.DEFAULTS, 0))
    print(f"damage experiment, default size ({n} trainings): {t_damage:.1f} s "
          f"(target < 120 s)")


def _default_machine(machine, images, labels):
    """Check the default machine (after a warm-up) and print what it proved."""
    from verify.machine import check_machine

    timed(lambda: check_machine(machine, images[:20], labels[:20]))   # compile, warm up
    t_default, cpu, report = cpu_timed(lambda: check_machine(machine, images, labels))
    decided = [r.end_stops.holds for r in report.r_units]
    print(f"check_machine, 26 letters x 10 figures, default machine: {t_default:.2f} s "
          f"wall, {cpu:.2f} s CPU (target < 10 s; wall/CPU {t_default / cpu:.1f} shows "
          f"the machine's load); end stops: never bite proven for "
          f"{sum(d is True for d in decided)}, a stream reaching them for "
          f"{sum(d is False for d in decided)}, unknown for "
          f"{sum(d is None for d in decided)} of 8 R-units")
    conv = [r.converges for r in report.r_units]
    print(f"  learns for every order: proven for {sum(c.holds is True for c in conv)} of "
          f"8 R-units ({sum(c.method == 'clipped Novikoff ball' for c in conv)} by the "
          f"clipped Novikoff ball, although a stop can bite), refuted for "
          f"{sum(c.holds is False for c in conv)}, unknown for "
          f"{sum(c.holds is None for c in conv)}")
    return t_default, report


def _show_r_unit(r):
    """One line for an R-unit whose end stops can bite or are open."""
    c = r.end_stops
    if c.holds is False:
        after = "; ".join(
            f"{k['order']} order: {k['outcome']}" + (
                f" at pass {k['passes']}" if k["outcome"] == "converges" else
                f" (cycle of {k.get('period')} passes)"
                if k["outcome"] == "never learns" else f" in {k['passes']} passes")
            for k in r.converges.evidence.get("continuations", []))
        then = (f"continued: {after}" if after else
                f"learns on every stream within "
                f"{r.converges.evidence['reinforcement_bound']} reinforcements "
                f"({r.converges.method})" if r.converges.holds else
                r.converges.method)
        print(f"  R{r.r_unit}: {c.method} stream of {len(c.evidence['stream'])} "
              f"presentations reaches a stop; {then}")
    elif c.holds is None:
        ev = {**c.evidence, **c.notes}     # the search records are notes
        own = ev.get("ball_refined", [])[-1:]
        print(f"  R{r.r_unit}: open; proven bound [{ev['min_weight_steps']}, "
              f"{ev['max_weight_steps']}] ({ev['bound_used']}"
              + (f"; A-unit {own[0]['a_unit']}'s {own[0]['by']} {own[0]['bound_steps']}"
                 if own else "") + f"), searches reached "
              f"{ev.get('beam_furthest_steps')} steps")


def _recheck_and_certificates(report, machine, images, labels, t_default):
    """Time the re-check of the report and the separability certificates alone."""
    from verify.machine import machine_task, recheck_report
    from verify.separability import check_separable

    t_re, checks = timed(lambda: recheck_report(report.to_dict(), machine, images,
                                                labels))
    n_ok = sum(c.status == "confirmed" for c in checks)
    print(f"  re-checking the report from its evidence: {t_re:.2f} s ({t_re / t_default:.2f}"
          f" of the check); {n_ok} of {len(checks)} claims confirmed, "
          f"{sum(c.status == 'refuted' for c in checks)} refuted")
    task = machine_task(machine, images, labels)
    t_sep, _ = timed(lambda: [check_separable(task.patterns.astype(np.int64),
                                              task.targets[:, r], intercept=False)
                              for r in range(8)])
    print(f"  of which exact separability certificates: {t_sep:.2f} s "
          f"({t_sep / t_default:.2f} of the total)")


def _tight_stops(images, labels, t_default):
    """Check the machine with end stops at +/-5 and compare its time."""
    from verify.machine import check_machine

    tight = MarkI(MarkIParams(weight_range=(-5, 5)), seed=0)
    t_tight, rep = timed(lambda: check_machine(tight, images, labels))
    hits = sum(r.end_stops.holds is False for r in rep.r_units)
    learns = [r.converges.holds for r in rep.r_units]
    print(f"check_machine, same task, end stops +/-5: {t_tight:.2f} s "
          f"({t_tight / t_default:.2f}x the default); {hits} R-units reach a stop; "
          f"learning for every order proven for {learns.count(True)}, refuted for "
          f"{learns.count(False)}, unknown for {learns.count(None)}")


if __name__ == "__main__":
    main()
