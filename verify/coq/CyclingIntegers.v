(** The cycling theorem's corollary for integer data, in every dimension: over the
    rationals, the perceptron run from zero in the cyclic order on examples with integer
    coordinates is eventually periodic, within [(2R + 1)^n] passes for some [R]: the
    weights stay in the ball of [cycling_theorem] (BlockLevin.v), and integer vectors
    of a ball are finitely many. *)
From Markone Require Import Perceptron Cycling Span BlockLevin.
From mathcomp Require Import rat zify.
Unset Printing Implicit Defensive.
Local Open Scope ring_scope.

Section IntegerCycles.

Variable n : nat.
Notation vec := 'rV[rat]_n.

(** Every coordinate is an integer. *)
Definition intvec (v : vec) : bool := [forall i, v 0 i \is a Qint].

Lemma intvecD u v : intvec u -> intvec v -> intvec (u + v).
Proof. by move=> /forallP Hu /forallP Hv; apply/forallP => i; rewrite mxE rpredD. Qed.

Lemma intvec0 : intvec 0.
Proof. by apply/forallP => i; rewrite mxE rpred0. Qed.

Lemma foldl_intvec (Z s : seq vec) w : (forall z, z \in Z -> intvec z) ->
  {subset s <= Z} -> intvec w -> intvec (foldl step w s).
Proof.
move=> HZ; elim: s w => [|z s IH] w Hs Hw //=; apply: IH.
  by move=> y Hy; apply: Hs; rewrite inE Hy orbT.
by rewrite /step; case: ifP => _ //; apply: intvecD Hw (HZ z (Hs z (mem_head _ _))).
Qed.

(** Pass [k] starts where the stream of [k] copies of [Z] ends. *)
Lemma epochs_foldl (Z : seq vec) k : @epochs rat_realFieldType n Z k = foldl step 0 (flatten (nseq k Z)).
Proof.
elim: k => // k IH; have -> : @epochs rat_realFieldType n Z k.+1 = @pass rat_realFieldType n Z (@epochs rat_realFieldType n Z k) by [].
rewrite IH /pass run_foldl -foldl_cat; congr foldl => /=.
by elim: k {IH} => /= [|k IH]; rewrite ?cats0 // -catA IH.
Qed.

Lemma coord_le (v : vec) i : v 0 i ^+ 2 <= normsq v.
Proof.
rewrite /normsq /dot (bigD1 i) //= -expr2 ler_addl.
by apply: sumr_ge0 => j _; rewrite -expr2 sqr_ge0.
Qed.

(** An integer coordinate of a vector in the ball [||v||^2 <= K] is within [R] of zero,
    for any natural [R > K]. *)
Lemma coord_bound (v : vec) (K : rat) (R : nat) i :
  intvec v -> normsq v <= K -> K < R%:R -> - (R%:Z) <= numq (v 0 i) <= R%:Z.
Proof.
move=> /forallP /(_ i) Hi Hv HK; have Hx := numqK Hi; set m := numq (v 0 i) in Hx *.
have H1 : (`|m| <= m * m)%R by nia.
have H2 : (`|m|)%:~R <= v 0 i ^+ 2 :> rat by rewrite -Hx expr2 -intrM ler_int.
have H3 : (`|m|)%:~R < (R%:Z)%:~R :> rat.
  have -> : ((R%:Z)%:~R : rat) = R%:R by [].
  apply: le_lt_trans H2 (le_lt_trans (le_trans (coord_le v i) Hv) HK).
by move: H3; rewrite ltr_int; lia.
Qed.

(** The code of a vector with integer coordinates in [[-R, R]]: a function to [[0, 2R]]. *)
Definition code (R : nat) (v : vec) : {ffun 'I_n -> 'I_(R.*2.+1)} :=
  [ffun i => inord (absz (numq (v 0 i) + R%:Z))].

Lemma code_inj (R : nat) (u v : vec) : intvec u -> intvec v ->
  (forall i, - (R%:Z) <= numq (u 0 i) <= R%:Z) ->
  (forall i, - (R%:Z) <= numq (v 0 i) <= R%:Z) ->
  code R u = code R v -> u = v.
Proof.
move=> /forallP Hu /forallP Hv Bu Bv /ffunP Hc; apply/rowP => i.
move: (Hc i); rewrite !ffunE => /(congr1 (@nat_of_ord _)); rewrite !inordK;
  try by move: (Bu i) (Bv i); lia.
move=> Habs; have Hq : numq (u 0 i) = numq (v 0 i) by move: Habs (Bu i) (Bv i); lia.
by rewrite -(numqK (Hu i)) -(numqK (Hv i)) Hq.
Qed.

Notation ep := (@epochs rat_realFieldType n).

(** A natural number above a rational: one more than its numerator's absolute value. *)
Lemma numq_bound (x : rat) : x < ((absz (numq x)).+1)%:R.
Proof.
have Hd := denq_gt0 x; rewrite -[x in x < _]divq_num_den ltr_pdivr_mulr ?ltr0z //.
have -> : (((absz (numq x)).+1)%:R : rat) = ((absz (numq x)).+1)%:Z%:~R by [].
by rewrite -intrM ltr_int; nia.
Qed.

(** The natural bound of the corollaries: [cycling_K Z < cycling_R Z], so every integer
    coordinate of a reachable weight vector lies in [[-R, R]]. *)
Definition cycling_R (Z : seq vec) : nat := (absz (numq (cycling_K Z))).+1.

Lemma cycling_RP (Z : seq vec) : cycling_K Z < (cycling_R Z)%:R.
Proof. exact: numq_bound. Qed.

(** The corollary: integer examples, the cyclic order, a zero start. Two passes
    [i < j <= (2R + 1)^n] start from the same weights, and every later pass repeats. *)
Theorem integer_cycles (Z : seq vec) : (forall z, z \in Z -> intvec z) ->
  exists i j, [/\ (i < j)%N, (j <= (cycling_R Z).*2.+1 ^ n)%N &
    forall k, ep Z (k + i) = ep Z (k + j)].
Proof.
move=> HZ; have HK := @cycling_theorem _ n Z; set K := cycling_K Z in HK.
set R := cycling_R Z; have HR : K < R%:R := cycling_RP Z.
have Hball : forall k, normsq (ep Z k) <= K.
  move=> k; rewrite epochs_foldl; set s := flatten (nseq k Z).
  have Hs : {subset s <= Z}.
    by move=> z /flattenP [y]; rewrite mem_nseq => /andP [_ /eqP ->].
  by have := HK s (size s) Hs; rewrite take_size run_foldl.
have Hint : forall k, intvec (ep Z k).
  move=> k; rewrite epochs_foldl; apply: (foldl_intvec Z _ _ HZ _ intvec0).
  by move=> z /flattenP [y]; rewrite mem_nseq => /andP [_ /eqP ->].
pose f k := code R (ep Z k).
have Hinj : forall k l, f k = f l -> ep Z k = ep Z l.
  move=> k l; apply: code_inj (Hint k) (Hint l) _ _ => i;
    exact: coord_bound (Hint _) (Hball _) HR.
have : ~~ uniq (mkseq f (R.*2.+1 ^ n).+1).
  apply/negP => /card_uniqP; rewrite size_mkseq => Hc.
  have := max_card (mem (mkseq f (R.*2.+1 ^ n).+1)).
  by rewrite Hc card_ffun !card_ord ltnn.
case/(uniqPn (f 0%N)) => i [j [Hij Hj]]; rewrite size_mkseq in Hj.
rewrite !nth_mkseq // => [Heq|]; last exact: ltn_trans Hij Hj.
exists i, j; split => //; last by move=> k; apply: epochs_periodic; apply: Hinj.
Qed.

(** Over all orders at once: the weights reachable from zero (every [run] over [Z], in any
    order) are at most [(2R + 1)^n] distinct vectors, for some [R]. *)
Theorem integer_reachable (Z : seq vec) : (forall z, z \in Z -> intvec z) ->
  forall S : seq vec, uniq S ->
    (forall v, v \in S -> exists2 s, {subset s <= Z} & v = (run perceptron_update 0 s).1) ->
    (size S <= (cycling_R Z).*2.+1 ^ n)%N.
Proof.
move=> HZ; have HK := @cycling_theorem _ n Z; set K := cycling_K Z in HK.
set R := cycling_R Z; have HR : K < R%:R := cycling_RP Z.
move=> S HS Hreach.
have Hgood : forall v, v \in S -> intvec v && (normsq v <= K).
  move=> v /Hreach [s Hs ->]; rewrite run_foldl.
  rewrite (foldl_intvec Z _ _ HZ Hs intvec0) /=.
  by have := HK s (size s) Hs; rewrite take_size run_foldl.
have Hinj : {in S &, injective (code R)}.
  move=> u v /Hgood /andP [Hu Ku] /Hgood /andP [Hv Kv].
  apply: (code_inj _ _ _ Hu Hv) => i;
    [exact: (coord_bound _ _ _ _ Hu Ku HR) | exact: (coord_bound _ _ _ _ Hv Kv HR)].
rewrite -(size_map (code R)); move: (map_inj_in_uniq Hinj); rewrite HS => /card_uniqP <-.
by apply: leq_trans (max_card _) _; rewrite card_ffun !card_ord.
Qed.

End IntegerCycles.
