"""verify drift at the extremes (issue 46, finding 3): rates, walks, probabilities and
plans from 1e-320 to 1e300. Horizons beyond float range are found and printed
exactly; a retraining plan too long for its budget or memory stops (exit 4) instead of
growing without end. The dangerous cases run in a subprocess whose address space is
capped (a safety net: on a bad day it fails, it never eats the machine's memory)."""

from __future__ import annotations

import json
import os
import re
import resource
import subprocess
import sys
import textwrap
from fractions import Fraction

import numpy as np
import pytest
from _paths import ROOT

from markone._internal.exact import fraction_g, fraction_pow10
from markone.cli import main
from markone.hardware import MarkI, MarkIParams
from verify.machine import drift_horizon, walk_horizon
from verify.machine.drift_walk import WalkTerms, retraining_schedule, walk_terms

EXTREMES = (1e-320, 1e-300, 1e-160, 1e-10, 0.05, 1e10, 1e160, 1e300)


@pytest.fixture(scope="module")
def tiny():
    """A two-figure machine with end stops: margins 1, one potentiometer each."""
    p = MarkIParams(retina_shape=(1, 2), n_a_units=2, n_excitatory=1, n_inhibitory=0,
                    max_fanout=1, theta=1, n_r_units=1, weight_range=(-3, 3))
    machine = MarkI(p, seed=0)
    figures, labels = np.array([[1, 0], [0, 1]]), ["a", "b"]
    return machine, machine.train(figures, labels), figures, labels


@pytest.fixture(scope="module")
def saved_run(tmp_path_factory):
    path = tmp_path_factory.mktemp("drift") / "run.json"
    assert main(["machine", "train", "--chars", "AB", "--per-class", "2", "--log",
                 "--set", "weight_range=[-4, 4]", "--out", str(path)]) == 0
    return path


def exact_value(text):
    """The rational that fraction_pow10 wrote (``a/b * 10**k``, ``10**k`` or ``p/q``)."""
    m = re.fullmatch(r"(?:(-?\d+(?:/\d+)?) \* )?(-?)(?:10\*\*(-?\d+))?|(-?\d+(?:/\d+)?)",
                     text)
    assert m, text
    if m[4]:
        return Fraction(m[4])
    return Fraction(m[1] or 1) * Fraction(10) ** int(m[3] or 0) * (-1 if m[2] else 1)


# ---- the numbers written without floats ---------------------------------------------

def test_fraction_g_writes_what_float_formatting_writes_at_any_size():
    rng = np.random.default_rng(0)
    for x in np.concatenate([10.0 ** rng.uniform(-323, 308, 400),
                             [5e-324, 1.7976931348623157e308, 9.9999995, 1e-5, 0.5]]):
        x = float(x)
        for digits in (1, 3, 6, 17):
            want = format(x, f".{digits}g")
            assert fraction_g(Fraction(x), digits) == want
            # the same digits 400 decades up and down, where no float reaches
            mantissa, _, exp = format(x, f".{digits - 1}e").partition("e")
            shifted = fraction_g(Fraction(x) * Fraction(10) ** 400, digits)
            assert shifted.startswith(mantissa.rstrip("0").rstrip(".")) and \
                int(shifted.partition("e")[2]) == int(exp) + 400


def test_fraction_pow10_is_exact_and_short():
    for q in (Fraction(3, 158 * 10**298), Fraction(10**320, 7), Fraction(1, 10**320),
              Fraction(22, 7), Fraction(-5, 10**400), Fraction(-1, 10**400), Fraction(0)):
        text = fraction_pow10(q)
        assert exact_value(text) == q and len(text) < 40
    assert fraction_pow10(Fraction(-1, 10**400)) == "-10**-400"   # not -1 * 10**-400


# ---- the library at the extremes ------------------------------------------------------

@pytest.mark.parametrize("rate", [1e-320, 1e300, Fraction(10) ** -400, Fraction(10) ** 400])
def test_a_bounded_horizon_beyond_float_range_is_exact(tiny, rate):
    machine, run, figures, labels = tiny
    h = drift_horizon(machine, run, figures, labels, drift_rate=rate)
    # one potentiometer per answer, margin 1 step, 2 steps of room to its stop
    assert h.horizon_s == 1 / Fraction(rate) and h.to_dict()["horizon_s"]


@pytest.mark.parametrize("sd", EXTREMES)
def test_the_walk_horizon_scales_as_one_over_sd_squared(tiny, sd):
    # the bound depends on sd and t only through sd**2 t, so sd**2 times the horizon
    # is the same at every sd (up to the horizon's 6 significant digits)
    machine, run, figures, labels = tiny
    ref = walk_horizon(machine, run, figures, labels, drift_sd=1.0, delta=0.01)
    h = walk_horizon(machine, run, figures, labels, drift_sd=sd, delta=0.01)
    assert h.horizon_s > 0 and h.probability <= h.delta
    scaled = h.horizon_s * h.drift_sd ** 2
    assert abs(scaled / ref.horizon_s - 1) < Fraction(2, 10**5)
    # and it is nearly tight: a little later the certified bound exceeds delta
    terms = walk_terms(machine, run, figures, labels)
    assert terms.probability(h.drift_sd, h.horizon_s * Fraction(1001, 1000)) > h.delta


@pytest.mark.parametrize("delta", [1e-320, 1e-100, 0.5, 1 - 1e-12])
def test_the_walk_horizon_at_extreme_probabilities(tiny, delta):
    machine, run, figures, labels = tiny
    h = walk_horizon(machine, run, figures, labels, drift_sd=0.1, delta=delta)
    terms = walk_terms(machine, run, figures, labels)
    assert 0 < h.probability <= h.delta
    assert terms.probability(h.drift_sd, h.horizon_s * Fraction(1001, 1000)) > h.delta


def test_a_tiny_certified_probability_stays_small_to_write():
    # erfc(10**6) is about 2**-1.4e12: written exactly it would fill the memory
    terms = WalkTerms(((Fraction(10**6), 1, 1),), (), 0)
    p = terms.probability(Fraction(1), Fraction(1, 2))
    assert 0 < p <= Fraction(1, 2**60_000) and p.denominator.bit_length() < 70_000


def test_a_schedule_beyond_its_budget_stops_and_says_so(tiny):
    machine, run, figures, labels = tiny
    terms = walk_terms(machine, run, figures, labels)
    full = retraining_schedule(terms, Fraction(1, 10), Fraction(1, 100), 1000)
    assert full.stopped_by == "" and len(full.times_s) == full.intervals - 1
    cut = retraining_schedule(terms, Fraction(1, 10), Fraction(1, 100), 1000,
                              budget=full.intervals - 1)
    assert (cut.stopped_by, cut.times_s, cut.per_interval) == ("budget", (), None)
    assert cut.intervals >= full.intervals        # at least as many as it needs
    exact = retraining_schedule(terms, Fraction(1, 10), Fraction(1, 100), 1000,
                                budget=full.intervals)
    assert exact.times_s == full.times_s
    # 10**12 seconds: billions of intervals, refused at once by the default budget
    far = walk_horizon(machine, run, figures, labels, drift_sd=0.1, delta=0.01,
                       over_s=10**12)
    assert far.stopped_by == far.schedule.stopped_by == "budget"
    assert far.schedule.intervals * far.horizon_s >= 10**12


def test_a_schedule_beyond_its_memory_stops_and_says_so(tiny):
    machine, run, figures, labels = tiny
    h = walk_horizon(machine, run, figures, labels, drift_sd=0.1, delta=0.01,
                     over_s=10**5, max_memory_gb=1e-6)
    assert h.stopped_by == "memory" and h.schedule.times_s == ()
    assert json.dumps(h.to_dict())                 # still a whole, writable result


def test_budget_and_memory_are_for_the_walk(tiny):
    machine, run, figures, labels = tiny
    with pytest.raises(ValueError, match="random-walk"):
        drift_horizon(machine, run, figures, labels, drift_rate=1, budget=10)
    with pytest.raises(ValueError, match="budget"):
        walk_horizon(machine, run, figures, labels, drift_sd=1, delta=0.1, budget=0)


# ---- the command, dangerous cases behind a memory cap ---------------------------------

LIMITED = textwrap.dedent("""\
    import contextlib, io, json, sys
    from markone.cli import main
    out = []
    for args in json.loads(sys.argv[1]):
        text = io.StringIO()
        with contextlib.redirect_stdout(text):
            try:
                code = main(args)
            except SystemExit as stop:
                code = stop.code
        out.append([code, text.getvalue()])
    print(json.dumps(out))
""")


def run_capped(commands, gb=2):
    """``main(args)`` for each of ``commands`` in one subprocess whose address space
    is capped at ``gb`` GB: ``[(exit status, stdout), ...]``."""
    def cap():
        resource.setrlimit(resource.RLIMIT_AS, (gb * 2**30, gb * 2**30))

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", LIMITED, json.dumps(commands)],
                          capture_output=True, text=True, preexec_fn=cap, env=env,
                          timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.splitlines()[-1])


def test_the_command_at_the_extremes(saved_run):
    run = str(saved_run)
    walks = [["verify", "drift", run, "--sd", str(sd), "--delta", "0.01"]
             for sd in (1e-320, 1e-300, 1e-160, 1e300)]
    rates = [["verify", "drift", run, "--rate", str(r)] for r in (1e-320, 1e300)]
    plans = [["verify", "drift", run, "--sd", "0.05", "--delta", "0.01", "--over", over]
             for over in ("1e12", "1e300", "1e-320")]
    deltas = [["verify", "drift", run, "--sd", "0.05", "--delta", d]
              for d in ("1e-320", "0.999999")]
    results = run_capped(walks + rates + plans + deltas)
    for (code, out), args in zip(results[:4], walks):
        assert code == 0, (args, out)
        horizon = exact_value(re.search(r"\(exactly (.+?)\) under", out)[1])
        assert out.startswith(f"walk horizon {fraction_g(horizon)} s")
        assert horizon > 0 and "potentiometers sit" not in out
    for (code, out), r in zip(results[4:6], (1e-320, 1e300)):
        assert code == 0
        horizon = exact_value(re.search(r"\(exactly (.+?)\) at", out)[1])
        rate = exact_value(re.search(r"at (.+?) steps/s", out)[1])
        assert rate == Fraction(str(r)) and out.startswith(
            f"drift horizon {fraction_g(horizon)} s")
    (far, f_out), (farther, ff_out), (near, n_out) = results[6:9]
    assert far == farther == 4 and "--budget" in f_out and "--budget" in ff_out
    assert near == 0 and "retraining: none needed" in n_out
    (tiny, t_out), (huge, h_out) = results[9:]
    # 1 - 1e-320 is 1 in six digits: the complement is written as such
    assert tiny == 0 and "with probability at least 1 - 1e-320 (" in t_out
    assert huge == 0 and "with probability at least 1e-06 (" in h_out


def test_the_command_stops_a_plan_by_budget_and_memory(saved_run, capsys, tmp_path):
    base = ["verify", "drift", str(saved_run), "--sd", "0.05", "--delta", "0.01",
            "--over", "1e5"]
    assert main(base + ["--budget", "10"]) == 4
    assert "raise --budget" in capsys.readouterr().out
    out_json = tmp_path / "h.json"
    assert main(base + ["--max-memory", "1e-6", "--json", str(out_json)]) == 4
    assert "raise --max-memory" in capsys.readouterr().out
    assert json.loads(out_json.read_text())["stopped_by"] == "memory"
    assert main(["verify", "drift", str(saved_run), "--rate", "1", "--budget", "10"]) == 2
    assert "for a random walk" in capsys.readouterr().err
