"""Kernel-checked theorems (Coq + mathcomp) and the certificate checker extracted from them.

The Coq sources live here, next to this package (``_CoqProject`` lists them in build
order); :func:`build` compiles them outside the source tree and links the extracted
checker, :func:`check_with_coq` runs it (``markone verify check --checker coq CERT``).

:data:`THEOREMS` is the table that ties each theorem to the code that relies on it: its
Coq name and file, the formula it proves (as the Coq statement writes it), a hypothesis
whose constants the code also uses (``condition``), the Python function that relies on
them, and the axioms it may rest on (none: every theorem is closed under the global
context). The tests compile the development, run
``Print Assumptions`` on each, and check the Python constants against these rows.

>>> [t.name for t in THEOREMS][:3]
['novikoff', 'novikoff_intercept', 'ball_bound']
"""

from __future__ import annotations

import dataclasses

from verify.coq.build import CoqBuild, build, missing_tools, print_assumptions
from verify.coq.checker import certificate_text, check_with_coq

__all__ = ["THEOREMS", "Theorem", "CoqBuild", "build", "missing_tools",
           "print_assumptions", "certificate_text", "check_with_coq"]


@dataclasses.dataclass(frozen=True)
class Theorem:
    """One kernel-checked theorem: ``name`` in ``module`` (``module.v``), the formula it
    proves (``conclusion``, verbatim from the statement) and, when the code uses its
    constants too, one hypothesis (``condition``, verbatim), the Python function that
    relies on it (``used_by``; empty for a step toward a theorem that no code relies
    on yet), and the axioms it may use."""

    name: str
    module: str
    conclusion: str
    used_by: str
    axioms: tuple[str, ...] = ()
    condition: str = ""


#: Every main theorem, with the code that relies on it.
THEOREMS = (
    Theorem("novikoff", "Novikoff",
            "(mistakes perceptron_update s)%:R <= R ^+ 2 * normsq u / gamma ^+ 2",
            "verify.margin.novikoff_bound"),
    Theorem("novikoff_intercept", "Novikoff",
            "<= (R ^+ 2 + c ^+ 2) * (normsq u + b ^+ 2) / gamma ^+ 2",
            "verify.margin.intercept_theorem_bound"),
    Theorem("ball_bound", "Perceptron",
            "(mistakes upd s)%:R * delta <= normsq a",
            "verify.bounds.check_mistake_bound"),
    Theorem("clipped_ball", "Clipped",
            "(mistakes (clipped_update lo hi e) s)%:R <= normsq a / delta",
            "verify.machine.check_projected_ball",
            condition="delta <= e * (2 * dot a z - e * normsq z)"),
    Theorem("orthogonal_mistakes", "Orthonormal",
            "mistakes perceptron_update s = size s", "verify.adversary.orthonormal_case"),
    Theorem("check_witness_sound", "Checker",
            "check intercept data (Witness w) = true -> separates_data intercept w data",
            "verify.certificate.kernel.check_certificate"),
    Theorem("check_certificate_sound", "Checker",
            "check intercept data (Certificate cert) = true ->\n"
            "  ~ exists w, separates_data intercept w data",
            "verify.certificate.kernel.check_certificate"),
    Theorem("check_witness_correct", "Checker",
            "check_witness zs w = true <->", "verify.coq.check_with_coq"),
    Theorem("gordan", "Gordan",
            "~ exists w : 'rV[F]_n, forall i, 0 < dot w (z i)",
            "verify.certificate.kernel.check_certificate"),
    Theorem("kesler_bound", "Kesler",
            "(multiclass_mistakes s)%:R <= 2 * R ^+ 2 * normsq (mxvec U) / gamma ^+ 2",
            "verify.bounds.check_multiclass_bound"),
    Theorem("freund_schapire", "FreundSchapire",
            "(mistakes perceptron_update s)%:R <= ((R + D) / gamma) ^+ 2",
            "verify.bounds.freund_schapire_bound",
            condition="\\sum_(z <- s) hinge z ^+ 2 <= D ^+ 2"),
    Theorem("closed_bounded", "Cycling",
            "normsq (run perceptron_update 0 (take t s)).1 <= C",
            "verify.cycling.cycle_bound",
            condition="closed Z S -> 0 \\in S -> {subset s <= Z}"),
    Theorem("cycling_closed", "Cycling",
            "exists i j, [/\\ (i < j)%N, (j <= size (undup S))%N &\n"
            "    forall k, epochs Z (k + i) = epochs Z (k + j)]",
            "verify.cycling.cycle_bound", condition="closed Z S -> 0 \\in S ->"),
    # Steps toward the cycling theorem (Block-Levin): no Python number rests on them yet.
    Theorem("dominated_run", "Bounded",
            "normsq ((run perceptron_update w s).1 - a) <= normsq (w - a)", "",
            condition="(forall z, z \\in s -> normsq z <= 2 * dot a z)"),
    Theorem("separable_bounded", "Bounded",
            "normsq (run perceptron_update w s).1 <= (B + 2 * M) ^+ 2", "",
            condition="R2 ^+ 2 * normsq u <= (M * gamma) ^+ 2"),
    Theorem("separable_mistakes", "Bounded",
            "(run perceptron_update w s).2%:R * R2 <= normsq (w - (R2 / gamma) *: u)", "",
            condition="0 < gamma -> (forall z, z \\in s -> gamma <= dot u z) ->"),
    Theorem("run_shift", "Bounded",
            "forall w, run perceptron_update (w + v) s =", "",
            condition="(forall z, z \\in s -> dot v z = 0)"),
    Theorem("line_bounded", "Bounded",
            "forall w, normsq w <= C -> normsq (run perceptron_update w s).1 <= C", "",
            condition="(forall z, z \\in s -> normsq z <= C)"),
    Theorem("line_cycles", "Bounded",
            "exists i j, [/\\ (i < j)%N, (j <= R.*2.+1)%N &", "",
            condition="(forall m, m \\in M -> - (R%:Z) <= m <= R%:Z)"),
    # The cycling theorem itself (Block-Levin), over any ordered field, with its
    # constant a definition (cycling_K, cycling_R); verify cycling's number is still
    # the closed set its search finds.
    Theorem("proj_bound", "Span",
            "normsq (proj N x) <= proj_C N * sumsq N x", ""),
    Theorem("cycling_bounded", "BlockLevin",
            "{subset s <= Z} -> normsq (run perceptron_update w s).1 <= "
            "normsq w + cycling_K Z", ""),
    Theorem("cycling_theorem", "BlockLevin",
            "{subset s <= Z} -> normsq (run perceptron_update 0 (take t s)).1 "
            "<= cycling_K Z", "verify.cycling.check_cycling"),
    Theorem("integer_cycles", "CyclingIntegers",
            "exists i j, [/\\ (i < j)%N, (j <= (cycling_R Z).*2.+1 ^ n)%N &\n"
            "    forall k, ep Z (k + i) = ep Z (k + j)]", "verify.cycling.check_cycling",
            condition="(forall z, z \\in Z -> intvec z)"),
    Theorem("integer_reachable", "CyclingIntegers",
            "(size S <= (cycling_R Z).*2.+1 ^ n)%N", "verify.cycling.check_cycling",
            condition="(forall v, v \\in S -> exists2 s, {subset s <= Z} & "
            "v = (run perceptron_update 0 s).1)"),
    Theorem("check_certificate_cycles", "CheckerRuns",
            "forall w p, (p <= snd (qrun w (concat (repeat (rows intercept data) p))))%nat",
            "verify.coq.check_with_coq",
            condition="check intercept data (Certificate cert) = true"),
    Theorem("check_witness_novikoff", "CheckerRuns",
            "<= radius2 (rows intercept data) * dot w w", "verify.margin.witness_novikoff",
            condition="check intercept data (Witness w) = true"),
    Theorem("box_worst_at_witness", "Tolerance",
            "y * dot (vadd w (push e y x)) x <= y * dot (vadd w dw) x",
            "verify.machine.theory.worst_case.r_unit_worst_case",
            condition="Forall (fun d => Qabs d <= e) dw"),
    Theorem("forced_worst_at_witness", "Tolerance",
            "y * dot w (force a Ks x) <= y * dot w (force a K x)",
            "verify.machine.theory.worst_case.r_unit_worst_case",
            condition="(length K <= length Ks)%nat"),
    Theorem("tolerance_sound", "Tolerance",
            "forall y x, In (y, x) (figures c) -> 0 < y * dot (vadd (weights c) dw) x",
            "verify.coq.tolerance.check_tolerance_with_coq",
            condition="0 <= e < tolerance c"),
    Theorem("dead_sound", "Tolerance",
            "forall y x, In (y, x) (figures c) -> 0 < y * dot (weights c) (force 0 K x)",
            "verify.coq.tolerance.check_tolerance_with_coq",
            condition="(length K <= dead c)%nat"),
    Theorem("stuck_sound", "Tolerance",
            "forall y x, In (y, x) (figures c) -> 0 < y * dot (weights c) (force 1 K x)",
            "verify.coq.tolerance.check_tolerance_with_coq",
            condition="(length K <= k)%nat"),
    Theorem("table_sound", "Tolerance",
            "0 < y * dot (vadd (weights c) dw) (force 0 K x)",
            "verify.coq.tolerance.check_tolerance_with_coq",
            condition="nth_error (table c) k = Some (delta, ss, i, Ks)"),
    Theorem("check_cycle_periodic", "CycleCheck",
            "forall k s, qrun w0 (pre ++ concat (repeat per k) ++ s) =",
            "verify.certificate.cycles.check_cycle",
            condition="check_cycle intercept data a r q tu ups = true"),
    Theorem("check_cycle_diverges", "CycleCheck",
            "forall k, Nat.le k (snd (qrun (repeat 0 (width (rows intercept data)))",
            "verify.coq.check_with_coq",
            condition="check_cycle intercept data a r q tu ups = true"),
    Theorem("check_cycle_unbounded", "CycleCheck",
            "~ exists B, forall p, Nat.le (snd (qrun (repeat 0 (width (rows intercept "
            "data)))", "verify.coq.check_with_coq",
            condition="check_cycle intercept data a r q tu ups = true"),
)
