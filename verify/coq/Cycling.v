(** The perceptron cycling theorem's corollary, from a closed set: every run stays in it,
    and the cyclic-order run is eventually periodic within as many passes as it has weights. *)
From Markone Require Import Perceptron.
Local Open Scope ring_scope.

Section Cycling.

Variables (F : realFieldType) (n : nat).
Notation vec := 'rV[F]_n.

(** [S] is closed under the examples [Z]: a mistake on an example of [Z] at a weight of
    [S] updates to a weight of [S]. *)
Definition closed (Z S : seq vec) : Prop :=
  forall w z, w \in S -> z \in Z -> mistake w z -> perceptron_update w z \in S.

Lemma run_closed (Z S s : seq vec) (w : vec) :
  closed Z S -> {subset s <= Z} -> w \in S -> (run perceptron_update w s).1 \in S.
Proof.
move=> HS; elim: s w => [|z s IH] w Hs Hw //=.
have Hs' : {subset s <= Z} by move=> x Hx; apply: Hs; rewrite inE Hx orbT.
case: ifP => Hm /=; apply: IH => //.
exact: HS Hw (Hs z (mem_head _ _)) Hm.
Qed.

(** Every stream over [Z], every step: the weights stay in [S], so under any bound [C]
    on the squared norms of [S]. *)
Theorem closed_bounded (Z S s : seq vec) (C : F) (t : nat) :
  closed Z S -> 0 \in S -> {subset s <= Z} -> (forall v, v \in S -> normsq v <= C) ->
  normsq (run perceptron_update 0 (take t s)).1 <= C.
Proof.
move=> HS H0 Hs HC; apply: HC; apply: run_closed HS _ H0.
by move=> z Hz; apply: Hs; apply: mem_take Hz.
Qed.

(** One pass over [Z] in its order, and the weights at the start of pass [k]. *)
Definition pass (Z : seq vec) (w : vec) : vec := (run perceptron_update w Z).1.
Definition epochs (Z : seq vec) (k : nat) : vec := iter k (pass Z) 0.

Lemma epochs_in (Z S : seq vec) k : closed Z S -> 0 \in S -> epochs Z k \in S.
Proof. by move=> HS H0; elim: k => //= k IH; apply: run_closed HS _ IH. Qed.

Lemma epochs_periodic (Z : seq vec) i j k :
  epochs Z i = epochs Z j -> epochs Z (k + i) = epochs Z (k + j).
Proof. by move=> H; rewrite /epochs !iterD; congr iter. Qed.

(** The weights at the starts of distinct passes are distinct elements of [S]. *)
Theorem cycling_distinct (Z S : seq vec) j :
  closed Z S -> 0 \in S -> uniq (mkseq (epochs Z) j) -> (j <= size (undup S))%N.
Proof.
move=> HS H0 Hu; rewrite -(size_mkseq (epochs Z) j).
apply: uniq_leq_size => // v /mapP [k _ ->]; rewrite mem_undup; exact: epochs_in.
Qed.

(** The cyclic-order run is eventually periodic: pass [i] and pass [j] start from the
    same weights, with [i < j <= |S|], and from then on every pass repeats. *)
Theorem cycling_closed (Z S : seq vec) :
  closed Z S -> 0 \in S ->
  exists i j, [/\ (i < j)%N, (j <= size (undup S))%N &
    forall k, epochs Z (k + i) = epochs Z (k + j)].
Proof.
move=> HS H0.
have : ~~ uniq (mkseq (epochs Z) (size (undup S)).+1).
  by apply/negP => /(@cycling_distinct Z S _ HS H0); rewrite ltnn.
case/(uniqPn 0) => i [j [Hij Hj]]; rewrite size_mkseq in Hj.
rewrite !nth_mkseq // => [Heq|]; last exact: ltn_trans Hij Hj.
exists i, j; split => //; last by move=> k; apply: epochs_periodic.
Qed.

End Cycling.
