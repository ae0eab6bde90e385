(** The clipped Novikoff ball: the perceptron whose weights are clipped, coordinate by
    coordinate, to a box (the Mark I's end stops) still makes a bounded number of
    mistakes, on every stream, when the box holds a centre [a] with
    [y x . a > e ||x||^2 / 2] on every example. *)
From Markone Require Import Perceptron.
From mathcomp.algebra_tactics Require Import ring.
Local Open Scope ring_scope.

Section Clipped.

Variables (F : realFieldType) (n : nat).
Notation vec := 'rV[F]_n.

(** One coordinate moved into [[lo, hi]]: an end stop. *)
Definition clip1 (lo hi v : F) : F := if v < lo then lo else if hi < v then hi else v.
Definition clip (lo hi v : vec) : vec := \row_j clip1 (lo 0 j) (hi 0 j) (v 0 j).

(** The step [e > 0] on a mistake, then the end stops. *)
Definition clipped_update (lo hi : vec) (e : F) (w z : vec) : vec := clip lo hi (w + e *: z).

Lemma clip1_closer (lo hi a v : F) :
  lo <= a -> a <= hi -> (clip1 lo hi v - a) ^+ 2 <= (v - a) ^+ 2.
Proof.
move=> Hlo Hhi; rewrite /clip1; case: ifP => [Hv|_].
  rewrite -(sqrrN (lo - a)) -(sqrrN (v - a)) !opprB ler_sqr ?nnegrE ?subr_ge0 //.
    by rewrite ler_add2l ler_opp2 ltW.
  by rewrite (le_trans (ltW Hv)).
case: ifP => [Hv|_] //.
rewrite ler_sqr ?nnegrE ?subr_ge0 //; first by rewrite ler_add2r ltW.
by rewrite (le_trans Hhi) ?ltW.
Qed.

Lemma clip_closer (lo hi a v : vec) :
  (forall j, lo 0 j <= a 0 j <= hi 0 j) -> normsq (clip lo hi v - a) <= normsq (v - a).
Proof.
move=> Hbox; rewrite /normsq /dot; apply: ler_sum => j _.
rewrite !mxE -!expr2; case/andP: (Hbox j) => Hl Hh; exact: clip1_closer.
Qed.

(** Every mistake, clipped or not, lowers [||w - a||^2] by at least [delta]. *)
Lemma clipped_decrease (lo hi a : vec) (e delta : F) (w z : vec) :
  0 < e -> (forall j, lo 0 j <= a 0 j <= hi 0 j) ->
  delta <= e * (2 * dot a z - e * normsq z) -> mistake w z ->
  normsq (clipped_update lo hi e w z - a) + delta <= normsq (w - a).
Proof.
move=> He Hbox Hd Hm; rewrite /clipped_update.
apply: (@le_trans _ _ (normsq (w + e *: z - a) + delta)).
  by rewrite ler_add2r clip_closer.
rewrite addrAC normsqD dotZr dotBl normsqZ -subr_ge0.
have -> : normsq (w - a) - (normsq (w - a) + 2 * (e * (dot w z - dot a z)) +
    e ^+ 2 * normsq z + delta) =
    2 * e * (- dot w z) + (e * (2 * dot a z - e * normsq z) - delta) by ring.
have H2e : 0 <= 2 * e by rewrite mulr_ge0 ?ler0n ?ltW.
have Hwz : 0 <= - dot w z by rewrite oppr_ge0.
have Hdz : 0 <= e * (2 * dot a z - e * normsq z) - delta by rewrite subr_ge0.
exact: (addr_ge0 (mulr_ge0 H2e Hwz) Hdz).
Qed.

(** The clipped Novikoff ball: at most [||a||^2 / delta] mistakes on every stream. *)
Theorem clipped_ball (lo hi a : vec) (e delta : F) (s : seq vec) :
  0 < e -> 0 < delta -> (forall j, lo 0 j <= a 0 j <= hi 0 j) ->
  (forall z, z \in s -> delta <= e * (2 * dot a z - e * normsq z)) ->
  (mistakes (clipped_update lo hi e) s)%:R <= normsq a / delta.
Proof.
move=> He Hd Hbox Hdec; rewrite ler_pdivl_mulr //.
by apply: ball_bound => w z Hz Hm; apply: clipped_decrease => //; apply: Hdec.
Qed.

End Clipped.
