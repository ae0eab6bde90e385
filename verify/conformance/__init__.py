"""A conformance suite for any perceptron implementation, in any language.

``build_cases`` makes the cases (each pins one convention of the rule, with the answer
markone computes), ``write_suite``/``load_cases`` store and read them, adapters run an
implementation (Python function, scikit-learn estimator, River learner, or any
program speaking JSON on stdin/stdout), ``run_suite`` judges it case by case with
diagnoses, and ``as_table``/``as_json``/``as_junit`` report.

>>> from verify import conformance
>>> cases = [c for c in conformance.build_cases() if c["id"] == "zero-score-orthonormal"]
>>> def strict(X, y, order):          # update only when y w.x < 0: never, from zero
...     return [0.0] * X.shape[1], 0
>>> [r] = conformance.run_suite(cases, conformance.adapter_for(strict))
>>> r.status, r.failed, r.diagnosis[0][:18]
('fail', ('mistakes', 'w'), 'the strict rule (u')
"""

from verify.conformance.adapters import (
    CallableAdapter,
    CommandAdapter,
    EstimatorAdapter,
    RiverAdapter,
    adapter_for,
    load_impl,
)
from verify.conformance.cases import build_cases
from verify.conformance.judge import CaseResult, judge, show_vector
from verify.conformance.profile import Profile
from verify.conformance.protocol import CASE_FORMAT, MANIFEST_FORMAT, SUITE_VERSION, schema
from verify.conformance.report import as_json, as_junit, as_table, exit_status, summary
from verify.conformance.suite import (
    case_tags,
    load_cases,
    run_case,
    run_suite,
    select_cases,
    validate,
    write_suite,
)

__all__ = [
    "build_cases", "write_suite", "load_cases", "validate", "schema", "run_case",
    "run_suite", "judge", "CaseResult", "show_vector", "adapter_for", "load_impl",
    "CallableAdapter", "EstimatorAdapter", "RiverAdapter", "CommandAdapter",
    "as_table", "as_json", "as_junit",
    "summary", "exit_status", "CASE_FORMAT", "MANIFEST_FORMAT", "SUITE_VERSION",
    "Profile", "select_cases", "case_tags",
]
