"""The words of markone's own claim methods: the members of :class:`Method`.

A claim says *how* it was decided in its ``method`` field; with the claim's slot it
names the claim's kind. The built-in claim modules declare their kinds with these
words (``add_kind(slot, Method.X, ...)``), and their provers and re-checks register
for them; code finds a kind through :func:`verify.machine.claims.kind_of` and never
compares the words. A new claim module may name its method by a plain string of its
own instead (``docs/verify-machine.md``, "Adding a claim").

Examples
--------
>>> from verify.machine.claims.methods import Method
>>> Method.ONE_SIGNED == "one-signed columns", str(Method.HIT_GREEDY)
(True, 'greedy')
"""

from __future__ import annotations

import enum

__all__ = ["Method"]


class Method(str, enum.Enum):
    """How a built-in claim was decided: the ``method`` a report names (its value,
    which is also what ``str`` and f-strings give)."""

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)

    # learnable: the prover of verify.check_separable that decided it
    SEPARABLE_TRIVIAL = "check_separable/trivial"
    SEPARABLE_PERCEPTRON = "check_separable/perceptron"
    SEPARABLE_LP = "check_separable/lp"
    SEPARABLE_Z3 = "check_separable/z3"
    SEPARABLE_CVC5 = "check_separable/cvc5"
    SEPARABLE_LP_Z3 = "check_separable/lp+z3"
    SEPARABLE_LP_CVC5 = "check_separable/lp+cvc5"
    SEPARABLE_LEASTSQ = "check_separable/leastsq"
    SEPARABLE_TIMEOUT = "check_separable/timeout"
    SEPARABLE_BUDGET = "check_separable/budget"
    # end stops and convergence that no analysis covers on this machine
    NOT_ASSESSED = "not assessed"
    # end stops, error-correction rule: a bound that fits inside the stops ...
    NOVIKOFF_COUNT = "|w_j| <= reinforcements <= (R/gamma)^2"
    NOVIKOFF_NORM = "||w|| <= R^2/gamma"
    ONE_SIGNED = "one-signed columns"
    EXACT_REACH = "exact reachable states"
    BALL = "Novikoff ball per weight"
    BALL_PUSHES = "Novikoff ball per weight and at its pushes"
    Z3 = "z3 bounded model checking"
    MAX_MARGIN = "max_margin"
    # ... or a stream that reaches a stop, by the search that found it
    HIT_EXHAUSTIVE = "exhaustive"
    HIT_GREEDY = "greedy"
    HIT_BEAM = "beam"
    HIT_RANDOM = "random order"
    HIT_Z3 = "z3"
    # converges, error-correction rule
    IDEAL = "equals the ideal perceptron"
    ALL_STREAMS = "exhaustive (all streams)"
    CLIPPED_BALL = "clipped Novikoff ball"
    CONTINUATION = "continuation after the stop"
    PERIODIC = "periodic order"
    CONTINUATIONS_OPEN = "continuations and periodic orders"
    PERIODIC_OPEN = "periodic orders"
    # the forced rule (verify.machine.theory.rules)
    FORCED_BOUND = "forced rule: weight bound"
    FORCED_HIT = "forced rule: exact fixed order"
    FORCED_OPEN = "forced rule: not decided"
    FORCED_LEARNS = "start-of-pass bounds (forced rule)"
    FORCED_NEVER = "exact fixed order (forced rule)"
    # the gamma rule
    GAMMA_CENTRED = "centred perceptron (gamma rule)"
    GAMMA_ROUNDING = "rounding branches (gamma rule, whole steps)"
    GAMMA_CHAIN = "finite chain (gamma rule, whole steps)"
    # timing
    SETTLING = "settling"
    PHOTOCELL = "closed-form photocell response"
    # device variation (verify.machine.claims._variation): end stops, convergence, quantisation
    VARIATION_FROZEN = "potentiometers never move"
    VARIATION = "device variation"
    # quantisation
    GAMMA_MOVES = "rule"
    FLOAT = "float arithmetic"
    WHOLE_INCREMENTS = "whole increments"
    # faults
    NO_FAULTS = "no faults"
    FAULTS_LEARNABLE = "separability of the damaged patterns"
    FAULTS_BREAK = "separability with and without each kind of fault"
