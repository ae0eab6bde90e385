"""Cycling certificates (issue 41, item 5): ``markone verify cycling DATA --certificate
FILE`` writes the cycle of the cyclic-order run, ``markone verify check FILE`` runs it
again in the trusted Python check (``verify/certificate/cycles.py``) and refuses every
forgery: a wrong period, a skipped update, states that do not repeat, a tampered
number. ``tests/verify/coq/test_coq_cycles.py`` runs the same files through the checker
extracted from the Coq proofs."""

import json

import pytest

from markone.cli import main
from verify.certificate import data_sha256

#: Six examples whose cyclic run (with an intercept) enters its cycle after 37
#: presentations (14 updates), at example 1, and comes back every 3 passes.
DATA = [([-2, -1], -1), ([1, 0], 1), ([-3, -3], -1), ([3, 2], -1), ([2, 0], -1),
        ([2, -1], -1)]


def run(X, y, presentations):
    """The weights and the updated examples of markone's perceptron (a zero score is a
    mistake) from zero over ``presentations`` presentations of the cyclic order, by
    hand: the test's own run, in exact integers."""
    w, ups = [0] * (len(X[0]) + 1), []
    for t in range(presentations):
        i = t % len(X)
        z = [y[i] * v for v in [*X[i], 1]]
        if sum(a * b for a, b in zip(w, z)) <= 0:
            w = [a + b for a, b in zip(w, z)]
            ups.append(i)
    return w, ups


def write_csv(path, data):
    path.write_text("x1,x2,y\n" + "".join(f"{a},{b},{c}\n" for (a, b), c in data))
    return path


@pytest.fixture
def cycle_cert(tmp_path, capsys):
    """The certificate ``verify cycling`` writes for :data:`DATA`."""
    cert = tmp_path / "cycle.json"
    assert main(["verify", "cycling", str(write_csv(tmp_path / "d.csv", DATA)),
                 "--certificate", str(cert)]) == 0
    assert "certificate written" in capsys.readouterr().out
    return cert


def test_the_certificate_states_the_cycle_the_run_goes_through(cycle_cert):
    doc = json.loads(cycle_cert.read_text())
    X, y = [x for x, _ in DATA], [c for _, c in DATA]
    T, q, n = doc["transient_presentations"], doc["period_passes"], len(DATA)
    assert (doc["format"], doc["rule"], T, q) == ("markone.verify.cycling/1",
                                                   "nonstrict", 37, 3)
    w_T, ups = run(X, y, T)
    w_end, all_ups = run(X, y, T + q * n)
    assert w_end == w_T and len(ups) == doc["transient_updates"] == 14
    assert all_ups[len(ups):] == doc["cycle_updates"] == [1, 5, 1, 1, 3, 0]
    assert run(X, y, T - 1)[0] != run(X, y, T - 1 + q * n)[0]   # the least transient
    assert all(run(X, y, T + j * n)[0] != w_T for j in (1, 2))   # the least period
    assert doc["data_sha256"] == data_sha256(X, y)


def test_verify_check_runs_the_cycle_again(cycle_cert, capsys):
    assert main(["verify", "check", str(cycle_cert)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("OK: the perceptron from zero, in the cyclic order, enters a "
                          "cycle after 37 presentations (14 updates) and comes back "
                          "every 3 passes with 6 updates: it never converges"), out
    assert "d.csv present, sha256 matches" in out


def _retransient(doc, T):
    """``doc`` with the transient ``T`` and its true number of updates (so that only
    the cycle is wrong)."""
    X, y = doc["data"]["X"], doc["data"]["y"]
    doc["transient_presentations"], doc["transient_updates"] = T, len(run(X, y, T)[1])


def _tamper_number(doc):
    """An input changed, and the data's hash made again to match it."""
    doc["data"]["X"][2][0] = -2
    doc["data_sha256"] = data_sha256(doc["data"]["X"], doc["data"]["y"])


def _double_period(doc):
    doc["period_passes"] *= 2
    doc["cycle_updates"] *= 2


#: Forgeries of a valid cycling certificate, each readable, each wrong: what the
#: Python check says about it.
FORGED = {
    "a wrong period (twice the least)": (_double_period, "the period is not the least"),
    "a wrong period (states that do not come back)": (
        lambda d: d.update(period_passes=2, cycle_updates=d["cycle_updates"][:4]),
        "the states do not repeat"),
    "a skipped update": (lambda d: d["cycle_updates"].pop(), "the certificate lists 5"),
    "a skipped update, the next moved up": (lambda d: d["cycle_updates"].pop(2),
                                            "update 4 of the cycle is on example 2 (X[1])"),
    "an update added": (lambda d: d["cycle_updates"].append(4), "the certificate lists 7"),
    "an update on another example": (lambda d: d["cycle_updates"].__setitem__(1, 4),
                                     "update 2 of the cycle is on example 6 (X[5]), not on "
                                     "example 5 (X[4]) as the certificate's "
                                     "cycle_updates[1] says"),
    "states that do not repeat (the transient one short)": (
        lambda d: _retransient(d, 36), "the states do not repeat"),
    "a transient that is not the least": (lambda d: _retransient(d, 37 + 18),
                                          "the transient is not the least"),
    "a tampered transient count": (lambda d: d.update(transient_updates=13),
                                   "the transient makes 14 updates, not the 13"),
    "a tampered number (the hash made again)": (_tamper_number, "INVALID"),
}


def forged(cert, forge):
    doc = json.loads(cert.read_text())
    doc.pop("source")   # the embedded data are what is checked
    forge(doc)
    path = cert.with_name("forged.json")
    path.write_text(json.dumps(doc))
    return path


@pytest.mark.parametrize("name", FORGED)
def test_a_forged_cycle_is_refused(cycle_cert, capsys, name):
    forge, words = FORGED[name]
    assert main(["verify", "check", str(forged(cycle_cert, forge))]) == 1
    out = capsys.readouterr().out
    assert out.startswith("INVALID:") and words in out, out


@pytest.mark.parametrize("change,words", [
    ({"period_passes": 0}, "a period is at least one pass"),
    ({"transient_presentations": 10**9}, "over the limit of 100,000,000"),
    ({"cycle_updates": [1, "5"]}, "cycle_updates must be a list of integers >= 0"),
    ({"rule": "strict"}, "rule is 'strict'"),
    ({"transient_updates": -1}, "transient_updates is -1"),
    ({"separable": False}, "has the field 'separable'"),
])
def test_a_malformed_cycling_certificate_is_unreadable(cycle_cert, capsys, change, words):
    assert main(["verify", "check", str(forged(cycle_cert, lambda d: d.update(change)))
                 ]) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err, err


def test_the_presentation_limit_is_a_flag(cycle_cert, capsys):
    assert main(["verify", "check", "--max-presentations", "100", str(cycle_cert)]) == 2
    assert "over the limit of 100 " in capsys.readouterr().err


def test_rational_data_round_trip(tmp_path, capsys):
    """Fractions: the check runs on the rows times their common denominator."""
    data = [([f"{a}/3", f"{b}/2"], c) for (a, b), c in DATA]
    cert = tmp_path / "q.json"
    assert main(["verify", "cycling", str(write_csv(tmp_path / "q.csv", data)),
                 "--certificate", str(cert)]) == 0
    assert main(["verify", "check", str(cert)]) == 0
    capsys.readouterr()
    doc = json.loads(cert.read_text())
    assert doc["data"]["X"][0] == ["-2/3", "-1/2"]
    doc["cycle_updates"] = doc["cycle_updates"][1:]
    cert.write_text(json.dumps(doc))
    assert main(["verify", "check", str(cert)]) == 1


@pytest.mark.parametrize("args,words", [
    (["xor", "--rule", "strict"], "no certificate written to {}: the run converged"),
    (["xor", "--budget", "2"], "no certificate written to {}: no cycle was found"),
])
def test_no_cycle_no_certificate(tmp_path, capsys, args, words):
    cert = tmp_path / "c.json"
    main(["verify", "cycling", *args, "--certificate", str(cert)])
    assert words.format(cert) in capsys.readouterr().out and not cert.exists()


def test_the_certificate_is_of_the_cyclic_order(tmp_path, capsys):
    assert main(["verify", "cycling", "xor", "--order", "all", "--certificate",
                 str(tmp_path / "c.json")]) == 2
    assert "--certificate applies to --order cyclic" in capsys.readouterr().err
