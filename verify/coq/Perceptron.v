(** The perceptron over an ordered field: vectors, the update rule, the ball lemma. *)
(* The other files import this one, and with it the mathcomp theories it rests on:
   only those (not all_ssreflect/all_algebra, nor the [ring] tactic, which the files
   that use it require themselves): every coqc loads fewer libraries. *)
From mathcomp Require Export ssreflect ssrfun ssrbool eqtype ssrnat seq choice fintype.
From mathcomp Require Export finfun bigop order ssralg zmodp ssrnum ssrint matrix.

Set Implicit Arguments.
Unset Strict Implicit.
Unset Printing Implicit Defensive.

Export Order.TTheory GRing.Theory Num.Theory.
Local Open Scope ring_scope.

Section Perceptron.

Variables (F : realFieldType) (n : nat).
Notation vec := 'rV[F]_n.

Definition dot (u v : vec) : F := \sum_i u 0 i * v 0 i.
Definition normsq (u : vec) : F := dot u u.

Lemma dotC u v : dot u v = dot v u.
Proof. by apply: eq_bigr => i _; rewrite mulrC. Qed.

Lemma dotDl u v w : dot (u + v) w = dot u w + dot v w.
Proof. by rewrite /dot -big_split; apply: eq_bigr => i _; rewrite !mxE mulrDl. Qed.

Lemma dotNl u w : dot (- u) w = - dot u w.
Proof. by rewrite /dot -sumrN; apply: eq_bigr => i _; rewrite !mxE mulNr. Qed.

Lemma dotZl a u w : dot (a *: u) w = a * dot u w.
Proof. by rewrite /dot mulr_sumr; apply: eq_bigr => i _; rewrite !mxE mulrA. Qed.

Lemma dotZr a u w : dot u (a *: w) = a * dot u w.
Proof. by rewrite dotC dotZl dotC. Qed.

Lemma normsqZ a u : normsq (a *: u) = a ^+ 2 * normsq u.
Proof. by rewrite /normsq dotZl dotZr mulrA -expr2. Qed.

Lemma dotBl u v w : dot (u - v) w = dot u w - dot v w.
Proof. by rewrite dotDl dotNl. Qed.

Lemma dot0l w : dot 0 w = 0.
Proof. by rewrite /dot big1 // => i _; rewrite mxE mul0r. Qed.

Lemma normsq_ge0 u : 0 <= normsq u.
Proof. by apply: sumr_ge0 => i _; rewrite -expr2 sqr_ge0. Qed.

Lemma normsq_eq0 u : normsq u = 0 -> u = 0.
Proof.
move=> /eqP; rewrite /normsq /dot psumr_eq0 => [/allP H|i _]; last first.
  by rewrite -expr2 sqr_ge0.
apply/rowP => i; rewrite mxE; apply/eqP.
by move: (H i (mem_index_enum i)); rewrite -expr2 sqrf_eq0.
Qed.

Lemma normsqD u v : normsq (u + v) = normsq u + 2 * dot u v + normsq v.
Proof.
rewrite /normsq dotDl (dotC u) (dotC v) !dotDl (dotC v u) mulrzl -pmulrn mulr2n.
by rewrite !addrA.
Qed.

(** The rule markone uses: a score <= 0 is a mistake (a zero score too). *)
Definition mistake (w z : vec) : bool := dot w z <= 0.

(** A run over a stream of signed examples [z = y x] (any sequence, any order),
    with an update [upd w z] on every mistake; it returns the final weights and the
    number of mistakes. The plain perceptron updates [w + z]. *)
Fixpoint run (upd : vec -> vec -> vec) (w : vec) (s : seq vec) : vec * nat :=
  if s is z :: s' then
    if mistake w z then let p := run upd (upd w z) s' in (p.1, p.2.+1)
    else run upd w s'
  else (w, 0%N).

Definition perceptron_update (w z : vec) : vec := w + z.

(** The zero start. *)
Definition mistakes (upd : vec -> vec -> vec) (s : seq vec) : nat := (run upd 0 s).2.

(** The ball lemma: when every mistake on the stream lowers [||w - a||^2] by at
    least [delta], the number of mistakes times [delta] is at most [||w0 - a||^2]. *)
Lemma ball_decrease (upd : vec -> vec -> vec) (a : vec) (delta : F) (s : seq vec) :
  (forall w z, z \in s -> mistake w z -> normsq (upd w z - a) + delta <= normsq (w - a)) ->
  forall w, (run upd w s).2%:R * delta + normsq ((run upd w s).1 - a) <= normsq (w - a).
Proof.
elim: s => [|z s IH] Hdec w /=; first by rewrite mul0r add0r.
have IH' : forall w z', z' \in s -> mistake w z' ->
    normsq (upd w z' - a) + delta <= normsq (w - a).
  by move=> w' z' Hz'; apply: Hdec; rewrite inE Hz' orbT.
case: ifP => Hm /=; last exact: IH.
apply: le_trans (Hdec w z (mem_head _ _) Hm).
move: (IH IH' (upd w z)); rewrite -[(run upd (upd w z) s).2.+1]addn1 natrD mulrDl mul1r.
by rewrite -addrA (addrC delta) addrA ler_add2r.
Qed.

Theorem ball_bound (upd : vec -> vec -> vec) (a : vec) (delta : F) (s : seq vec) :
  (forall w z, z \in s -> mistake w z -> normsq (upd w z - a) + delta <= normsq (w - a)) ->
  (mistakes upd s)%:R * delta <= normsq a.
Proof.
move=> H; move: (ball_decrease H 0); rewrite sub0r /normsq dotNl dotC dotNl opprK.
by move=> /(le_trans _)-> //; rewrite ler_addl normsq_ge0.
Qed.

End Perceptron.

Arguments dot {F n}.
Arguments normsq {F n}.
Arguments mistake {F n}.
Arguments run {F n}.
Arguments perceptron_update {F n}.
Arguments mistakes {F n}.
