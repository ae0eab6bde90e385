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

from markone._internal.io import plural
from verify.conformance.judge import CaseResult

__all__ = ["as_table", "as_json", "as_junit", "summary", "exit_status", "cause_lines",
           "failure_lines", "xml_text"]


def cause_lines(result: CaseResult) -> list[str]:
    """What a report says caused a failure: each diagnosis is a misreading of the rule
    that, re-run on the case, gives exactly the implementation's answer; when none
    does, the cause is "unexplained" (never a guess).

    >>> r = CaseResult(id="a", property="p", task="binary", variant="last",
    ...                status="fail", diagnosis=("the strict rule",))
    >>> cause_lines(r)
    ['cause (reproduced): the strict rule']
    """
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
    """The table people read: one line per case, then what failed and why."""
    rows = [("case", "property", "verdict")] + [(r.id, r.property, _verdict(r))
                                               for r in results]
    widths = [max(len(row[k]) for row in rows) for k in range(3)]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip()
             for row in rows]
    for r in results:
        if r.status in ("fail", "error") or (r.status == "n/a" and r.details):
            lines.append("")
            lines.append(f"{r.id} [{r.status}] ({r.task}, {r.variant}):")
            lines.extend(f"  {d}" for d in r.details)
            lines.extend(f"  {c}" for c in failure_lines(r))
            if r.status == "error" and show_errors and r.error and r.error != \
                    (r.details[0] if r.details else ""):
                lines.append("  the implementation's own output:")
                lines.extend(f"  | {t}" for t in r.error.splitlines())
    s = summary(results)
    lines.append("")
    lines.append(f"{impl_name}: {s['passed']} passed, {s['failed']} failed, "
                 f"{plural(s['errors'], 'error')}, {s['not_applicable']} not applicable "
                 f"(of {plural(s['total'], 'case')})")
    return "\n".join(lines)


def _jsonable_answer(answer):
    from markone._internal.io import to_jsonable

    return to_jsonable(answer)


def as_json(results: Sequence[CaseResult], impl_name: str) -> str:
    """The run as a JSON string (full vectors, nothing cut)."""
    doc = {"format": "markone.conformance.report/1", "implementation": impl_name,
           "summary": summary(results), "exit_status": exit_status(results),
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


def as_junit(results: Sequence[CaseResult], impl_name: str) -> str:
    """JUnit XML (one testsuite, one testcase per case) for CI systems.

    Whatever the implementation wrote (colours, NUL bytes) goes through
    :func:`xml_text`, so the report is well-formed XML."""
    s = summary(results)
    suite = ET.Element("testsuite", name=xml_text(f"markone conformance: {impl_name}"),
                       tests=str(s["total"]), failures=str(s["failed"]),
                       errors=str(s["errors"]), skipped=str(s["not_applicable"]))
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
