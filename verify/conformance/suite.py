"""Write, read and run a conformance suite.

A suite is a folder: ``manifest.json`` (format, version, one entry per case with its
file and SHA-256), ``schema.json`` (the JSON Schema of cases and manifests) and one
``<id>.json`` per case. :func:`write_suite` builds everything in memory, validates it
against the schema and only then writes the folder (via a temporary folder renamed
into place, so no half-written suite is ever left). :func:`load_cases` reads a suite
folder, one case file, or a single case written by ``markone adversary NAME --out``,
checking the schema and the hashes. :func:`run_suite` runs an adapter on the cases.

>>> import tempfile, os
>>> out = os.path.join(tempfile.mkdtemp(), "suite")
>>> manifest = write_suite(out, cases=build_cases()[:1])
>>> [c["id"] for c in load_cases(out)]
['zero-score-orthonormal']
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import os
import shutil
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

from markone import __version__
from markone._internal.io import read_json, temporary_beside, to_jsonable
from markone._internal.signals import raise_if_terminated
from markone._internal.typing import JSONDict, PathLike
from verify.conformance.adapters import Adapter
from verify.errors import ImplementationError, NotApplicable
from verify.conformance.cases import build_cases
from verify.conformance.divergence import first_divergence
from verify.conformance.judge import CaseResult, judge
from verify.conformance.misreadings import nonfinite_json
from verify.conformance.profile import Profile
from verify.conformance.protocol import (
    CASE_FORMAT,
    LEGACY_CASE_FORMAT,
    MANIFEST_FORMAT,
    SUITE_VERSION,
    from_legacy_case,
    problem_of,
    schema,
)
from verify.conformance.refutation import drop_ruled_out

__all__ = ["write_suite", "load_cases", "run_case", "run_suite", "validate",
           "select_cases", "case_tags"]


def _dumps(doc):
    return json.dumps(to_jsonable(doc), indent=1, sort_keys=True) + "\n"


def validate(doc: JSONDict, kind: str) -> None:
    """Validate a case or manifest dict against the suite's JSON Schema.

    Raises ValueError naming the first problem and where it is."""
    import jsonschema

    sch = schema()
    sub = {"$defs": sch["$defs"], "$ref": f"#/$defs/{kind}"}
    try:
        jsonschema.Draft202012Validator(sub).validate(doc)
    except jsonschema.ValidationError as exc:
        where = "/".join(str(p) for p in exc.absolute_path) or "(top level)"
        raise ValueError(f"not a valid {kind}: at {where}: {exc.message}") from None


def write_suite(out: PathLike, *, cases: list[JSONDict] | None = None) -> JSONDict:
    """Write the suite (or the given ``cases``) into the new folder ``out``.

    ``out`` must not exist, or be an empty folder. Returns the manifest dict. A folder
    that cannot be written is refused before the cases are built (seconds of work).
    """
    shown, out = os.fspath(out), Path(out)   # shown as given: suite/ keeps its /
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise ValueError(f"{shown} already exists and is not an empty folder; choose a new "
                         "folder for the suite (or remove the old one).")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = temporary_beside(out, folder=True)
    try:
        files, manifest = _suite_files(build_cases() if cases is None else cases)
        for name, text in files.items():
            (tmp / name).write_text(text)
        raise_if_terminated()   # a SIGTERM whose exception a finaliser swallowed
        if out.exists():
            out.rmdir()
        os.replace(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return manifest


def _suite_files(cases):
    """``({file name: text}, manifest)`` of a suite of ``cases``, each validated."""
    files, entries = {}, []
    for case in cases:
        validate(case, "case")
        text = _dumps(case)
        name = f"{case['id']}.json"
        files[name] = text
        entries.append({"id": case["id"], "file": name, "property": case["property"],
                        "task": case["task"], "variant": case["variant"],
                        "sha256": hashlib.sha256(text.encode()).hexdigest()})
    manifest = {"format": MANIFEST_FORMAT, "suite_version": SUITE_VERSION,
                "markone_version": __version__, "schema": "schema.json",
                "cases": entries}
    validate(manifest, "manifest")
    files["manifest.json"] = _dumps(manifest)
    files["schema.json"] = json.dumps(schema(), indent=1) + "\n"
    return files, manifest


def _read(path):
    return read_json(path)


def load_cases(path: PathLike) -> list[JSONDict]:
    """The cases of a suite folder, of one case file, or of a legacy single case.

    Raises FileNotFoundError or ValueError (naming the file and the problem) on
    anything that is not a valid, unmodified case or suite."""
    shown, path = os.fspath(path), Path(path)   # shown as given: suite/ keeps its /
    if path.is_dir():
        mpath = path / "manifest.json"
        if not mpath.is_file():
            raise ValueError(f"{shown} is a folder without manifest.json; write a suite "
                             "with `markone adversary suite --out DIR`.")
        manifest = _read(mpath)
        if not isinstance(manifest, dict) or manifest.get("format") != MANIFEST_FORMAT:
            raise ValueError(f"{mpath} is not a markone conformance manifest (expected "
                             f"format {MANIFEST_FORMAT!r}).")
        validate(manifest, "manifest")
        cases = []
        for k, entry in enumerate(manifest["cases"]):
            if entry["file"] != Path(entry["file"]).name or entry["file"] in ("", ".", ".."):
                # not "s3/../data.csv was modified after the suite was written" (#37)
                raise ValueError(f"{mpath}: cases[{k}].file is {entry['file']!r}, not the "
                                 "name of a file in the suite's folder; write the suite "
                                 "again.")
            cpath = path / entry["file"]
            if not cpath.is_file():
                raise FileNotFoundError(f"{cpath} is listed in the manifest but missing.")
            digest = hashlib.sha256(cpath.read_bytes()).hexdigest()
            if digest != entry["sha256"]:
                raise ValueError(f"{cpath} was modified after the suite was written (its "
                                 "SHA-256 differs from the manifest's); write the suite "
                                 "again.")
            cases.append(_one(cpath))
        return cases
    if not path.exists():
        raise FileNotFoundError(f"no such case file or suite folder: {shown}")
    return [_one(path)]


def _one(path):
    doc = _read(path)
    fmt = doc.get("format") if isinstance(doc, dict) else None
    if fmt == LEGACY_CASE_FORMAT:
        return from_legacy_case(doc)
    if fmt != CASE_FORMAT:
        raise ValueError(f"{path} is not a markone conformance case (expected format "
                         f"{CASE_FORMAT!r} or {LEGACY_CASE_FORMAT!r}); write one with "
                         "`markone adversary suite --out DIR`.")
    try:
        validate(doc, "case")
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None
    return doc


def _truncated(problem, t):
    p = dict(problem)
    p["order"] = problem["order"][:t]
    return p


def run_case(case: JSONDict, adapter: Adapter, profile: Profile | None = None, *,
             divergence: bool = True) -> CaseResult:
    """Run ``adapter`` on one case (and its checkpoints); return a CaseResult.

    A case outside ``profile`` (None: ``Profile()``, every variant registered now),
    or one the implementation declines (it raises
    :class:`NotApplicable` or answers ``{"unsupported": "why"}``), is ``"n/a"``
    with the reason. A failed binary case gets its first divergent step
    (:func:`verify.conformance.divergence.first_divergence`, about log2 of the
    stream's length more runs) as ``divergence``, unless ``divergence`` is False."""
    base = dict(id=case["id"], property=case["property"], task=case["task"],
                variant=case["variant"], float64_can_pass=case["float64_can_pass"])
    profile = Profile() if profile is None else profile
    reason = profile.excludes(case)
    if reason is not None:
        return CaseResult(status="n/a", details=(reason,), **base)
    problem = problem_of(profile.posed(case))     # with the declared start, if any
    try:
        answer = _supported(adapter.answer(problem))
        checkpoints = {cp["after"]: _supported(adapter.answer(_truncated(problem,
                                                                         cp["after"])))
                       for cp in case["expected"].get("checkpoints", ()) if cp["after"]}
    except NotApplicable as exc:
        return CaseResult(status="n/a", details=(str(exc),), **base)
    except ImplementationError as exc:
        return _failed_run(profile.judged_case(case), exc, base)
    case = profile.judged_case(case)
    result = judge(case, answer, checkpoints)
    if result.status == "fail" and divergence:
        step = first_divergence(case, adapter)
        if step is not None:
            result = replace(result, divergence=step.describe())
    return result


def _failed_run(case, exc, base):
    """The verdict on a run that gave no answer: an error with the implementation's
    words, unless what it wrote is JSON but for bare ``inf``/``nan`` numbers that
    float overflow reproduces (:func:`verify.conformance.misreadings.overflow_causes`)."""
    answer = nonfinite_json(exc.output) if exc.output else None
    if answer is not None:
        result = judge(case, answer)
        if result.status == "fail":
            return result
    return CaseResult(status="error", failed=("implementation",), details=(str(exc),),
                      error=exc.text or str(exc), **base)


def _supported(answer):
    """The answer, unless it declines the case (``{"unsupported": "why"}``)."""
    if isinstance(answer, dict) and "unsupported" in answer:
        raise NotApplicable(f"the implementation declines it: {answer['unsupported']}")
    return answer


def select_cases(cases: Iterable[JSONDict], patterns: str) -> list[JSONDict]:
    """The cases whose id or one of whose tags (:func:`case_tags`) matches one of the
    comma-separated shell patterns (``"variant-*,multiclass"``).

    Raises ValueError when none matches, listing the tags there are.

    >>> ids = [c["id"] for c in select_cases(build_cases(), "kernel,*-tie")]
    >>> ids      # doctest: +NORMALIZE_WHITESPACE
    ['exact-rational-tie', 'float64-near-tie', 'kernel-dual-counts', 'kernel-stream-order',
     'kernel-dual-count-slips', 'kernel-pass-boundaries']
    """
    wanted = [p.strip() for p in patterns.split(",") if p.strip()]
    cases = list(cases)
    chosen = [c for c in cases if any(fnmatch.fnmatchcase(name, p) for p in wanted
                                      for name in (c["id"], *case_tags(c)))]
    if not chosen:
        tags = sorted({t for c in cases for t in case_tags(c)})
        raise ValueError(f"--cases {patterns!r} matches no case; give case ids or tags "
                         f"(shell patterns allowed): {', '.join(tags)}.")
    return chosen


def case_tags(case: JSONDict) -> tuple[str, ...]:
    """A case's tags: its task, variant and property, ``intercept`` when it has one,
    ``exact-only`` when float64 cannot pass it.

    >>> case_tags(build_cases()[0])
    ('binary', 'last', 'zero-score-is-a-mistake')
    """
    tags = (case["task"], case["variant"], case["property"])
    tags += ("intercept",) if case["problem"]["intercept"] else ()
    return tags + (() if case["float64_can_pass"] else ("exact-only",))


def run_suite(cases: Iterable[JSONDict], adapter: Adapter, *,
              progress: Callable[[CaseResult], Any] | None = None,
              profile: Profile | None = None, divergence: bool = True
              ) -> list[CaseResult]:
    """Run ``adapter`` on every case under ``profile`` (None: ``Profile()``, every
    variant registered now; ``divergence``: see :func:`run_case`); returns the list of CaseResults, with the causes that a
    passed case rules out removed from the diagnoses
    (:func:`verify.conformance.refutation.drop_ruled_out`). ValueError when the
    profile declares one starting weight per weight and no case has that many
    (:meth:`verify.conformance.profile.Profile.check_start`)."""
    cases, results = list(cases), []
    profile = Profile() if profile is None else profile
    profile.check_start(cases)
    for case in cases:
        results.append(run_case(case, adapter, profile, divergence=divergence))
        if progress is not None:
            progress(results[-1])
    return drop_ruled_out([profile.judged_case(c) for c in cases], results)
