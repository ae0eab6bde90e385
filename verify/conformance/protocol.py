"""The conformance protocol: case files, the problem an implementation sees, its answer.

A **case** (``format`` :data:`CASE_FORMAT`) holds a ``problem`` and the ``expected``
answer computed by markone. The **problem** is what an implementation receives (on
stdin as JSON for ``--cmd``, as a dict for a Python callable); it never contains the
expected answer. The **answer** is a JSON object:

* binary cases (``task == "binary"``): ``{"w": [...], "mistakes": k}`` with ``w`` in the
  augmented space (the intercept weight last when ``problem["intercept"]``);
* ``variant == "voted"``: ``{"predictions": [...], "mistakes": k}`` (labels -1/+1 for
  ``problem["queries"]``);
* ``task == "multiclass"``: ``{"W": [[...], ...], "mistakes": k}`` one row per class
  (plus ``"predictions"`` for the queries);
* ``task == "kernel"``: ``{"alpha": [...], "mistakes": k}`` the mistakes per example.

Numbers in answers may be JSON numbers or exact strings (``"3/4"``, ``"0.1"``); they
are read exactly (a float is the binary fraction it is).

>>> problem_of({"problem": {"X": [[1]], "y": [1], "order": [0]}})["order"]
[0]
>>> parse_number("3/4"), parse_number(0.5)
(Fraction(3, 4), Fraction(1, 2))
"""

from __future__ import annotations

import copy
import numbers
import sys
from collections.abc import Iterable
from fractions import Fraction
from typing import Any

from markone._internal import exact
from markone._internal.typing import JSONDict
from markone.variants import VARIANTS
from verify.errors import LimitExceeded

__all__ = [
    "CASE_FORMAT", "PROBLEM_FORMAT", "MANIFEST_FORMAT", "LEGACY_CASE_FORMAT",
    "SUITE_VERSION", "TASKS", "VARIANTS", "answers_by_vote", "problem_of", "parse_number", "parse_vector",
    "exact_vector", "rule_text", "schema", "from_legacy_case", "data_fields",
    "MAX_DIGITS", "over_limit", "exact_numbers",
]

#: The most digits one answer number may have (a string number's exponent counts:
#: ``"1e99999"`` has 100,000); ``--max-digits`` raises it.
MAX_DIGITS = 4000

#: ``format`` of one case file.
CASE_FORMAT = "markone.conformance.case/1"
#: ``format`` of the problem sent to an implementation.
PROBLEM_FORMAT = "markone.conformance.problem/1"
#: ``format`` of a suite's manifest.json.
MANIFEST_FORMAT = "markone.conformance.suite/1"
#: ``format`` of the single cases written by ``markone adversary NAME --out``.
LEGACY_CASE_FORMAT = "markone.adversary/1"
#: Bumped whenever a case or its expected answer changes meaning.
SUITE_VERSION = 1

TASKS = ("binary", "multiclass", "kernel")

#: The rules of the multiclass and kernel tasks (a binary variant's rule is its entry's,
#: in :data:`markone.variants.VARIANTS`).
_RULES = {
    ("multiclass", "last"): (
        "one weight vector per class, W = 0 (n_classes rows); on example i of class c, "
        "predict p = argmax_k W[k] . x_i with ties going to the LOWEST class index; if "
        "p != c then W[c] += x_i and W[p] -= x_i. With `intercept`, x_i is augmented "
        "with a constant 1 appended last. Answer {\"W\": rows, \"mistakes\": updates, "
        "\"predictions\": argmax (lowest index on ties) for `queries`}."),
    ("kernel", "last"): (
        "dual perceptron on the Gram matrix G (G[i][j] = k(x_i, x_j), the intercept's "
        "c^2 = 1 already added): alpha = 0; on example i, the score is "
        "f_i = sum_j alpha_j y_j G[j][i]; if y_i * f_i <= 0 then alpha_i += 1. Answer "
        "{\"alpha\": counts per example, \"mistakes\": updates}."),
}


def rule_text(task: str, variant: str) -> str:
    """The rule a (task, variant) case pins down, in words (stored in every problem)."""
    return VARIANTS[variant].rule if task == "binary" else _RULES[(task, variant)]


def answers_by_vote(problem: JSONDict) -> bool:
    """Whether a binary problem's variant votes, and so is answered with
    ``"predictions"`` on its queries instead of ``"w"``.

    >>> answers_by_vote({"task": "binary", "variant": "voted"})
    True
    """
    variant = VARIANTS.get(str(problem.get("variant")))
    return problem.get("task") == "binary" and variant is not None and variant.votes


def problem_of(case: JSONDict) -> JSONDict:
    """The problem part of a case: what an implementation receives (a deep copy)."""
    return copy.deepcopy(case["problem"])


def over_limit(what: str, limit: int, option: str, unit: str = "") -> LimitExceeded:
    """The one wording of every refusal: what went over, the limit, how to raise it.

    >>> print(over_limit("w[0] has 9 digits", 5, "max-digits"))
    w[0] has 9 digits (the limit is 5, --max-digits); raise --max-digits if a correct answer really needs more
    """
    return LimitExceeded(f"{what} (the limit is {limit:,}{unit}, --{option}); raise "
                         f"--{option} if a correct answer really needs more")


def parse_number(value: Any, *, where: str = "a number",
                 max_digits: int = MAX_DIGITS) -> Fraction:
    """Read one answer number exactly: int, float (its exact binary value), or a string
    such as ``"3/4"``, ``"0.1"`` or ``"-2.5e-3"``. Raises ValueError naming ``where``,
    and :class:`LimitExceeded` for a number of more than ``max_digits`` digits (checked
    before it is expanded: ``"1e1000000000"`` is refused at once).

    >>> parse_number("-2.5e-3")
    Fraction(-1, 400)
    >>> parse_number("1e99999")
    Traceback (most recent call last):
    ...
    verify.errors.LimitExceeded: a number is '1e99999', 100,000 digits (the limit is 4,000, --max-digits); raise --max-digits if a correct answer really needs more
    """
    if isinstance(value, bool):
        raise ValueError(f"{where} is a boolean ({value!r}), not a number.")
    if isinstance(value, Fraction):
        return value
    if isinstance(value, numbers.Integral):
        return Fraction(int(value))
    if isinstance(value, numbers.Real):
        v = float(value)
        if v != v or v in (float("inf"), float("-inf")):
            raise ValueError(f"{where} is {v}; a finite number is needed.")
        return Fraction(v)
    if isinstance(value, str):
        q = _number_text(value, where, max_digits)
        if q is not None:
            return q
    hint = " without digit-group underscores" if "_" in str(value) else ""
    raise ValueError(f"{where} is {_shown(value)}, not a number (give a JSON number or "
                     f"a string like \"3/4\"{hint}).")


def _number_text(text, where, max_digits):
    """A decimal or p/q string as a Fraction, its size checked before it is built
    (by :func:`markone._internal.exact.parse_number`, the one reader of number text,
    under this protocol's ``max_digits``); None when it is not a number. Digit-group
    underscores (``"1_000"``), which Python's syntax allows, are not JSON's: None."""
    if "_" in text:
        return None
    try:
        return exact.parse_number(text, max_digits=max_digits)
    except exact.NumberTooLong as exc:
        raise over_limit(f"{where} is {_shown(text)}, {exc.size:,} digits", max_digits,
                         "max-digits") from None
    except (ValueError, ZeroDivisionError):
        return None


def _shown(value, n=40):
    text = repr(value)
    return text if len(text) <= n else text[:n - 5] + " ...'"


def exact_numbers(value: Any, *, max_digits: int = MAX_DIGITS, where: str = "answer"
                  ) -> Any:
    """An answer with every number string made a Fraction (so nothing larger than
    ``max_digits`` digits reaches the judge); other values are left as they are.

    >>> exact_numbers({"w": ["1/2", 3], "note": "hi"})
    {'w': [Fraction(1, 2), 3], 'note': 'hi'}
    >>> exact_numbers({"w": [0, "2e5000"]})
    Traceback (most recent call last):
    ...
    verify.errors.LimitExceeded: w[1] is '2e5000', 5,001 digits (the limit is 4,000, --max-digits); raise --max-digits if a correct answer really needs more
    """
    if isinstance(value, list):
        return [exact_numbers(v, max_digits=max_digits, where=f"{where}[{k}]")
                for k, v in enumerate(value)]
    if isinstance(value, dict):
        return {k: exact_numbers(v, max_digits=max_digits, where=_shown(k, 20).strip("'"))
                for k, v in value.items()}
    if isinstance(value, str):
        q = _number_text(value, where, max_digits)
        return value if q is None else q
    return value


def parse_vector(values: Any, *, where: str) -> list[Fraction]:
    """A list of exact numbers from a JSON array (or any sequence, numpy included)."""
    if hasattr(values, "tolist"):
        values = values.tolist()
    if isinstance(values, (str, bytes, dict)) or not hasattr(values, "__iter__"):
        raise ValueError(f"{where} must be a list of numbers, got {type(values).__name__}.")
    return [parse_number(v, where=f"{where}[{k}]") for k, v in enumerate(values)]


def exact_vector(values: Iterable[Any]) -> list[str]:
    """Fractions to exact strings for a case file (``"3/4"``, ``"-2"``)."""
    return [str(Fraction(v)) for v in values]


def data_fields(rows: Iterable[Iterable[Any]]) -> JSONDict:
    """The ``X`` (and ``X_exact``) fields of a problem for exact rows of numbers.

    ``X`` holds JSON numbers, the data themselves when float64 holds every entry;
    otherwise the nearest doubles (the largest double where an entry is beyond
    float64's range), and ``X_exact`` the data as exact strings.

    >>> data_fields([[Fraction(1, 2), 3]])
    {'X': [[0.5, 3.0]]}
    >>> data_fields([["1/10", 10**400]])["X_exact"][0][0]
    '1/10'
    """
    exact = [[parse_number(v, where="X") for v in row] for row in rows]
    floats = [[_nearest_float(q) for q in row] for row in exact]
    out: JSONDict = {"X": floats}
    if any(Fraction(f) != q for fr, qr in zip(floats, exact) for f, q in zip(fr, qr)):
        out["X_exact"] = [exact_vector(row) for row in exact]
    return out


def _nearest_float(q):
    try:
        return float(q)
    except OverflowError:
        return sys.float_info.max if q > 0 else -sys.float_info.max


def from_legacy_case(doc: JSONDict) -> JSONDict:
    """Turn a ``markone adversary NAME --out`` case into a conformance case."""
    try:
        rows = [parse_vector(row, where=f"X[{i}]") for i, row in enumerate(doc["X"])]
        y = [int(v) for v in doc["y"]]
        order = [int(i) for i in doc["order"]]
        intercept = bool(doc["intercept"])
        w = parse_vector(doc["expected_w"], where="expected_w")
        mistakes = int(doc["expected_mistakes"])
    except (KeyError, TypeError, ValueError, OverflowError) as exc:
        raise ValueError(f"the case is missing or has a malformed field: {exc}") from exc
    if (not rows or any(len(row) != len(rows[0]) for row in rows) or len(y) != len(rows)
            or set(y) - {-1, 1} or any(not 0 <= i < len(rows) for i in order)):
        raise ValueError("the case is malformed: X must be rows of finite numbers of one "
                         "length, y one label -1/+1 per row, order indices of rows; write "
                         "a new case with `markone adversary NAME --out CASE.json`.")
    name = str(doc.get("name", "case"))
    data = data_fields(rows)
    return {
        "format": CASE_FORMAT, "suite_version": SUITE_VERSION, "id": name,
        "title": f"adversarial stream ({doc.get('method', '?')})",
        "property": "mistake-driven-updates",
        "pins": "the mistakes and final weights of the rule on an adversarial stream",
        "task": "binary", "variant": "last", "float64_can_pass": "X_exact" not in data,
        "tolerance": 1e-9,
        "problem": {"format": PROBLEM_FORMAT, "id": name, "task": "binary",
                    "variant": "last", "rule": rule_text("binary", "last"),
                    "intercept": intercept, **data, "y": y, "order": order},
        "expected": {"mistakes": mistakes, "w": exact_vector(w)},
    }


_NUM = {"oneOf": [{"type": "number"},
                  {"type": "string", "pattern": r"^\s*-?[0-9]+(/[0-9]+|\.[0-9]*)?\s*$"}]}
_VEC = {"type": "array", "items": _NUM}
_MAT = {"type": "array", "items": _VEC, "minItems": 1}
_IDX = {"type": "array", "items": {"type": "integer", "minimum": 0}}


def schema() -> JSONDict:
    """The JSON Schema (draft 2020-12) of case files, manifests and answers.

    >>> sorted(schema()["$defs"])
    ['answer', 'case', 'manifest', 'problem']
    """
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"https://markone.invalid/conformance/{SUITE_VERSION}/schema.json",
        "title": "markone conformance suite",
        "oneOf": [{"$ref": "#/$defs/case"}, {"$ref": "#/$defs/manifest"}],
        "$defs": {"case": _case_schema(), "problem": _problem_schema(),
                  "manifest": _manifest_schema(), "answer": _answer_schema()},
    }


def _problem_schema() -> JSONDict:
    """The schema of a problem (what an implementation receives)."""
    return {
        "type": "object",
        "required": ["format", "id", "task", "variant", "rule", "intercept", "X", "y",
                     "order"],
        "properties": {
            "format": {"const": PROBLEM_FORMAT},
            "id": {"type": "string"},
            "task": {"enum": list(TASKS)},
            "variant": {"enum": list(VARIANTS)},
            "rule": {"type": "string"},
            "intercept": {"type": "boolean"},
            "X": _MAT,
            "X_exact": {"type": "array", "items": {"type": "array",
                                                   "items": {"type": "string"}}},
            "y": {"type": "array", "items": {"type": "integer"}, "minItems": 1},
            "order": _IDX,
            "queries": _MAT,
            "n_classes": {"type": "integer", "minimum": 2},
            "gram": _MAT,
            "start": _VEC,
        },
        "additionalProperties": False,
    }


def _case_schema() -> JSONDict:
    """The schema of a case: the problem and its expected answers."""
    expected = {
        "type": "object", "required": ["mistakes"],
        "properties": {
            "mistakes": {"type": "integer", "minimum": 0},
            "w": _VEC, "last_w": _VEC, "W": _MAT, "alpha": _IDX, "predictions":
            {"type": "array", "items": {"type": "integer"}},
            "checkpoints": {"type": "array", "items": {
                "type": "object", "required": ["after", "mistakes", "w"],
                "properties": {"after": {"type": "integer", "minimum": 0},
                               "mistakes": {"type": "integer", "minimum": 0},
                               "w": _VEC}}},
        },
    }
    return {
        "type": "object",
        "required": ["format", "suite_version", "id", "title", "property", "pins",
                     "task", "variant", "float64_can_pass", "tolerance", "problem",
                     "expected"],
        "properties": {
            "format": {"const": CASE_FORMAT},
            "suite_version": {"type": "integer"},
            "id": {"type": "string", "pattern": "^[a-z0-9][a-z0-9-]*$"},
            "title": {"type": "string"}, "property": {"type": "string"},
            "pins": {"type": "string"}, "task": {"enum": list(TASKS)},
            "variant": {"enum": list(VARIANTS)},
            "float64_can_pass": {"type": "boolean"},
            "tolerance": {"type": "number", "minimum": 0},
            "notes": {"type": "string"},
            "problem": {"$ref": "#/$defs/problem"},
            "expected": expected,
        },
    }


def _manifest_schema() -> JSONDict:
    """The schema of a suite's manifest."""
    return {
        "type": "object",
        "required": ["format", "suite_version", "markone_version", "schema", "cases"],
        "properties": {
            "format": {"const": MANIFEST_FORMAT},
            "suite_version": {"type": "integer"},
            "markone_version": {"type": "string"},
            "schema": {"type": "string"},
            "cases": {"type": "array", "minItems": 1, "items": {
                "type": "object",
                "required": ["id", "file", "property", "task", "variant", "sha256"],
                "properties": {"id": {"type": "string"}, "file": {"type": "string"},
                               "property": {"type": "string"},
                               "task": {"enum": list(TASKS)},
                               "variant": {"enum": list(VARIANTS)},
                               "sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$"}}}},
        },
    }


def _answer_schema() -> JSONDict:
    """The schema of an answer."""
    return {
        "type": "object",
        "properties": {"mistakes": {"type": "integer", "minimum": 0}, "w": _VEC,
                       "W": _MAT, "alpha": _VEC,
                       "predictions": {"type": "array", "items": {"type": "integer"}}},
    }
