"""The worst case of a trained machine checked by the checker extracted from the Coq
proofs (issue 42; ``verify/coq/Tolerance.v``): the exact answers are accepted, on
small random R-units and on the Mark I's own claim; forged tolerances, counts, table
lines and witness sets are refused; ``markone verify tolerance --checker coq``."""

import dataclasses
import json
from fractions import Fraction

import numpy as np
import pytest

import verify.coq
from markone.cli import main
from markone.datasets import letters
from markone.hardware import MarkI
from verify.coq import missing_tools
from verify.coq.tolerance import check_tolerance_with_coq, tolerance_text
from verify.errors import CertificateError
from verify.machine import check_machine
from verify.machine.task import machine_task
from verify.machine.theory.worst_case import (r_unit_worst_case, trained_worst_case,
                                              wired_potentiometers)

MISSING = missing_tools()
pytestmark = pytest.mark.skipif(MISSING is not None, reason=f"Coq is absent: {MISSING}")


def task(seed, d=None, half=False):
    """A random R-unit (as tests/verify/machine/test_worst_case.py draws them)."""
    rng = np.random.default_rng(seed)
    while True:
        dd = d or int(rng.integers(2, 9))
        n = int(rng.integers(1, 6))
        X = rng.integers(0, 2, (n, dd))
        X[X.sum(axis=1) == 0, 0] = 1
        w = rng.integers(-6, 7, dd).astype(float) / (2 if half else 1)
        y = np.sign(X @ w).astype(int)
        if (y != 0).all():
            return w, X, y


def args(w, X, y):
    return w[None, :], X, y[:, None], np.ones((1, len(w)), bool)


def verdict(built, w, X, y, unit):
    try:
        return check_tolerance_with_coq(*args(w, X, y), [unit], built=built)
    except CertificateError:
        return False


@pytest.mark.parametrize("seed", range(12))
def test_the_exact_answers_are_accepted(coq_build, seed):
    w, X, y = task(seed, half=seed % 3 == 0)
    assert verdict(coq_build, w, X, y, r_unit_worst_case(w, X, y)) is True


def test_an_r_unit_without_every_potentiometer(coq_build):
    mask = np.ones((2, 6), bool)
    mask[1, 0] = False                 # R2 has no potentiometer on A-unit 0
    for seed in range(5, 100):         # a task R2 still answers right without it
        w, X, y = task(seed, d=6)
        W, T = np.stack([w, -w]), np.stack([y, -y], axis=1)
        W[1, 0] = 0.0
        if (T[:, 1] * (X @ W[1]) > 0).all():
            break
    units = trained_worst_case(W, X, T, mask)
    assert check_tolerance_with_coq(W, X, T, mask, units, built=coq_build) is True
    forged = dataclasses.replace(units[1], dead_units=(0,) + units[1].dead_units[1:])
    with pytest.raises(CertificateError, match="Tolerance.v"):   # A-unit 0: not wired
        check_tolerance_with_coq(W, X, T, mask, [units[0], forged], built=coq_build)


def forgeries(u, w, X, y):
    """Each a claim that is not the truth about the R-unit (name, changes)."""
    up, down = Fraction(1001, 1000), Fraction(999, 1000)
    yield "tolerance up", {"tolerance": u.tolerance * up}
    yield "tolerance down", {"tolerance": u.tolerance * down,
                             "tolerance_dead": (u.tolerance * down,) + u.tolerance_dead[1:]}
    yield "tolerance figure", {"tolerance_figure": len(y)}
    yield "dead + 1", {"dead": u.dead + 1, "tolerance_dead": u.tolerance_dead + (0,),
                       "dead_units": tuple(range(u.dead + 2))}
    if u.dead > 0:
        yield "dead - 1", {"dead": u.dead - 1, "tolerance_dead": u.tolerance_dead[:-1],
                           "dead_units": u.dead_units[:-1]}
    yield "a table line up", {"tolerance_dead": u.tolerance_dead[:-1]
                              + (u.tolerance_dead[-1] * up,)}
    yield "a table line down", {"tolerance_dead": u.tolerance_dead[:-1]
                                + (u.tolerance_dead[-1] * down,)}
    yield "a short table", {"tolerance_dead": u.tolerance_dead[:-1]}
    if u.stuck is not None:
        yield "stuck: any", {"stuck": None, "stuck_units": (), "stuck_figure": None}
        yield "stuck + 1", {"stuck": u.stuck + 1,
                            "stuck_units": tuple(range(u.stuck + 2))}
    else:
        yield "stuck: a number", {"stuck": 0, "stuck_units": (0,), "stuck_figure": 0}
    i = u.dead_figure
    harmless = [j for j in range(len(w)) if y[i] * w[j] * X[i, j] <= 0]
    if harmless:
        yield "a dead witness that breaks nothing", {
            "dead_units": tuple(harmless[:u.dead + 1])
            + tuple(j for j in range(len(w)) if j not in harmless)[
                :max(0, u.dead + 1 - len(harmless))]}
    yield "a dead witness named twice", {"dead_units": (u.dead_units[0],) * (u.dead + 1)
                                         if u.dead else (len(w),)}


@pytest.mark.parametrize("seed", range(6))
def test_forged_answers_and_witness_sets_are_refused(coq_build, seed):
    w, X, y = task(100 + seed, d=6)
    u = r_unit_worst_case(w, X, y)
    assert verdict(coq_build, w, X, y, u) is True
    refused = {}
    for name, change in forgeries(u, w, X, y):
        forged = dataclasses.replace(u, **change)
        if forged.dead_units and name.startswith("a dead witness that"):
            m = y[forged.dead_figure] * (np.where(np.isin(np.arange(len(w)),
                                                          forged.dead_units), 0,
                                                  X[forged.dead_figure]) @ w)
            if m <= 0:        # those units happen to break the figure: a true witness
                continue
        refused[name] = verdict(coq_build, w, X, y, forged)
    assert refused and not any(refused.values()), refused


def test_a_malformed_entry_is_a_value_error():
    w, X, y = task(1)
    d = r_unit_worst_case(w, X, y).to_dict()
    with pytest.raises(ValueError, match="exact numbers"):
        tolerance_text(*args(w, X, y), [dict(d, tolerance="abc")])
    with pytest.raises(ValueError, match="must be integers"):
        tolerance_text(*args(w, X, y), [dict(d, dead="1")])
    with pytest.raises(ValueError, match="must hold the fields"):
        tolerance_text(*args(w, X, y), [{"tolerance": "1"}])


@pytest.fixture(scope="module")
def mark_one():
    images, labels = letters("ABCD", per_class=2, seed=0)
    machine = MarkI(seed=0)
    machine.train(images, labels)
    return machine, images, labels


def test_the_claim_of_a_trained_mark_one_is_accepted(coq_build, mark_one):
    machine, images, labels = mark_one
    claim = check_machine(machine, images, labels).worst_case
    task_ = machine_task(machine, images, labels)
    r_units = json.loads(json.dumps(claim.to_dict()))["evidence"]["r_units"]
    assert check_tolerance_with_coq(machine.weights, task_.patterns, task_.targets,
                                    wired_potentiometers(machine), r_units,
                                    built=coq_build) is True
    r_units[0]["tolerance"] = str(Fraction(r_units[0]["tolerance"]) * 2)
    with pytest.raises(CertificateError, match="refutes the worst case"):
        check_tolerance_with_coq(machine.weights, task_.patterns, task_.targets,
                                 wired_potentiometers(machine), r_units, built=coq_build)


TASK = ["letters", "--chars", "AB", "--per-class", "2", "--weight-range", "3"]


def test_the_command_line(coq_build, monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(verify.coq, "build", lambda: coq_build)
    report = tmp_path / "report.json"
    assert main(["verify", "tolerance", *TASK, "--json", str(report),
                 "--checker", "coq"]) == 0
    assert "confirmed by the checker extracted from the Coq proofs" in \
        capsys.readouterr().out
    assert main(["verify", "tolerance", *TASK, "--recheck", str(report),
                 "--checker", "coq"]) == 0
    out = capsys.readouterr().out
    assert "worst_case    confirmed" in out and "confirmed by the checker extracted" in out
    d = json.loads(report.read_text())
    u = d["worst_case"]["evidence"]["r_units"][0]
    u["tolerance_dead"][0] = str(Fraction(u["tolerance_dead"][0]) / 2)
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(d))
    assert main(["verify", "tolerance", *TASK, "--recheck", str(forged),
                 "--checker", "coq"]) == 1
    assert "refuted: the checker extracted from the Coq proofs" in capsys.readouterr().out
