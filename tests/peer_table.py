"""Run the conformance suite against other perceptrons; write the peer pages.

The peers and how each is driven through its own API are in
``tests/peer_adapters.py`` (scikit-learn's ``Perceptron`` and
``SGDClassifier(loss="perceptron")``, River, mlxtend, Vowpal Wabbit, the npm package
wink-perceptron, and the repository's Node and C examples); what they need is listed
there (``python tests/peer_adapters.py`` names what is missing).

Scenario, per peer: every case of ``verify.conformance.build_cases()`` is run with no
profile; the profile its answers fit (``verify.conformance.fit.fitting_profile``:
arithmetic and learning rate) is found, and the suite run again under it (under
``arithmetic=float64`` when none fits: every peer computes in floating point). Each
failed case is cut down to a minimal reproducing case (presentations removed while
the peer still fails it for the same reason; at most :data:`MAX_TRIES` runs), with
its first divergent step and the code that reproduces it with the peer's API. The
verdicts, the reasons for n/a and the causes are all the checker's.

The results are recorded in ``docs/figures/peer_results.json``; ``docs/peer-table.md``
and ``docs/peer-differences.md`` are rendered from that record alone, so
``tests/verify/conformance/test_peer_table.py`` checks the pages against the record
by default and the record against the peers (slow).

    python tests/peer_table.py            # runs the peers, writes all three
    python tests/peer_table.py --render   # the pages from the record
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import warnings
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

RECORD = ROOT / "docs" / "figures" / "peer_results.json"
TABLE = ROOT / "docs" / "peer-table.md"
DIFFERENCES = ROOT / "docs" / "peer-differences.md"
#: The profile a peer is judged under when no profile fits its answers.
FALLBACK = "arithmetic=float64"
#: The most runs of a peer spent cutting one failed case down.
MAX_TRIES = 150
RECORD_FORMAT = "markone.peer-table/1"


# ---- running the peers ---------------------------------------------------------------

def judged(cases, adapter):
    """``(profile, its option, fitted?, results)``: the suite under the profile the
    answers fit (none when they pass without one), or under :data:`FALLBACK` when
    none fits."""
    from verify.conformance import Profile, run_suite
    from verify.conformance.fit import fitting_profile, suggestion

    bare = run_suite(cases, adapter, divergence=False)
    if all(r.status in ("pass", "n/a") for r in bare):
        return Profile(), "(none needed)", True, run_suite(cases, adapter)
    fit = fitting_profile(cases, bare, adapter)
    profile = fit or Profile.parse(FALLBACK)
    return (profile, suggestion(profile), fit is not None,
            run_suite(cases, adapter, profile=profile))


def run_peers():
    """The record of every peer (a JSON-ready dict)."""
    from peer_adapters import PEERS

    from verify.conformance import build_cases

    cases = build_cases()
    peers = []
    with warnings.catch_warnings(), tempfile.TemporaryDirectory() as folder:
        warnings.simplefilter("ignore")
        for peer in PEERS:
            adapter = peer.make(Path(folder))
            peers.append(peer_record(peer, cases, adapter))
    return {"format": RECORD_FORMAT, "peers": peers}


def probe_cases():
    """The problems of ``peer_adapters.PROBES`` as cases (the rule's exact answer
    expected), asked of every peer after the suite's."""
    from peer_adapters import PROBES

    from verify.conformance.protocol import PROBLEM_FORMAT, rule_text

    out = []
    for probe in PROBES:
        p = probe["problem"]
        problem = {"format": PROBLEM_FORMAT, "id": probe["id"],
                   "rule": rule_text(p["task"], p["variant"]), **p}
        case = {"id": probe["id"], "title": probe["id"], "property": "probe",
                "pins": probe["pins"], "task": p["task"], "variant": p["variant"],
                "float64_can_pass": True, "tolerance": 1e-9}
        out.append(reference(case, problem))
    return out


def _verdict(r):
    from verify.conformance.report import cause_lines

    return {"id": r.id, "status": r.status,
            "why": list(r.details[:1]) if r.status == "n/a" else
            [line.split(": ", 1)[1] for line in cause_lines(r)]}


def peer_record(peer, cases, adapter):
    """What the pages say of one peer: its profile, its verdicts (the suite's cases,
    then the probes), its differences."""
    from verify.conformance import run_suite

    profile, option, fitted, results = judged(cases, adapter)
    probes = probe_cases()
    results = results + run_suite(probes, adapter, profile=profile)
    verdicts = [_verdict(r) for r in results]
    by_id = {c["id"]: c for c in cases + probes}
    differences = [difference(by_id[r.id], r, adapter, profile, peer)
                   for r in results if r.status == "fail"]
    return {"name": peer.name, "settings": peer.settings, "note": peer.note,
            "profile": option, "fitted": fitted, "cases": verdicts,
            "differences": differences}


# ---- a minimal reproducing case -------------------------------------------------------

def subproblem(problem, order):
    """``problem`` on the stream ``order`` alone, its rows cut to those presented
    (numbered in order of first presentation)."""
    keep = list(dict.fromkeys(order))
    index = {i: k for k, i in enumerate(keep)}
    out = dict(problem, order=[index[i] for i in order])
    for key in ("X", "X_exact", "y"):
        if key in problem:
            out[key] = [problem[key][i] for i in keep]
    return out


def reference(case, problem):
    """``case`` asking ``problem``, with the rule's exact answer as expected."""
    from verify.conformance.protocol import exact_vector
    from verify.conformance.rule_runs import (
        binary_run,
        exact_rows,
        multiclass_run,
        variant_answer,
    )

    if problem["task"] == "multiclass":
        W, mistakes, argmax = multiclass_run(problem)
        queries = exact_rows({"X": problem["queries"], "intercept": problem["intercept"]})
        expected = {"mistakes": mistakes, "W": [exact_vector(r) for r in W],
                    "predictions": [argmax(q) for q in queries]}
    else:
        run = binary_run(problem)
        answer = variant_answer(run, problem)
        expected = {k: exact_vector(v) if k == "w" else v for k, v in answer.items()}
        if problem["variant"] != "last":
            expected["last_w"] = exact_vector(run.w)
    return dict(case, problem=problem, expected=expected)


def _fails_alike(case, adapter, profile, cause):
    """The result of ``case`` when the peer fails it with ``cause`` among its causes
    (any cause when ``cause`` is None), else None."""
    from verify.conformance import run_case

    try:
        r = run_case(case, adapter, profile, divergence=False)
    except (ValueError, KeyError, IndexError, ZeroDivisionError):
        return None
    if r.status != "fail" or (cause is not None and cause not in r.diagnosis):
        return None
    return r


def shrink(case, adapter, profile, cause):
    """The smallest stream found by removing runs of presentations (longest first,
    the tail before the head) while the peer still fails with ``cause``; at most
    :data:`MAX_TRIES` runs of the peer. Returns ``(case, result)``."""
    problem = case["problem"]
    order, tries = list(problem["order"]), 0
    best = (case, _fails_alike(case, adapter, profile, cause))
    size = max(1, len(order) // 2)
    while size >= 1 and tries < MAX_TRIES and len(order) > 1:
        for start in reversed(range(0, len(order), size)):
            cand = order[:start] + order[start + size:]
            tries += 1
            trial = reference(case, subproblem(problem, cand)) if cand else None
            got = trial and _fails_alike(trial, adapter, profile, cause)
            if got:
                order, best = cand, (trial, got)
                break
            if tries >= MAX_TRIES:
                break
        else:
            size //= 2
    return best


def first_step(case, adapter, profile):
    """The first divergent step of a (small) case: the checker's bisection for a
    binary case, else the first prefix of the stream the peer fails (saying so
    when the peer declines the shorter ones)."""
    from verify.conformance.divergence import first_divergence

    if case["task"] == "binary":
        step = first_divergence(dict(profile.expected_case(case),
                                     tolerance=profile.tolerance(case)), adapter)
        if step is not None:
            return step.describe()
    problem, declined = case["problem"], 0
    for t in range(1, len(problem["order"]) + 1):
        prefix = reference(case, dict(problem, order=problem["order"][:t]))
        got = _fails_alike(prefix, adapter, profile, None)
        if got:
            return _prefix_words(problem, t, prefix["expected"], got.answer, declined)
        declined = t if _declines(prefix, adapter, profile) else declined
    return ""


def _declines(case, adapter, profile):
    from verify.conformance import run_case

    return run_case(case, adapter, profile, divergence=False).status == "n/a"


def _prefix_words(problem, t, expected, got, declined):
    """The words of a first divergent step found on the prefixes."""
    i = problem["order"][t - 1]
    key = "W" if "W" in expected else "w"
    label = (f"class {problem['y'][i]}" if key == "W" else
             f"label {int(problem['y'][i]):+d}")
    words = (f"first divergent step: presentation {t} of {len(problem['order'])} "
             f"(example {i + 1}, X[{i}], {label}): after it the rule has {key} = "
             f"{_number(expected[key])}, the implementation {key} = "
             f"{_number((got or {}).get(key, []))}")
    if declined:
        first = "presentation" if declined == 1 else f"{declined} presentations"
        words += f" (the peer declines the first {first} alone, so the step may be earlier)"
    return words


def difference(case, result, adapter, profile, peer):
    """One difference of a peer: the case, its minimal reproduction, the causes."""
    from peer_adapters import snippet_of

    from verify.conformance.report import cause_lines

    cause = result.diagnosis[0] if result.diagnosis else None
    small, got = shrink(case, adapter, profile, cause)
    problem = small["problem"]
    shown = {k: problem[k] for k in ("intercept", "X", "X_exact", "y", "order",
                                     "n_classes", "queries") if k in problem}
    return {"case": case["id"], "causes": [line.split(": ", 1)[1]
                                           for line in cause_lines(result)],
            "fixes": _fixes(result),
            "problem": shown, "expected": _plain(small["expected"]),
            "got": _plain(got.answer or {}),
            "first_step": first_step(small, adapter, profile),
            "rerun": _rerun(peer, small, got, case, result),
            "snippet": snippet_of(peer.name, problem) or ""}


def _fixes(result):
    """What to change in the peer's code for each of its causes (the checker's
    words; none when the cause is unexplained)."""
    from verify.conformance.fixes import fix_for

    return list(dict.fromkeys(fix_for(key) for key in result.rules if key))


def _rerun(peer, small, got, case, result):
    """The peer's own re-run of what it does (``Peer.explain``), when it gives the
    answer on the minimal case and on the case it was cut from; else ""."""
    if peer.explain is None or not got.answer or not result.answer:
        return ""
    words = peer.explain(small["problem"], got.answer)
    whole = peer.explain(case["problem"], result.answer)
    return words if words and whole else ""


def _number(v):
    """A number as a report shows it: a fraction with a small denominator as it is,
    any other number as the shortest text of its float64 value."""
    if isinstance(v, list):
        return "[" + ", ".join(_number(x) for x in v) + "]"
    q = Fraction(v)
    small = q.denominator <= 1000 and abs(q.numerator) < 10**15
    return str(q) if small else repr(float(q))


def _plain(answer):
    """An answer's weights, mistakes and predictions, every number as the text a
    report shows."""
    return {k: _number(v) for k, v in sorted(answer.items())
            if k in ("w", "W", "mistakes", "predictions")}


# ---- the pages, from the record alone -------------------------------------------------

_CELL = {"pass": "pass", "fail": "**fail**", "error": "**error**", "n/a": "n/a"}


def unexplained(record):
    """``(peer, case)`` of every failure whose cause neither the checker nor the
    peer's re-run reproduces."""
    rerun = {(p["name"], d["case"]) for p in record["peers"]
             for d in p["differences"] if d["rerun"]}
    return [(p["name"], c["id"]) for p in record["peers"] for c in p["cases"]
            if c["status"] in ("fail", "error") and (p["name"], c["id"]) not in rerun
            and (not c["why"] or c["why"][0].startswith("unexplained"))]


def _is_probe(case_id):
    return case_id.startswith("probe-")


def _passed(peer):
    judged_cases = [c for c in peer["cases"] if c["status"] != "n/a"
                    and not _is_probe(c["id"])]
    return (f"{sum(c['status'] == 'pass' for c in judged_cases)} of "
            f"{len(judged_cases)}")


def _profile_cell(peer):
    if peer["profile"] == "(none needed)":
        return "none needed"
    return f"`{peer['profile']}`" + ("" if peer["fitted"] else " (none fits)")


def render_table(record):
    """docs/peer-table.md."""
    peers = record["peers"]
    names = [p["name"] for p in peers]
    lines = [
        "# Peer table: other perceptrons on the conformance suite", "",
        "Generated by `tests/peer_table.py` from its record "
        "(`docs/figures/peer_results.json`; `tests/verify/conformance/"
        "test_peer_table.py` checks this page against the record, and, marked slow, "
        "the record against the peers): every case of the [conformance suite]"
        "(test-your-perceptron.md) run through each library's own API (the adapters: "
        "`tests/peer_adapters.py`), and through `--cmd` for the Node and C "
        "examples (programs speaking the protocol). Each peer is first run with no "
        "profile; the row *profile* is the `--profile` its answers fit (the "
        "checker's fit: arithmetic and learning rate), and the cases are judged under "
        "it (under `arithmetic=float64` when none fits). *n/a*: the case is outside "
        "the profile or the API cannot express it; the reason is the checker's. "
        "What each failure is, with a minimal case to reproduce it: "
        "[peer differences](peer-differences.md).", "",
        "| case | " + " | ".join(names) + " |",
        "|---|" + "---|" * len(names),
        "| *profile* | " + " | ".join(_profile_cell(p) for p in peers) + " |"]
    ids = [c["id"] for c in peers[0]["cases"]]
    rows = {cid: " | ".join(_CELL[p["cases"][k]["status"]] for p in peers)
            for k, cid in enumerate(ids)}
    lines += [f"| `{cid}` | {rows[cid]} |" for cid in ids if not _is_probe(cid)]
    lines.append("| **passed** | " + " | ".join(_passed(p) for p in peers) + " |")
    probes = [f"| `{cid}` (probe) | {rows[cid]} |" for cid in ids if _is_probe(cid)]
    if probes:
        lines += probes + [
            "", "A *probe* is a problem beyond the suite (`PROBES` in "
            "`tests/peer_adapters.py`), asked of every peer under the same profile: it "
            "reaches a difference that no case of the suite reaches, and does not count "
            "in *passed*."]
    lines += ["", "## Settings and reasons", ""]
    for p in peers:
        lines += _peer_section(p)
    return "\n".join(lines)


def _peer_section(peer):
    lines = [f"### {peer['name']}", "", peer["settings"] + ".", ""]
    if peer["note"]:
        lines += [peer["note"], ""]
    failed = [c for c in peer["cases"] if c["status"] in ("fail", "error")]
    if not failed:
        lines += ["Passes every case it can express.", ""]
    rerun = {d["case"] for d in peer["differences"] if d["rerun"]}
    lines += [f"* `{c['id']}`: {'; '.join(c['why'])}"
              + ("; a re-run of the peer reproduces it (see [peer differences]"
                 "(peer-differences.md))" if c["id"] in rerun else "") + "."
              for c in failed]
    reasons = {}
    for c in peer["cases"]:
        if c["status"] == "n/a":
            reasons.setdefault(c["why"][0] if c["why"] else "", []).append(c["id"])
    lines += [f"* n/a ({len(ids)} {'case' if len(ids) == 1 else 'cases'}): {why}."
              for why, ids in reasons.items()]
    return lines + [""]


def _groups(peer):
    """The peer's differences grouped by their causes, the smallest case first."""
    groups = {}
    for d in peer["differences"]:
        groups.setdefault((tuple(d["causes"]), _needs(d)), []).append(d)
    return [sorted(ds, key=lambda d: (len(d["problem"]["order"]),
                                      len(json.dumps(d["problem"])), d["case"]))
            for ds in groups.values()]


#: How a peer's re-run (``Peer.explain``) introduces what the answer needs.
_NEEDS = ("replaced by the rule's: ", "no longer does without: ")


def _needs(d):
    """What the peer's re-run says the answer of a difference the checker leaves
    unexplained needs ("" when the checker names a cause, or the re-run names all
    it does): differences with other needs are grouped apart."""
    if not d["rerun"] or not d["causes"][0].startswith("unexplained"):
        return ""
    for words in _NEEDS:
        if words in d["rerun"]:
            return d["rerun"].split(words, 1)[1]
    return ""


def _count(n, word):
    return f"{n} {word}" + ("s" if n != 1 else "")


def _problem_lines(problem):
    lines = ["```json", json.dumps(problem), "```"]
    return lines


def _difference_lines(ds):
    d = ds[0]
    p = d["problem"]
    cases = ", ".join(f"`{x['case']}`" for x in ds)
    needs = _needs(d)
    heading = (f"unexplained by the checker; the peer's re-run needs: {needs}" if needs
               else "; ".join(d["causes"]))
    lines = [f"#### {heading}", "",
             f"Seen on {cases}. Minimal case (cut down from `{d['case']}`: "
             f"{_count(len(p['X']), 'row')}, "
             f"{_count(len(p['order']), 'presentation')}):", ""]
    lines += _problem_lines(p)
    step = d["first_step"].split(": ", 1)[-1] or "not located"
    lines += ["", "* **Expected** (Rosenblatt's rule): "
              + ", ".join(f"{k} = {v}" for k, v in d["expected"].items()) + ".",
              "* **Got**: " + ", ".join(f"{k} = {v}" for k, v in d["got"].items())
              + ".",
              f"* **First divergent step**: {step}.",
              f"* **Why it differs**: {'; '.join(d['causes'])}."]
    if d["fixes"]:
        lines.append(f"* **What to change** (the checker's words): "
                     f"{'; '.join(d['fixes'])}.")
    if d["rerun"]:
        lines.append(f"* **Reproduced by a re-run of the peer**: {d['rerun']} (on this "
                     f"case and on `{d['case']}`).")
    if d["snippet"]:
        js = d["snippet"].startswith("const")
        language = "JavaScript, Node" if js else "Python"
        lines += ["", f"To reproduce with the library alone ({language}):", "",
                  f"```{'js' if js else 'text'}", d["snippet"], "```"]
    return lines + [""]


def render_differences(record):
    """docs/peer-differences.md."""
    lines = [
        "# Peer differences: what the peers do that the rule does not", "",
        "Generated by `tests/peer_table.py` with the [peer table]"
        "(peer-table.md), from the same record. For each peer and each distinct "
        "cause of its failures: the cases that show it, a minimal case cut down from "
        "the smallest of them (presentations removed while the peer still fails it "
        "for the same cause), what Rosenblatt's rule gives and what the peer gave "
        "under the profile of the table, the first presentation at which the two "
        "part, and code that reproduces it with the peer's own API, to file upstream. "
        "A problem is written as the suite's protocol writes it: rows `X`, labels "
        "`y`, the stream `order` (indices into `X`, from 0), and `intercept` (a "
        "constant 1 appended last to every row). The causes are the checker's: a "
        "misreading of the rule that, re-run on the case, gives exactly the peer's "
        "answer; where the checker has none, a re-run of the peer's own loop "
        "(`tests/peer_adapters.py`) says what it does, checked the same way. "
        "The slow test `tests/verify/conformance/test_peer_table.py` runs every "
        "Python snippet below.", ""]
    for peer in record["peers"]:
        lines += [f"## {peer['name']}", "",
                  f"Judged under {_profile_cell(peer)}; passes {_passed(peer)} of "
                  "the cases it can express.", ""]
        if peer["note"]:
            lines += [peer["note"], ""]
        groups = _groups(peer)
        if not groups:
            lines += ["No difference.", ""]
        for ds in groups:
            lines += _difference_lines(ds)
    return "\n".join(lines)


def write_pages(record):
    from markone._internal.io import atomic_write

    atomic_write(TABLE, render_table(record))
    atomic_write(DIFFERENCES, render_differences(record))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--render", action="store_true",
                        help="write the pages from the record, without running a peer")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))       # run as a script: the packages of the checkout
    if not args.render:
        from peer_adapters import missing

        lacking = missing()
        if lacking:
            sys.exit("the peers need: " + "; ".join(lacking))
        from markone._internal.io import write_json

        write_json(RECORD, run_peers())
    record = json.loads(RECORD.read_text())
    write_pages(record)
    print(f"wrote {TABLE.name} and {DIFFERENCES.name}")


if __name__ == "__main__":
    main()
