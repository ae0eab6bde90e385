(** Steps toward the perceptron cycling theorem: bounds on the weights from ANY start,
    in the additive form the induction of Block and Levin (1970) needs; and the theorem
    with its integer corollary in dimension one. *)
From Markone Require Import Perceptron Cycling.
From mathcomp.algebra_tactics Require Import ring.
From mathcomp Require Import zify.
Local Open Scope ring_scope.

Section Bounded.

Variables (F : realFieldType) (n : nat).
Notation vec := 'rV[F]_n.

Lemma dotNr (u v : vec) : dot u (- v) = - dot u v.
Proof. by rewrite dotC dotNl dotC. Qed.

Lemma normsqN (u : vec) : normsq (- u) = normsq u.
Proof. by rewrite /normsq dotNl dotNr opprK. Qed.

Lemma normsq0 : normsq (0 : vec) = 0.
Proof. exact: dot0l. Qed.

(** Cauchy-Schwarz, squared (no square roots in an ordered field). *)
Lemma cauchy_schwarz (u v : vec) : dot u v ^+ 2 <= normsq u * normsq v.
Proof.
have [Hv|Hv] := boolP (0 < normsq v); last first.
  have /normsq_eq0 -> : normsq v = 0.
    by apply/le_anti; rewrite normsq_ge0 andbT leNgt.
  by rewrite dotC dot0l normsq0 expr2 !mulr0.
have E : normsq (normsq v *: u - dot u v *: v) =
    normsq v * (normsq v * normsq u - dot u v ^+ 2).
  rewrite normsqD normsqN !normsqZ dotNr dotZl dotZr /normsq; ring.
have := normsq_ge0 (normsq v *: u - dot u v *: v).
by rewrite E (pmulr_rge0 _ Hv) subr_ge0 mulrC.
Qed.

(** The triangle inequality, squared: [||x|| <= B] and [||y|| <= M] give
    [||x + y|| <= B + M]. *)
Lemma normsq_add_le (x y : vec) (B M : F) :
  0 <= B -> 0 <= M -> normsq x <= B ^+ 2 -> normsq y <= M ^+ 2 ->
  normsq (x + y) <= (B + M) ^+ 2.
Proof.
move=> HB HM Hx Hy.
have Hxy : dot x y <= B * M.
  have [Hn|Hp] := lerP (dot x y) 0; first exact: le_trans Hn (mulr_ge0 HB HM).
  rewrite -(ler_sqr (ltW Hp)) ?nnegrE ?mulr_ge0 // exprMn.
  apply: le_trans (cauchy_schwarz x y) _.
  by apply: ler_pmul => //; apply: normsq_ge0.
rewrite normsqD sqrrD -mulr_natl.
apply: ler_add => //; apply: ler_add => //.
by rewrite ler_pmul2l ?ltr0n.
Qed.

(** The ball lemma for a dominating centre: if every example [z] of the stream has
    [||z||^2 + delta <= 2 a . z], every mistake brings the weights [delta] closer to
    [a] (in squared distance), from any start, in any order. *)
Lemma dominated_decrease (a : vec) (delta : F) (s : seq vec) :
  (forall z, z \in s -> normsq z + delta <= 2 * dot a z) ->
  forall w, (run perceptron_update w s).2%:R * delta +
    normsq ((run perceptron_update w s).1 - a) <= normsq (w - a).
Proof.
move=> Ha; apply: ball_decrease => v z Hz Hm.
rewrite /perceptron_update addrAC normsqD dotBl -subr_ge0.
have -> : normsq (v - a) - (normsq (v - a) + 2 * (dot v z - dot a z) + normsq z + delta)
  = 2 * - dot v z + (2 * dot a z - (normsq z + delta)) by ring.
apply: addr_ge0; last by rewrite subr_ge0 Ha.
by apply: mulr_ge0; rewrite ?ler0n // oppr_ge0.
Qed.

(** With no decrease: no mistake moves the weights away from such a centre. *)
Theorem dominated_run (a : vec) (s : seq vec) :
  (forall z, z \in s -> normsq z <= 2 * dot a z) ->
  forall w, normsq ((run perceptron_update w s).1 - a) <= normsq (w - a).
Proof.
move=> Ha w; have := @dominated_decrease a 0 s _ w; rewrite mulr0 add0r; apply.
by move=> z Hz; rewrite addr0 Ha.
Qed.

(** Novikoff's centre [(R2 / gamma) u] dominates separable data, with [delta = R2]. *)
Lemma separable_centre (u z : vec) (gamma R2 : F) :
  0 < gamma -> gamma <= dot u z -> normsq z <= R2 ->
  normsq z + R2 <= 2 * dot ((R2 / gamma) *: u) z.
Proof.
move=> Hg Huz HR; have HR0 : 0 <= R2 := le_trans (normsq_ge0 z) HR.
rewrite dotZl; have H1 : R2 / gamma * gamma <= R2 / gamma * dot u z.
  by apply: ler_wpmul2l; rewrite // divr_ge0 // ltW.
rewrite divfK ?gt_eqF // in H1.
have -> : 2 * (R2 / gamma * dot u z) = R2 / gamma * dot u z + R2 / gamma * dot u z by ring.
exact: ler_add (le_trans HR H1) H1.
Qed.

Lemma centre_le (u : vec) (gamma R2 M : F) :
  0 < gamma -> R2 ^+ 2 * normsq u <= (M * gamma) ^+ 2 -> normsq ((R2 / gamma) *: u) <= M ^+ 2.
Proof.
move=> Hg HuM; rewrite normsqZ expr_div_n -(ler_pmul2r (exprn_gt0 2 Hg)) -exprMn.
by rewrite mulrAC divfK ?gt_eqF ?exprn_gt0.
Qed.

(** The separable case from any start, in the additive form: if [u . z >= gamma > 0]
    and [||z||^2 <= R2] for every example of the stream, the weights stay within
    [2 M] of the start's norm, [M >= R2 ||u|| / gamma]: [||w_t|| <= ||w_0|| + 2 M]. *)
Theorem separable_bounded (u w : vec) (gamma R2 B M : F) (s : seq vec) :
  0 < gamma ->
  (forall z, z \in s -> gamma <= dot u z) ->
  (forall z, z \in s -> normsq z <= R2) ->
  0 <= B -> 0 <= M -> R2 ^+ 2 * normsq u <= (M * gamma) ^+ 2 ->
  normsq w <= B ^+ 2 ->
  normsq (run perceptron_update w s).1 <= (B + 2 * M) ^+ 2.
Proof.
move=> Hg Hmargin Hradius HB HM HuM Hw.
set a := (R2 / gamma) *: u.
have Hdom : forall z, z \in s -> normsq z <= 2 * dot a z.
  move=> z Hz; apply: (le_trans _ (@separable_centre u z gamma R2 Hg (Hmargin z Hz) (Hradius z Hz))).
  by rewrite ler_addl (le_trans (normsq_ge0 z) (Hradius z Hz)).
have Ha : normsq a <= M ^+ 2 by apply: (@centre_le u gamma R2 M).
have H1 : normsq (w - a) <= (B + M) ^+ 2 by apply: normsq_add_le; rewrite ?normsqN.
have H2 : normsq ((run perceptron_update w s).1 - a) <= (B + M) ^+ 2.
  exact: le_trans (@dominated_run a s Hdom w) H1.
have -> : (run perceptron_update w s).1 = ((run perceptron_update w s).1 - a) + a.
  by rewrite subrK.
rewrite mulr_natl mulr2n addrA; apply: normsq_add_le => //.
by rewrite addr_ge0.
Qed.

(** Novikoff from any start: the number of mistakes times [R2] is at most the squared
    distance from the start to the centre [(R2 / gamma) u], so at most
    [(||w_0|| + R2 ||u|| / gamma)^2 / R2] (with [normsq_add_le]). *)
Theorem separable_mistakes (u w : vec) (gamma R2 : F) (s : seq vec) :
  0 < gamma -> (forall z, z \in s -> gamma <= dot u z) ->
  (forall z, z \in s -> normsq z <= R2) ->
  (run perceptron_update w s).2%:R * R2 <= normsq (w - (R2 / gamma) *: u).
Proof.
move=> Hg Hmargin Hradius.
have Hdom : forall z, z \in s -> normsq z + R2 <= 2 * dot ((R2 / gamma) *: u) z.
  by move=> z Hz; apply: separable_centre; rewrite ?Hmargin ?Hradius.
apply: (le_trans _ (@dominated_decrease _ _ s Hdom w)).
by rewrite ler_addl normsq_ge0.
Qed.

(** Directions orthogonal to every example change no decision: the run from [w + v]
    is the run from [w], shifted by [v]. (The lower-dimensional part of a run, in an
    induction on the dimension, is a run of its own.) *)
Lemma run_shift (v : vec) (s : seq vec) :
  (forall z, z \in s -> dot v z = 0) ->
  forall w, run perceptron_update (w + v) s =
    ((run perceptron_update w s).1 + v, (run perceptron_update w s).2).
Proof.
elim: s => [|z s IH] Hv w //=.
have Hv' : forall z', z' \in s -> dot v z' = 0.
  by move=> z' Hz'; apply: Hv; rewrite inE Hz' orbT.
have -> : mistake (w + v) z = mistake w z.
  by rewrite /mistake dotDl (Hv z (mem_head _ _)) addr0.
case: ifP => _; last exact: IH.
by rewrite /perceptron_update addrAC IH.
Qed.

End Bounded.

Section Line.

Variable F : realFieldType.
Notation vec := 'rV[F]_1.

Lemma dot1 (u v : vec) : dot u v = u 0 0 * v 0 0.
Proof. by rewrite /dot big_ord1. Qed.

Lemma mistake_line (p q C : F) :
  p * q <= 0 -> p ^+ 2 <= C -> q ^+ 2 <= C -> (p + q) ^+ 2 <= C.
Proof.
wlog Hqp : p q / q ^+ 2 <= p ^+ 2.
  move=> Hw Hpq Hp Hq; have [H|Hlt] := lerP (q ^+ 2) (p ^+ 2); first exact: (Hw p q).
  by rewrite addrC; apply: (Hw q p) => //; [exact: ltW | rewrite mulrC].
move=> Hpq Hp _; apply: le_trans Hp.
have Hq : q ^+ 2 <= - (p * q).
  rewrite -ler_sqr ?nnegrE ?sqr_ge0 ?oppr_ge0 //.
  have -> : (- (p * q)) ^+ 2 = p ^+ 2 * q ^+ 2 by ring.
  by apply: ler_wpmul2r; rewrite ?sqr_ge0.
rewrite sqrrD -subr_ge0.
have -> : p ^+ 2 - (p ^+ 2 + p * q *+ 2 + q ^+ 2) = - (p * q) + (- (p * q) - q ^+ 2) by ring.
by rewrite addr_ge0 ?subr_ge0 ?oppr_ge0.
Qed.

(** On a line, every ball around zero that holds the start and every example holds the
    whole run: [|w_t| <= max(|w_0|, max |z|)], whatever the data and the order. *)
Theorem line_bounded (C : F) (s : seq vec) :
  (forall z, z \in s -> normsq z <= C) ->
  forall w, normsq w <= C -> normsq (run perceptron_update w s).1 <= C.
Proof.
elim: s => [|z s IH] Hs w Hw //=.
have Hs' : forall z', z' \in s -> normsq z' <= C.
  by move=> z' Hz'; apply: Hs; rewrite inE Hz' orbT.
case: ifP => Hm /=; apply: IH => //.
move: Hm Hw (Hs z (mem_head _ _)); rewrite /mistake /normsq !dot1 /perceptron_update mxE.
by rewrite -!expr2; apply: mistake_line.
Qed.

End Line.

Section LineCycles.

Variable F : realFieldType.
Notation vec := 'rV[F]_1.

(** The integer [k] as a vector of the line. *)
Definition iv (k : int) : vec := const_mx (k%:~R).

Lemma ivD k m : iv k + iv m = iv (k + m).
Proof. by apply/rowP => j; rewrite !mxE rmorphD. Qed.

Lemma iv_mistake k m : mistake (iv k) (iv m) -> k * m <= 0.
Proof. by rewrite /mistake dot1 !mxE -intrM lerz0. Qed.

(** The [2R + 1] integer vectors of the line within [R] of zero. *)
Definition line_ints (R : nat) : seq vec := [seq iv (i%:Z - R%:Z) | i <- iota 0 R.*2.+1].

Lemma mem_line_ints (R : nat) k : - (R%:Z) <= k <= R%:Z -> iv k \in line_ints R.
Proof.
move=> Hk; apply/mapP; exists (absz (k + R%:Z)); last by congr iv; lia.
by rewrite mem_iota; lia.
Qed.

Lemma line_ints_bound (R : nat) w :
  w \in line_ints R -> exists k, w = iv k /\ - (R%:Z) <= k <= R%:Z.
Proof.
case/mapP => i; rewrite mem_iota => Hi ->; exists (i%:Z - R%:Z); split => //; lia.
Qed.

(** Integer examples of size at most [R] on a line: the integer vectors within [R] of
    zero are closed under the updates. *)
Lemma line_closed (M : seq int) (R : nat) :
  (forall m, m \in M -> - (R%:Z) <= m <= R%:Z) ->
  @closed F 1 [seq iv m | m <- M] (line_ints R).
Proof.
move=> HM w z /line_ints_bound [k [-> Hk]] /mapP [m Hm ->] /iv_mistake Hkm.
rewrite /perceptron_update ivD; apply: mem_line_ints.
by have := HM m Hm; move: Hk Hkm; nia.
Qed.

(** The cycling theorem and its corollary on a line, for integer data: in the cyclic
    order, two passes [i < j <= 2R + 1] start from the same weights, and every later
    pass repeats: transient plus period is at most [2R + 1] passes. *)
Theorem line_cycles (M : seq int) (R : nat) :
  (forall m, m \in M -> - (R%:Z) <= m <= R%:Z) ->
  exists i j, [/\ (i < j)%N, (j <= R.*2.+1)%N &
    forall k, @epochs F 1 [seq iv m | m <- M] (k + i) = @epochs F 1 [seq iv m | m <- M] (k + j)].
Proof.
move=> HM; have H0 : (0 : vec) \in line_ints R.
  have -> : (0 : vec) = iv 0 by apply/rowP => j; rewrite !mxE.
  by apply: (mem_line_ints R); lia.
have [i [j [Hij Hj Hper]]] := @cycling_closed F 1 _ _ (line_closed M R HM) H0.
exists i, j; split => //; apply: leq_trans Hj _.
by rewrite (leq_trans (size_undup _)) // size_map size_iota.
Qed.

End LineCycles.
