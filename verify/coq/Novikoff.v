(** Novikoff's theorem for every stream, and its intercept form. *)
From Markone Require Import Perceptron.
From mathcomp.algebra_tactics Require Import ring.
Local Open Scope ring_scope.

Section Novikoff.

Variables (F : realFieldType) (n : nat).
Notation vec := 'rV[F]_n.

(** markone's rule on a labelled example [(x, y)] is the rule on [z = y x]. *)
Lemma labelled_rule (w x : vec) (y : F) :
  mistake w (y *: x) = (y * dot w x <= 0) /\ perceptron_update w (y *: x) = w + y *: x.
Proof. by rewrite /mistake dotZr. Qed.

(** Novikoff with a squared radius [R2] (a bound on every [||z||^2]). *)
Theorem novikoff_sq (u : vec) (gamma R2 : F) (s : seq vec) :
  0 < gamma -> 0 <= R2 ->
  (forall z, z \in s -> gamma <= dot u z) ->
  (forall z, z \in s -> normsq z <= R2) ->
  (mistakes perceptron_update s)%:R <= R2 * normsq u / gamma ^+ 2.
Proof.
move=> Hg HR2ge Hmargin Hradius.
have Hg2 : 0 < gamma ^+ 2 by rewrite exprn_gt0.
have [HR2|HR20] := boolP (0 < R2); last first.
  have R0 : R2 = 0 by apply/le_anti; rewrite HR2ge andbT leNgt.
  case: s Hmargin Hradius => [|z s] Hmargin Hradius.
    rewrite /mistakes /=; apply: divr_ge0; last exact: ltW.
    by apply: mulr_ge0; [exact: HR2ge | exact: normsq_ge0].
  have /normsq_eq0 Hz : normsq z = 0.
    apply/le_anti; rewrite normsq_ge0 andbT.
    by move: (Hradius z (mem_head _ _)); rewrite R0.
  move: (Hmargin z (mem_head _ _)); rewrite Hz /dot big1 => [Hle|i _]; last first.
    by rewrite mxE mulr0.
  by move: (lt_le_trans Hg Hle); rewrite ltxx.
set c := R2 / gamma.
have Hc : 0 < c by rewrite divr_gt0.
have Hbound := @ball_bound F n perceptron_update (c *: u) R2 s.
have Hdec : forall w z, z \in s -> mistake w z ->
    normsq (perceptron_update w z - c *: u) + R2 <= normsq (w - c *: u).
  move=> w z Hz Hm; rewrite /perceptron_update addrAC normsqD dotBl dotZl.
  rewrite -subr_ge0.
  have -> : normsq (w - c *: u) - (normsq (w - c *: u) + 2 * (dot w z - c * dot u z) +
    normsq z + R2) = 2 * (c * dot u z - R2) + (R2 - normsq z) + 2 * (- dot w z) by ring.
  have Hwz : 0 <= - dot w z by rewrite oppr_ge0.
  have Hzz : 0 <= R2 - normsq z by rewrite subr_ge0 Hradius.
  have Huz : 0 <= c * dot u z - R2.
    rewrite subr_ge0; apply: (@le_trans _ _ (c * gamma)).
      by rewrite /c divfK ?gt_eqF.
    by rewrite ler_pmul2l // Hmargin.
  have H2 : (0 : F) <= 2 by rewrite ler0n.
  exact: (addr_ge0 (addr_ge0 (mulr_ge0 H2 Huz) Hzz) (mulr_ge0 H2 Hwz)).
move: (Hbound Hdec); rewrite normsqZ => Hk.
rewrite -(ler_pmul2r HR2); apply: (le_trans Hk).
rewrite le_eqVlt; apply/orP; left; apply/eqP; rewrite /c; field.
by rewrite gt_eqF.
Qed.

(** Novikoff's theorem: on every stream of signed examples [z = y x] (any order, any
    repetition) with margin [gamma] for [u] and radius [R], the perceptron that starts at
    zero and counts a zero score as a mistake makes at most [R^2 ||u||^2 / gamma^2]
    mistakes. *)
Theorem novikoff (u : vec) (gamma R : F) (s : seq vec) :
  0 < gamma ->
  (forall z, z \in s -> gamma <= dot u z) ->
  (forall z, z \in s -> normsq z <= R ^+ 2) ->
  (mistakes perceptron_update s)%:R <= R ^+ 2 * normsq u / gamma ^+ 2.
Proof. by move=> Hg; apply: novikoff_sq; rewrite ?sqr_ge0. Qed.

End Novikoff.

Section Intercept.

Variables (F : realFieldType) (n : nat).

(** markone's intercept: the constant [c] appended to every input. *)
Definition augment (c : F) (x : 'rV[F]_n) : 'rV[F]_(n + 1) := row_mx x (const_mx c).

Lemma dot_row_mx (a x : 'rV[F]_n) (p q : F) :
  dot (row_mx a (const_mx p : 'rV_1)) (row_mx x (const_mx q : 'rV_1)) = dot a x + p * q.
Proof.
rewrite /dot big_split_ord /=; congr (_ + _).
  by apply: eq_bigr => i _; rewrite !row_mxEl.
by rewrite big_ord1 !row_mxEr !mxE.
Qed.

(** The intercept form: with [y = +-1], margin [gamma <= y (u . x + b c)] and
    [||x||^2 <= R^2], the perceptron on the augmented inputs [[x, c]] makes at most
    [(R^2 + c^2) (||u||^2 + b^2) / gamma^2] mistakes, on every stream. *)
Corollary novikoff_intercept (u : 'rV[F]_n) (b c gamma R : F) (s : seq ('rV[F]_n * F)) :
  0 < gamma ->
  (forall e, e \in s -> e.2 ^+ 2 = 1) ->
  (forall e, e \in s -> gamma <= e.2 * (dot u e.1 + b * c)) ->
  (forall e, e \in s -> normsq e.1 <= R ^+ 2) ->
  (mistakes perceptron_update [seq e.2 *: augment c e.1 | e <- s])%:R
    <= (R ^+ 2 + c ^+ 2) * (normsq u + b ^+ 2) / gamma ^+ 2.
Proof.
move=> Hg Hy Hmargin Hradius.
have -> : normsq u + b ^+ 2 = normsq (row_mx u (const_mx b) : 'rV[F]_(n + 1)).
  by rewrite /normsq dot_row_mx expr2.
apply: novikoff_sq => //; first by rewrite addr_ge0 ?sqr_ge0.
  move=> z /mapP [e He ->]; rewrite dotZr /augment dot_row_mx.
  exact: Hmargin.
move=> z /mapP [e He ->]; rewrite normsqZ Hy // mul1r /normsq /augment dot_row_mx.
by rewrite -expr2 ler_add2r Hradius.
Qed.

End Intercept.
