(** Gordan's alternative, the half that [verify]'s certificates use, over any ordered
    field: a non-negative, non-zero combination [sum_i l_i z_i = 0] of the signed rows
    [z_i = y_i [x_i, 1]] proves that no [w] has [w . z_i > 0] for every [i]; and a [w]
    with [w . z_i > 0] for every [i] separates. *)
From Markone Require Import Perceptron.
Local Open Scope ring_scope.

Section Gordan.

Variables (F : realFieldType) (n m : nat).
Notation vec := 'rV[F]_n.

Lemma dot_suml (z : 'I_m -> vec) (w : vec) :
  dot (\sum_i z i) w = \sum_i dot (z i) w.
Proof.
by rewrite (big_morph (fun u => dot u w) (fun u v => dotDl u v w) (dot0l w)).
Qed.

Theorem gordan (z : 'I_m -> vec) (lam : 'I_m -> F) :
  (forall i, 0 <= lam i) -> (exists i, 0 < lam i) -> \sum_i lam i *: z i = 0 ->
  ~ exists w : 'rV[F]_n, forall i, 0 < dot w (z i).
Proof.
move=> Hge [k Hk] Hsum [w Hw].
have : dot (\sum_i lam i *: z i) w = 0 by rewrite Hsum dot0l.
rewrite dot_suml (bigD1 k) //= dotZl => H0.
have Hrest : 0 <= \sum_(i | i != k) dot (lam i *: z i) w.
  by apply: sumr_ge0 => i _; rewrite dotZl mulr_ge0 // dotC ltW.
have Hfirst : 0 < lam k * dot (z k) w by rewrite mulr_gt0 // dotC.
by move: (ltr_paddr Hrest Hfirst); rewrite H0 ltxx.
Qed.

(** A witness: [w . z_i > 0] for every [i] is what "separable" means. *)
Theorem witness_separates (z : 'I_m -> vec) (w : vec) :
  (forall i, 0 < dot w (z i)) -> exists w : vec, forall i, 0 < dot w (z i).
Proof. by move=> H; exists w. Qed.

End Gordan.
