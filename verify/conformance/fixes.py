"""What to change in the code, for each cause a diagnosis names.

Every cause carries a key (:func:`verify.conformance.judge.causes`): its kind before
the colon (``rule``, ``stream``, ``arithmetic``...) and the misreading after it.
:func:`fix_for` gives the change that removes it, in one sentence, for the summary
at the end of every report (:func:`verify.conformance.report.cause_summary`).

>>> fix_for("rule:strict")
'count a zero score as a mistake: update when y * (w . x) <= 0, not < 0'
>>> fix_for("stream:reverse")
'present order[0], order[1], ... in that order: for t in range(len(order)), take example order[t]'
"""

from __future__ import annotations

from verify.conformance.start import START_FIX

__all__ = ["FIXES", "fix_for", "UNEXPLAINED_FIX"]

_TIES = ("decide a mistake by y * (w . x) <= 0 on the score itself, not by the sign "
         "a prediction gives (a zero score is a mistake whatever the label)")
_ORDER = ("present order[0], order[1], ... in that order: for t in range(len(order)), "
          "take example order[t]")
_FLOAT32 = ("keep the inputs, the weights and the scores in float64 (double, a "
            "JavaScript Number, numpy's float64), or declare --profile "
            "arithmetic=float32 (the cases float32 cannot pass then do not apply)")
_MARGIN = ("update only on a mistake, y * (w . x) <= 0: a correct score up to 1 "
           "is no reason to update (that is the hinge loss, not the perceptron)")

#: The change for each key (or kind: the part before the colon).
FIXES = {
    "rule:strict": "count a zero score as a mistake: update when y * (w . x) <= 0, "
                   "not < 0",
    "rule:zero-positive": _TIES,
    "rule:zero-negative": _TIES,
    "rule:margin": _MARGIN,
    "rule:strict-margin": _MARGIN,
    "rule:update-always": "update inside the `if`: w += y x only when "
                          "y * (w . x) <= 0",
    "stream:wrap-around": "loop exactly len(order) times: for t in "
                          "range(len(order)), with no wrap-around",
    "stream:partial-pass": "present the whole of `order`, its last partial pass "
                           "included (for i in order)",
    "stream:pass-from-one": "loop over every entry of `order` (for i in order), not "
                            "over passes that start at their second",
    "variant:averaged-returned": "return the last iterate w for the last variant, "
                                 "not the average",
    "variant:pocket-ties": "replace the pocket only when a run is longer than the "
                           "best (>, not >=)",
    "multiclass:true-only": "on a mistake add x to the true class's row and "
                            "subtract it from the predicted class's row",
    "rule:within": "compare the score with 0 exactly, with no tolerance: a mistake "
                   "is y * (w . x) <= 0",
    "stream:skip-last": "loop over every entry of `order`, the last one included "
                        "(for i in order)",
    "stream:skip-first": "loop over every entry of `order`, the first one included "
                         "(for i in order)",
    "stream:twice": "present the stream once: one pass over `order`, no outer loop "
                    "of epochs",
    "stream:index-order": _ORDER + ", not example t",
    "stream:sorted": _ORDER + " (repeats where they are), not sorted",
    "stream:reverse": _ORDER,
    "arithmetic:float64": "compute exactly (fractions.Fraction, or integers), or "
                          "declare --profile arithmetic=float64",
    "arithmetic:float32": _FLOAT32,
    "arithmetic": _FLOAT32,
    "arithmetic-sum": "keep the averaged variant's running sum in the arithmetic you "
                      "declare (exact, or float64 with --profile arithmetic=float64)",
    "float64-part": "compute every part in exact arithmetic (the constant 1, the "
                    "running sum, the starting weights: Fraction, not float), or "
                    "declare --profile arithmetic=float64 (the case then does not "
                    "apply)",
    "overflow": "keep the weights in float64 (a Float32Array or a C float overflows "
                "past 3.4e38), or declare --profile arithmetic=float32 (the cases "
                "float32 cannot pass then do not apply)",
    "step": "on a mistake add the example itself, w += rate * y * x, whatever the "
            "length of x",
    "rate": "declare the learning rate the code uses (--profile rate=...), or use the "
            "declared one: w += rate * y * x",
    "dimension:two-constants": "add no constant of your own: when `intercept` is "
                               "true the input already ends with the constant 1",
    "dimension:intercept-added": "append the constant 1 only when the problem's "
                                 "`intercept` is true",
    "dimension:intercept-missing": "when the problem's `intercept` is true, append "
                                   "a constant 1 to every input and report its weight "
                                   "last",
    "intercept-first": "report the intercept's weight last in w, after the others",
    "constant": "append the constant 1 itself (not another number) when `intercept` "
                "is true",
    "variant": "return the variant's vector as the case's rule defines it: the "
               "average of the iterates after every presentation (averaged), the "
               "vector of the longest run of correct presentations (pocket)",
    "multiclass:highest": "break argmax ties toward the lowest class index (the first "
                          "maximum)",
    "multiclass:true-class": "predict by argmax with ties to the lowest index, and "
                             "update whenever that prediction is not the true class",
    "multiclass:one-vs-rest": "use the argmax rule: on a mistake add x to the true "
                              "class's row and subtract it from the predicted one",
    "kernel:start at 1": "start every dual count alpha_i at 0",
    "kernel:add 2": "add 1 to alpha_i on a mistake on example i",
    "kernel:set to 1": "add 1 to alpha_i on a mistake (alpha counts the mistakes), "
                       "do not set it to 1",
    "kernel:no labels": "weigh each term by its label: f_i = sum_j alpha_j y_j G[j][i]",
    "stream:shuffled": "present `order` as given, unshuffled (the suite's stream "
                       "is the order to present; shuffle before you write it, not "
                       "inside fit)",
    "stop": "present the whole stream, with no early stop: the case's `order` says "
            "how many presentations there are, whatever runs of correct ones it has",
    "labels": "use the -1/+1 rule: a mistake is y * (w . x) <= 0 and it adds y x "
              "(the 0/1 rule's y - pred is -1 on every -1 example)",
    "profile": "declare the profile the answers fit (--profile, as the report's first "
               "lines say)",
    "start": START_FIX,
}

#: The change when no misreading reproduces the answer.
UNEXPLAINED_FIX = ("compare your state with the reference's at the first divergent "
                   "step (the example, the score and both weight vectors are given)")


def fix_for(key: str) -> str:
    """The change that removes the cause keyed ``key``: its own entry in
    :data:`FIXES`, else its kind's (a ``rule:within 1e-09 is correct`` is a
    ``rule:within``), else :data:`UNEXPLAINED_FIX`."""
    if key in FIXES:
        return FIXES[key]
    for prefix in ("rule:within", "stream:shuffled"):
        if key.startswith(prefix):
            return FIXES[prefix]
    return FIXES.get(key.partition(":")[0], UNEXPLAINED_FIX)
