"""Reports of a conformance run: a readable table, JSON, and JUnit XML.

>>> from verify.conformance.judge import CaseResult
>>> r = [CaseResult(id="a", property="p", task="binary", variant="last", status="pass")]
>>> print(as_table(r, "impl"))
case  property  verdict
a     p         pass
<BLANKLINE>
impl: 1 passed, 0 failed, 0 errors, 0 not applicable (of 1 case)
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Sequence
from typing import Any

from markone._internal.io import plural, to_jsonable
from verify.conformance.fixes import UNEXPLAINED_FIX, fix_for
from verify.conformance.judge import CaseResult

__all__ = ["as_table", "as_json", "as_junit", "summary", "exit_status", "cause_lines",
           "failure_lines", "xml_text", "cause_summary", "summary_lines", "UNEXPLAINED",
           "unjudged_line"]


def cause_lines(result: CaseResult) -> list[str]:
    """What a report says caused a failure: each diagnosis is a misreading of the rule
    that, re-run on the case, gives exactly the implementation's answer; when none
    does, the cause is "unexplained" (never a guess).

    >>> r = CaseResult(id="a", property="p", task="binary", variant="last",
    ...                status="fail", diagnosis=("the strict rule",))
    >>> cause_lines(r)
    ['cause (reproduced): the strict rule']
    """
    if result.status == "error" and result.diagnosis:
        return [f"cause (reproduced): {d}" for d in result.diagnosis]
    if result.status != "fail":
        return []
    if not result.diagnosis:
        return ["cause: unexplained (no known misreading of the rule, re-run on this "
                "case, gives this answer)"]
    return [f"cause (reproduced): {d}" for d in result.diagnosis]


def failure_lines(result: CaseResult) -> list[str]:
    """The lines after a case's details: its first divergent step, then its causes."""
    return ([result.divergence] if result.divergence else []) + cause_lines(result)


def summary(results: Sequence[CaseResult]) -> dict[str, int]:
    """Counts of each status."""
    c = Counter(r.status for r in results)
    return {"passed": c["pass"], "failed": c["fail"], "errors": c["error"],
            "not_applicable": c["n/a"], "total": len(results)}


#: The summary's name for the failures no misreading reproduces.
UNEXPLAINED = "unexplained (no known misreading of the rule reproduces the answer)"


def cause_summary(results: Sequence[CaseResult]) -> list[dict[str, Any]]:
    """One entry per distinct cause of the failed cases (in order of first
    appearance; the unexplained ones last): ``cause`` (its words), ``cases`` (how
    many show it) and ``case_ids``, ``smallest_case`` (the shortest stream that shows
    it), ``first_divergent_step`` (that case's, "" when not bisected) and ``change``
    (what to change in the code, :func:`verify.conformance.fixes.fix_for`).

    >>> r = CaseResult(id="a", property="p", task="binary", variant="last",
    ...                status="fail", diagnosis=("the strict rule",),
    ...                rules=("rule:strict",), presentations=3)
    >>> [(e["cause"], e["cases"], e["change"][:25]) for e in cause_summary([r, r])]
    [('the strict rule', 2, 'count a zero score as a m')]
    """
    groups: dict[str, tuple[str, list[CaseResult]]] = {}
    for r in results:
        if r.status == "fail" and not r.diagnosis:
            groups.setdefault(UNEXPLAINED, (UNEXPLAINED_FIX, []))[1].append(r)
        elif r.status in ("fail", "error"):
            keys = r.rules if len(r.rules) == len(r.diagnosis) else ("",) * len(r.diagnosis)
            for words, key in zip(r.diagnosis, keys):
                groups.setdefault(words, (fix_for(key), []))[1].append(r)
    if UNEXPLAINED in groups:
        groups[UNEXPLAINED] = groups.pop(UNEXPLAINED)
    out = []
    for words, (change, shown) in groups.items():
        smallest = min(shown, key=lambda r: r.presentations)
        out.append({"cause": words, "cases": len(shown),
                    "case_ids": [r.id for r in shown], "smallest_case": smallest.id,
                    "first_divergent_step": smallest.divergence, "change": change})
    return out


def summary_lines(results: Sequence[CaseResult]) -> list[str]:
    """The summary of causes as a report's last lines (none when nothing failed)."""
    entries = cause_summary(results)
    if not entries:
        return []
    lines = ["", f"causes ({plural(len(entries), 'distinct cause')}; each: how many "
             "cases show it, the smallest, its first divergent step, what to change):",
             f"{'cases':>5}  {'smallest case':<28}  cause"]
    for e in entries:
        lines.append(f"{e['cases']:>5}  {e['smallest_case']:<28}  {e['cause']}")
        if e["first_divergent_step"]:
            lines.append(f"{'':>7}{e['first_divergent_step']}")
        lines.append(f"{'':>7}change: {e['change']}")
    return lines


def exit_status(results: Sequence[CaseResult]) -> int:
    """0 when no case failed or errored (cases that do not apply do not count), else 1."""
    s = summary(results)
    return 0 if s["failed"] == 0 and s["errors"] == 0 else 1


def _verdict(r):
    # a case the implementation's profile claims and fails is a failure, whatever
    # its diagnosis (a float64 implementation declares arithmetic=float64 and the
    # cases that need exact arithmetic become "n/a")
    return {"pass": "pass", "fail": "FAIL", "error": "ERROR", "n/a": "n/a"}[r.status]


def as_table(results: Sequence[CaseResult], impl_name: str, *, show_errors: bool = True
             ) -> str:
    """The table people read: one line per case, then what failed and why, the
    totals, and the summary of causes (:func:`summary_lines`)."""
    rows = [("case", "property", "verdict")] + [(r.id, r.property, _verdict(r))
                                               for r in results]
    widths = [max(len(row[k]) for row in rows) for k in range(3)]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip()
             for row in rows]
    for r in results:
        lines.extend(_case_lines(r, show_errors))
    s = summary(results)
    lines.append("")
    lines.append(f"{impl_name}: {s['passed']} passed, {s['failed']} failed, "
                 f"{plural(s['errors'], 'error')}, {s['not_applicable']} not applicable "
                 f"(of {plural(s['total'], 'case')})")
    lines.extend(unjudged_line(results))
    return "\n".join(lines + summary_lines(results))


def unjudged_line(results: Sequence[CaseResult]) -> list[str]:
    """The line under a table's totals that names each variant and task none of
    whose cases was judged (every one not applicable), with the reason when they
    share one, so a profile that lists them is not read as having passed them; no
    line when each was judged at least once.

    >>> r = [CaseResult(id=i, property="p", task=t, variant=v, status=s,
    ...                 details=("f(X, y, order) is binary",) if s == "n/a" else ())
    ...      for i, t, v, s in [("a", "binary", "last", "pass"),
    ...                         ("b", "binary", "voted", "n/a"),
    ...                         ("c", "kernel", "last", "n/a")]]
    >>> print(unjudged_line(r)[0])
    not judged, each of its cases not applicable: the voted variant, the kernel task (f(X, y, order) is binary)
    """
    names, unjudged = [], []
    for field in ("variant", "task"):
        values = dict.fromkeys(getattr(r, field) for r in results)
        out = [v for v in values
               if all(r.status == "n/a" for r in results if getattr(r, field) == v)]
        if out:
            names.append(f"the {_and(out)} {field if len(out) == 1 else field + 's'}")
            unjudged += [r for r in results if getattr(r, field) in out]
    if not names:
        return []
    reasons = {r.details[0] for r in unjudged if r.details}
    why = f" ({reasons.pop()})" if len(reasons) == 1 else " (reasons above)"
    return ["not judged, each of its cases not applicable: " + ", ".join(names) + why]


def _and(words: list[str]) -> str:
    """``"a"``, ``"a and b"``, ``"a, b and c"``."""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _case_lines(r: CaseResult, show_errors: bool) -> list[str]:
    """What the table says below its rows about one case: nothing when it passed."""
    if not (r.status in ("fail", "error") or (r.status == "n/a" and r.details)):
        return []
    lines = ["", f"{r.id} [{r.status}] ({r.task}, {r.variant}):"]
    lines.extend(f"  {d}" for d in r.details)
    lines.extend(f"  {c}" for c in failure_lines(r))
    if r.status == "error" and show_errors and r.error and r.error != \
            (r.details[0] if r.details else ""):
        lines.append("  the implementation's own output:")
        lines.extend(f"  | {t}" for t in r.error.splitlines())
    return lines


def _jsonable_answer(answer):
    return to_jsonable(answer)


def as_json(results: Sequence[CaseResult], impl_name: str) -> str:
    """The run as a JSON string (full vectors, nothing cut)."""
    doc = {"format": "markone.conformance.report/1", "implementation": impl_name,
           "summary": summary(results), "exit_status": exit_status(results),
           "causes": cause_summary(results),
           "cases": [{"id": r.id, "property": r.property, "task": r.task,
                      "variant": r.variant, "status": r.status,
                      "failed": list(r.failed), "details": list(r.details),
                      "diagnosis": list(r.diagnosis), "error": r.error,
                      "first_divergent_step": r.divergence,
                      "float64_can_pass": r.float64_can_pass,
                      "answer": _jsonable_answer(r.answer)} for r in results]}
    return json.dumps(doc, indent=1) + "\n"


#: ANSI escape sequences (colours, cursor moves) that an implementation may print.
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[@-Z\\-_]")
#: What XML 1.0 cannot hold, even escaped: NUL, control characters, lone surrogates.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_text(text: str) -> str:
    r"""``text`` as XML 1.0 can hold it: ANSI colour codes dropped, every other
    character XML forbids written out as its Python escape (``\x00``).

    >>> xml_text("\x1b[31mFAIL\x1b[0m at byte\x00")
    'FAIL at byte\\x00'
    """
    return _NOT_XML.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"),
                        _ANSI.sub("", text))


def _junit_properties(suite: ET.Element, results: Sequence[CaseResult]) -> None:
    """The summary of causes as the testsuite's properties: ``cause.N`` (its words),
    ``cause.N.cases``, ``cause.N.smallest_case``, ``cause.N.first_divergent_step``,
    ``cause.N.change``."""
    entries = cause_summary(results)
    if not entries:
        return
    props = ET.SubElement(suite, "properties")
    for n, e in enumerate(entries, 1):
        for field, value in (("", e["cause"]), (".cases", e["cases"]),
                             (".smallest_case", e["smallest_case"]),
                             (".first_divergent_step", e["first_divergent_step"]),
                             (".change", e["change"])):
            ET.SubElement(props, "property", name=f"cause.{n}{field}",
                          value=xml_text(str(value)))


def as_junit(results: Sequence[CaseResult], impl_name: str) -> str:
    """JUnit XML (one testsuite, one testcase per case) for CI systems.

    Whatever the implementation wrote (colours, NUL bytes) goes through
    :func:`xml_text`, so the report is well-formed XML."""
    s = summary(results)
    suite = ET.Element("testsuite", name=xml_text(f"markone conformance: {impl_name}"),
                       tests=str(s["total"]), failures=str(s["failed"]),
                       errors=str(s["errors"]), skipped=str(s["not_applicable"]))
    _junit_properties(suite, results)
    for r in results:
        case = ET.SubElement(suite, "testcase",
                             classname=xml_text(f"conformance.{r.property}"),
                             name=xml_text(r.id))
        text = xml_text("\n".join(list(r.details) + failure_lines(r)))
        if r.status == "fail":
            ET.SubElement(case, "failure",
                          message=xml_text("; ".join(r.failed))).text = text
        elif r.status == "error":
            ET.SubElement(case, "error", message=xml_text(
                r.details[0] if r.details else "error")).text = xml_text(r.error or "")
        elif r.status == "n/a":
            ET.SubElement(case, "skipped", message=text)
    ET.indent(suite)
    return ET.tostring(suite, encoding="unicode", xml_declaration=True) + "\n"
