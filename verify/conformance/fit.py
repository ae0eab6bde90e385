"""With no profile declared: the profile the answers fit, to name in the report.

An implementation judged with no ``--profile`` is held to exact arithmetic and a
learning rate of 1. When it fails, :func:`fitting_profile` tries the known settings
(float64 or float32 arithmetic; the learning rate its first update reveals,
:func:`revealed_rate`) on the answers it already gave, and confirms the first that
fits by running the suite under it. :func:`explained` then gives each failed case
the reason it fails without the declaration, instead of a misreading that merely
happens to reproduce the answer (a float64 rounding that looks like a stream
presented in reverse).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from fractions import Fraction

from markone._internal.typing import JSONDict
from verify.conformance.adapters import Adapter, ImplementationError, NotApplicable
from verify.conformance.judge import CaseResult, judge
from verify.conformance.profile import Profile, show_rate
from verify.conformance.protocol import parse_vector, problem_of
from verify.conformance.replay import exact_rows

__all__ = ["fitting_profile", "revealed_rate", "explained", "suggestion"]


def revealed_rate(cases: Sequence[JSONDict], adapter: Adapter) -> Fraction | None:
    """The learning rate of the implementation's first update, or None: its answer
    to the first binary last-iterate case cut to one presentation (from a zero start,
    always a mistake, so ``w = rate * y * x``), read on the largest entry of ``x``
    and written as the simple fraction it is within a part in 10^9 (a float
    implementation's 0.1)."""
    case = next((c for c in cases if c["task"] == "binary" and c["variant"] == "last"),
                None)
    if case is None:
        return None
    problem = problem_of(case)
    problem = dict(problem, order=problem["order"][:1])
    try:
        answer = adapter.answer(problem)
        if answer is None:
            return None
        w = parse_vector(answer["w"], where="w")
    except (ImplementationError, NotApplicable, ValueError, TypeError, KeyError):
        return None
    i = problem["order"][0]
    x, y = exact_rows(problem)[i], int(problem["y"][i])
    j = max(range(len(x)), key=lambda k: abs(x[k]))
    if len(w) != len(x) or x[j] == 0:
        return None
    k = Fraction(w[j]) / (y * x[j])
    simple = k.limit_denominator(1000)
    k = simple if abs(simple - k) <= abs(k) / 10**9 else k
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
                    adapter: Adapter) -> Profile | None:
    """The first of exact, float64 and float32 arithmetic, with a rate of 1 or the
    one revealed (float32: 1 only), other than the full ``Profile()``, under which the
    answers pass every applicable case, confirmed by running the suite under it
    (checkpoints included); None when none does."""
    from verify.conformance.suite import run_suite

    rates = [Fraction(1)]
    rate = revealed_rate(cases, adapter)
    if rate is not None and rate != 1:
        rates.append(rate)
    full = Profile()
    for arithmetic in ("exact", "float64", "float32"):
        for r in rates if arithmetic != "float32" else rates[:1]:
            profile = replace(full, arithmetic=arithmetic, rate=r)
            if profile == full or not _fits(profile, cases, results):
                continue
            again = run_suite(cases, adapter, profile=profile, divergence=False)
            if all(x.status in ("pass", "n/a") for x in again):
                return profile
    return None


def suggestion(profile: Profile) -> str:
    """The ``--profile`` option that declares ``profile``'s arithmetic and rate.

    >>> suggestion(Profile(arithmetic="float64", rate=Fraction(1, 10)))
    '--profile arithmetic=float64,rate=0.1'
    """
    rate = f",rate={show_rate(profile.rate)}" if profile.rate != 1 else ""
    return f"--profile arithmetic={profile.arithmetic}{rate}"


def explained(cases: Sequence[JSONDict], results: Sequence[CaseResult],
              profile: Profile) -> list[CaseResult]:
    """``results`` with each failed case's causes replaced by the one the fit shows:
    the case needs what ``profile`` does not claim, or its answer is the one
    ``profile`` expects."""
    option = suggestion(profile)
    out = []
    for case, r in zip(cases, results):
        if r.status != "fail":
            out.append(r)
            continue
        reason = profile.excludes(case)
        words = (f"{option} fits the answers, and this case does not apply under "
                 f"it: {reason}" if reason else
                 f"the answer is the one {option} expects (a convention not declared)")
        out.append(replace(r, diagnosis=(words,), rules=("profile",)))
    return out
