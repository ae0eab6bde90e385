"""The profile the answers fit, to name in the report when the one declared fails.

An implementation judged with no ``--profile`` is held to exact arithmetic and a
learning rate of 1; one that declares a profile, to what it declares (a float64
program that leaves out its rate of 0.1 is held to a rate of 1). When it fails,
:func:`fitting_profile` tries the known settings (float64 or float32 arithmetic, when
none was declared; the learning rate its first update reveals, :func:`revealed_rate`)
with the rest of the declared profile on the answers it already gave, and confirms
the first that fits by running the suite under it. :func:`explained` then gives each failed case the reason
it fails without the declaration, instead of a misreading that merely happens to
reproduce the answer (a float64 rounding that looks like a stream presented in
reverse, or a tie that the rounding of 0.1 turned into 3.3e-16); :func:`fit_report`
does both, with the report's first lines.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from fractions import Fraction

from markone._internal.typing import JSONDict
from verify.conformance.adapters import Adapter
from verify.conformance.compare import simple_fraction
from verify.errors import ImplementationError, NotApplicable
from verify.conformance.judge import CaseResult, judge
from verify.conformance.profile import Profile, show_rate, show_start
from verify.conformance.protocol import parse_vector, problem_of
from verify.conformance.rule_runs import exact_rows
from verify.conformance.suite import run_suite

__all__ = ["fitting_profile", "revealed_rate", "explained", "suggestion", "fit_report"]


def revealed_rate(cases: Sequence[JSONDict], adapter: Adapter,
                  declared: Profile | None = None) -> Fraction | None:
    """The learning rate of the implementation's first update, or None: its answer
    to the first binary last-iterate case ``declared`` applies to whose first
    presentation is a mistake from the declared start (always, from the zero start),
    cut to that presentation (``w = start + rate * y * x``), read on the largest
    entry of ``x`` and written as the simple fraction it is within a part in 10^9 (a
    float implementation's 0.1).

    >>> from verify.conformance.adapters import adapter_for
    >>> from verify.conformance.cases import build_cases
    >>> def fit(X, y, order):        # from w = -1/2, at a rate of 1/10
    ...     w = [-0.5] * len(X[0])
    ...     for i in order:
    ...         if y[i] * sum(a * b for a, b in zip(w, X[i])) <= 0:
    ...             w = [a + 0.1 * y[i] * b for a, b in zip(w, X[i])]
    ...     return w, 0
    >>> cases = build_cases(["intercept-convention"])
    >>> revealed_rate(cases, adapter_for(fit), Profile.parse("start=-0.5"))
    Fraction(1, 10)
    """
    declared = Profile() if declared is None else declared
    for case in cases:
        if case["task"] != "binary" or case["variant"] != "last" or \
                declared.excludes(case) is not None:
            continue
        problem = problem_of(declared.posed(case))
        i = problem["order"][0]
        x, y = exact_rows(problem)[i], int(problem["y"][i])
        start = declared.start_for(case) or [Fraction(0)] * len(x)
        if y * sum((a * b for a, b in zip(start, x)), Fraction(0)) > 0:
            continue            # not a mistake from this start: no step to read
        return _first_step(adapter, dict(problem, order=[i]), x, y, start)
    return None


def _first_step(adapter: Adapter, problem: JSONDict, x: list[Fraction], y: int,
                start: list[Fraction]) -> Fraction | None:
    """The rate of the implementation's one update on ``problem`` (one presentation
    of ``x``, label ``y``, a mistake from ``start``), or None."""
    try:
        answer = adapter.answer(problem)
        if answer is None:
            return None
        w = parse_vector(answer["w"], where="w")
    except (ImplementationError, NotApplicable, ValueError, TypeError, KeyError):
        return None
    j = max(range(len(x)), key=lambda k: abs(x[k]))
    if len(w) != len(x) or x[j] == 0:
        return None
    k = simple_fraction((Fraction(w[j]) - start[j]) / (y * x[j]))
    return k if k > 0 else None


def _fits(profile: Profile, cases: Sequence[JSONDict], results: Sequence[CaseResult]
          ) -> bool:
    """Do the answers already given pass every case ``profile`` applies to (at least
    one)?"""
    judged = 0
    for case, result in zip(cases, results):
        if profile.excludes(case) is not None or result.status == "n/a":
            continue
        if result.status == "error":
            return False
        expected = profile.judged_case(case)
        if judge(expected, result.answer).status != "pass":
            return False
        judged += 1
    return judged > 0


def fitting_profile(cases: Sequence[JSONDict], results: Sequence[CaseResult],
                    adapter: Adapter, declared: Profile | None = None
                    ) -> Profile | None:
    """The first of exact, float64 and float32 arithmetic (the declared one only,
    when ``declared`` is not the full ``Profile()``: a float64 program that rounds to
    float32 is told so, not told to declare float32), with the declared rate or the
    one revealed (float32: 1 only), the rest as ``declared`` (the full ``Profile()``
    when None), other than ``declared`` itself, under which the answers pass every
    applicable case, confirmed by running the suite under it (checkpoints included);
    None when none does."""
    declared = Profile() if declared is None else declared
    rates = [declared.rate]
    rate = revealed_rate(cases, adapter, declared)
    if rate is not None and rate not in rates:
        rates.append(rate)
    arithmetics = ("exact", "float64", "float32") if declared == Profile() else (
        declared.arithmetic,)
    for arithmetic in arithmetics:
        for r in rates if arithmetic != "float32" else [Fraction(1)]:
            profile = replace(declared, arithmetic=arithmetic, rate=r)
            if profile == declared or not _fits(profile, cases, results):
                continue
            again = run_suite(cases, adapter, profile=profile, divergence=False)
            if all(x.status in ("pass", "n/a") for x in again):
                return profile
    return None


def suggestion(profile: Profile) -> str:
    """The ``--profile`` option that declares ``profile``: its arithmetic, and each
    other setting that is not the default.

    >>> suggestion(Profile(arithmetic="float64", rate=Fraction(1, 10)))
    '--profile arithmetic=float64,rate=0.1'
    >>> suggestion(Profile(arithmetic="float64", tasks=("binary",), intercept=False))
    '--profile arithmetic=float64,tasks=binary,intercept=no'
    >>> suggestion(Profile.parse("arithmetic=float64,rate=0.1,start=1,intercept_start=0"))
    '--profile arithmetic=float64,rate=0.1,start=1,intercept_start=0'
    """
    given, full = [f"arithmetic={profile.arithmetic}"], Profile()
    for name in ("variants", "tasks"):
        if getattr(profile, name) != getattr(full, name):
            given.append(f"{name}={'+'.join(getattr(profile, name))}")
    if profile.intercept != full.intercept:
        given.append(f"intercept={'yes' if profile.intercept else 'no'}")
    if profile.rate != 1:
        given.append(f"rate={show_rate(profile.rate)}")
    if profile.start != 0:
        given.append(f"start={show_start(profile.start)}")
    if profile.intercept_start is not None:
        given.append(f"intercept_start={show_start(profile.intercept_start)}")
    return "--profile " + ",".join(given)


def _undeclared(profile, declared):
    """What ``profile`` sets that ``declared`` does not, in words (a diagnosis's)."""
    words = []
    if profile.rate != declared.rate:
        words.append(f"learning rate {profile.rate}")
    if profile.arithmetic != declared.arithmetic:
        words.append(f"{profile.arithmetic} arithmetic")
    return ", ".join(words)


def explained(cases: Sequence[JSONDict], results: Sequence[CaseResult],
              profile: Profile, declared: Profile | None = None) -> list[CaseResult]:
    """``results`` with each failed case's causes replaced by the one the fit shows:
    the case needs what ``profile`` does not claim, or its answer is the one
    ``profile`` expects (what it sets that ``declared`` does not, named)."""
    option = suggestion(profile)
    what = _undeclared(profile, Profile() if declared is None else declared)
    out = []
    for case, r in zip(cases, results):
        if r.status != "fail":
            out.append(r)
            continue
        reason = profile.excludes(case)
        words = (f"{option} fits the answers, and this case does not apply under "
                 f"it: {reason}" if reason else
                 f"the answer is the one {option} expects ({what}: a convention "
                 "not declared)")
        out.append(replace(r, diagnosis=(words,), rules=("profile",)))
    return out


def fit_report(cases: Sequence[JSONDict], results: Sequence[CaseResult],
               adapter: Adapter, profile: Profile | None = None,
               source: str = "none declared") -> tuple[list[CaseResult], str]:
    """When some case failed under ``profile`` (declared as ``source`` says) and
    another profile fits (:func:`fitting_profile`): the results with their causes
    :func:`explained`, and the report's first lines naming the option to copy; else
    the results and no first lines."""
    if all(r.status in ("pass", "n/a") for r in results):
        return list(results), ""
    profile = Profile() if profile is None else profile
    fit = fitting_profile(cases, results, adapter, profile)
    if fit is None:
        return list(results), ""
    what = ("no profile was declared (exact arithmetic, rate 1)"
            if source == "none declared" else
            f"the profile {source} ({suggestion(profile)[len('--profile '):]}) does "
            "not fit")
    return explained(cases, results, fit, profile), (
        f"{what}; the answers fit\n  {suggestion(fit)}\nrun again with it to judge by "
        "what the implementation computes.\n\n")
