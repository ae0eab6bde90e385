(** The perceptron cycling theorem (Minsky-Papert, Block-Levin), over any ordered field:
    for every finite set [Z] of examples there is a [K >= 0] with
    [||w_t||^2 <= ||w_0||^2 + K] on every run over [Z], in any order, from any start;
    from a zero start the weights stay in the ball [||w||^2 <= K]. The proof is the one
    of docs/theory/cycling.md: induction on the number of examples, a gap among
    [m + 1] nested levels, runs inside the gap's subspace, and the update that leaves
    it repaying their gain. *)
From Markone Require Import Perceptron Bounded Span.
From mathcomp.algebra_tactics Require Import ring.
From mathcomp Require Import zify.
Unset Printing Implicit Defensive.
Local Open Scope ring_scope.

Section Steps.

Variables (F : realFieldType) (n : nat).
Notation vec := 'rV[F]_n.

(** One example of a stream: the update on a mistake, nothing otherwise. *)
Definition step (w z : vec) : vec := if mistake w z then w + z else w.

Lemma run_foldl w s : (run perceptron_update w s).1 = foldl step w s.
Proof. by elim: s w => [|z s IH] w //=; rewrite /step; case: ifP => _ /=; apply: IH. Qed.

Lemma foldl_shift (v w : vec) s :
  (forall z, z \in s -> dot v z = 0) -> foldl step (w + v) s = foldl step w s + v.
Proof. by move=> Hv; rewrite -!run_foldl (@run_shift _ _ v s Hv). Qed.

Lemma foldl_inspan (Z s : seq vec) w :
  {subset s <= Z} -> inspan Z w -> inspan Z (foldl step w s).
Proof.
elim: s w => [|z s IH] w Hs Hw //=; apply: IH.
  by move=> y Hy; apply: Hs; rewrite inE Hy orbT.
rewrite /step; case: ifP => _ //; apply: inspanD Hw _.
by apply: inspan_mem; apply: Hs; apply: mem_head.
Qed.

(** [||a + b||^2 <= 2 ||a||^2 + 2 ||b||^2]. *)
Lemma normsq_add2 (a b : vec) : normsq (a + b) <= 2 * normsq a + 2 * normsq b.
Proof.
rewrite normsqD -subr_ge0.
have -> : 2 * normsq a + 2 * normsq b - (normsq a + 2 * dot a b + normsq b) = normsq (a - b).
  by rewrite normsqD normsqN dotNr; ring.
exact: normsq_ge0.
Qed.

Lemma sq_le (X : F) : 0 <= X -> X <= (X + 1) ^+ 2.
Proof.
move=> HX; rewrite -subr_ge0.
have -> : (X + 1) ^+ 2 - X = X ^+ 2 + X + 1 by ring.
by rewrite addr_ge0 ?ler01 // addr_ge0 // sqr_ge0.
Qed.

Lemma abs_le_sq (x h : F) : 0 <= h -> x ^+ 2 <= h ^+ 2 -> `|x| <= h.
Proof.
move=> Hh Hx; rewrite -(ler_sqr (normr_ge0 _)) ?nnegrE //.
by rewrite real_normK ?num_real.
Qed.

(** A term of a sum of nonnegative terms is at most the sum. *)
Lemma sum_le_mem (T : eqType) (L : seq T) (g : T -> F) t :
  (forall x, 0 <= g x) -> t \in L -> g t <= \sum_(x <- L) g x.
Proof.
move=> Hg; elim: L => [|x L IH] //; rewrite big_cons inE => /orP [/eqP ->|Ht].
  by rewrite ler_addl sumr_ge0.
by apply: le_trans (IH Ht) _; rewrite ler_addr.
Qed.

(** Every boolean mask of a given length: the subsets of a sequence. *)
Fixpoint masks (k : nat) : seq (seq bool) :=
  if k is k'.+1 then [seq b :: bs | b <- [:: true; false], bs <- masks k'] else [:: [::]].

Lemma mem_masks (bs : seq bool) : bs \in masks (size bs).
Proof.
elim: bs => [|b bs IH] //; have -> : masks (size (b :: bs)) =
  [seq b' :: bs' | b' <- [:: true; false], bs' <- masks (size bs)] by [].
by apply: allpairs_f => //; case: b.
Qed.

(** The sum of [f] over the [2^m] subsets of [Z] (with repeats): a bound on [f] at every
    subset when [f] is nonnegative. *)
Definition subsets_sum (Z : seq vec) (f : seq vec -> F) : F :=
  \sum_(bs <- masks (size Z)) f (mask bs Z).

Lemma subsets_sum_ge0 Z f : (forall N, 0 <= f N) -> 0 <= subsets_sum Z f.
Proof. by move=> Hf; apply: sumr_ge0. Qed.

Lemma subsets_sum_le Z f : (forall N, 0 <= f N) ->
  forall P : pred vec, f (filter P Z) <= subsets_sum Z f.
Proof.
move=> Hf P; rewrite filter_mask /subsets_sum.
apply: (sum_le_mem _ _ (fun bs => f (mask bs Z))) => //.
by rewrite -(size_map P); apply: mem_masks.
Qed.

(** Three inequalities of the run argument, in the field. *)
Lemma drift_pos (a b h L : F) : `|a - b| <= h -> L < b -> h <= L -> 0 < a.
Proof.
rewrite ler_norml => /andP [H1 _] H2 H3.
have -> : a = (a - b - - h) + ((b - L) + (L - h)) by ring.
apply: ltr_paddl; first by rewrite subr_ge0.
by apply: ltr_paddr; rewrite ?subr_ge0 ?subr_gt0.
Qed.

Lemma drift_neg (a b h L : F) : `|a - b| <= h -> b < - L -> a < h - L.
Proof.
rewrite ler_norml => /andP [_ H1] H2.
have -> : a = (a - b) + b by ring.
exact: ler_lt_add.
Qed.

Lemma repay (nv nw z2 vz K R h L : F) :
  nv <= nw + K -> vz < h - L -> z2 <= R -> K + R + 2 * h <= 2 * L -> nv + 2 * vz + z2 <= nw.
Proof.
move=> H1 H2 H3 H4.
apply: le_trans (_ : nv + 2 * vz + z2 <= (nw + K) + 2 * (h - L) + R) _.
  by apply: ler_add => //; apply: ler_add => //; rewrite ler_pmul2l ?ltr0n // ltW.
rewrite -subr_ge0.
have -> : nw - (nw + K + 2 * (h - L) + R) = 2 * L - (K + R + 2 * h) by ring.
by rewrite subr_ge0.
Qed.

Lemma count_sub (P Q : pred vec) s :
  (forall z, z \in s -> P z -> Q z) -> (count P s <= count Q s)%N.
Proof.
elim: s => [|z s IH] H //=; apply: leq_add.
  by case: (P z) (H z (mem_head _ _)) => // /(_ isT) ->.
by apply: IH => y Hy; apply: H; rewrite inE Hy orbT.
Qed.

(** Nested predicates with the same count agree. *)
Lemma count_eq_sub (P Q : pred vec) s :
  (forall z, z \in s -> P z -> Q z) -> (count Q s <= count P s)%N ->
  forall z, z \in s -> Q z -> P z.
Proof.
elim: s => [|y s IH] H Hc z //.
have Hs : forall z, z \in s -> P z -> Q z by move=> x Hx; apply: H; rewrite inE Hx orbT.
have Hy : (P y <= Q y)%N by case: (P y) (H y (mem_head _ _)) => // /(_ isT) ->.
have Hcs := count_sub _ _ _ Hs.
have [Hq Hcs'] : (Q y <= P y)%N /\ (count Q s <= count P s)%N.
  move: Hc Hy Hcs => /=; move: (nat_of_bool (P y)) (nat_of_bool (Q y)) => a b; lia.
rewrite inE => /orP [/eqP -> HQ|Hz]; last exact: IH.
by move: Hq; rewrite HQ; case: (P y).
Qed.

Lemma nat_gap (c : nat -> nat) k : (k <= c k)%N \/ exists2 j, (j < k)%N & (c j.+1 <= c j)%N.
Proof.
elim: k => [|k [IH|[j Hj Hc]]]; first by left.
  have [H|H] := leqP (c k.+1) (c k); first by right; exists k.
  by left; apply: leq_ltn_trans IH H.
by right; exists j => //; rewrite ltnS ltnW.
Qed.

End Steps.

Arguments step {F n}.
Arguments run_foldl {F n}.
Arguments foldl_shift {F n}.
Arguments foldl_inspan {F n Z s w}.
Arguments normsq_add2 {F n}.
Arguments sq_le {F}.
Arguments abs_le_sq {F}.
Arguments sum_le_mem {F T}.
Arguments subsets_sum {F n}.
Arguments subsets_sum_ge0 {F n}.
Arguments subsets_sum_le {F n}.
Arguments drift_pos {F a b h L}.
Arguments drift_neg {F a b h L}.
Arguments repay {F nv nw z2 vz K R h L}.
Arguments count_sub {F n}.
Arguments count_eq_sub {F n}.

(** The run argument for one set [Z], given the constants of its proper subsets: [C]
    for their spans (Span.v), [K] for their runs (the induction) and [R2] for [Z]. *)
Section Far.

Variables (F : realFieldType) (n : nat) (Z : seq 'rV[F]_n) (C K R2 : F).
Notation vec := 'rV[F]_n.
Hypotheses (HC0 : 0 <= C) (HK0 : 0 <= K) (HR0 : 0 <= R2).
Hypothesis HC : forall (P : pred vec) x,
  normsq (proj (filter P Z) x) <= C * sumsq (filter P Z) x.
Hypothesis HK : forall P : pred vec, (size (filter P Z) < size Z)%N ->
  forall w s, {subset s <= filter P Z} -> normsq (foldl step w s) <= normsq w + K.
Hypothesis HR : forall z, z \in Z -> normsq z <= R2.

Let m := size Z.

(** [reach a ^+ 2] bounds the squared norm a run inside a subspace can reach from the
    projection of a point whose products with the subspace's examples are at most [a];
    [drift a] bounds how far such a run moves any product [w . z]. *)
Definition reach (a : F) : F := C * m%:R * a ^+ 2 + K + 1.
Definition drift (a : F) : F := 4 * reach a ^+ 2 * R2 + 1.

(** The levels [A_0 < A_1 < ... ]: each leaves room for the drift of the one below. *)
Fixpoint level (i : nat) : F :=
  if i is i'.+1 then level i' + K + R2 + 2 * drift (level i') else 0.

Lemma reach_ge0 a : 0 <= reach a.
Proof. by rewrite addr_ge0 ?ler01 // addr_ge0 // mulr_ge0 ?sqr_ge0 // mulr_ge0 ?ler0n. Qed.

Lemma drift_ge0 a : 0 <= drift a.
Proof. by rewrite addr_ge0 ?ler01 // mulr_ge0 // mulr_ge0 ?sqr_ge0 ?ler0n. Qed.

Lemma level_ge0 i : 0 <= level i.
Proof.
elim: i => //= i IH.
by rewrite addr_ge0 ?mulr_ge0 ?ler0n ?drift_ge0 // addr_ge0 // addr_ge0.
Qed.

Lemma level_le i j : (i <= j)%N -> level i <= level j.
Proof.
move=> Hij; rewrite -(subnK Hij); elim: (j - i)%N => //= k IH.
apply: le_trans IH _; rewrite -addrA -addrA ler_addl.
by rewrite addr_ge0 // addr_ge0 // mulr_ge0 ?ler0n ?drift_ge0.
Qed.

(** The examples with [|w . z| <= A_i], and the test that their span holds all of [Z]. *)
Definition near_set (w : vec) (i : nat) : seq vec :=
  filter (fun z => `|dot w z| <= level i) Z.
Definition near (w : vec) : bool := all (inspan (near_set w m)) Z.

Lemma near_set_le w i j : (i <= j)%N ->
  forall x, inspan (near_set w i) x -> inspan (near_set w j) x.
Proof.
move=> Hij x; apply: inspan_sub => z; rewrite mem_filter => /andP [Hz HZ].
by apply: inspan_mem; rewrite mem_filter HZ andbT (le_trans Hz (level_le _ _ Hij)).
Qed.

Lemma near_set_sumsq w i : sumsq (near_set w i) w <= m%:R * level i ^+ 2.
Proof.
apply: le_trans (sumsq_le (near_set w i) w (level i) _) _.
  by move=> z; rewrite mem_filter => /andP [].
by rewrite ler_wpmul2r ?sqr_ge0 // ler_nat size_filter count_size.
Qed.

Lemma near_proj w i : normsq (proj (near_set w i) w) <= C * (m%:R * level i ^+ 2).
Proof. by apply: le_trans (HC _ w) _; rewrite ler_wpmul2l // near_set_sumsq. Qed.

(** A near point is inside the ball of radius [sqrt (C m) A_m]. *)
Lemma near_bound w : inspan Z w -> near w -> normsq w <= C * (m%:R * level m ^+ 2).
Proof.
move=> Hw /allP Hn; have /inspanP Hp := inspan_sub Z (near_set w m) w Hn Hw.
by rewrite -Hp near_proj.
Qed.

(** The gap: at a far point, some level [j < m] has [N_j] and [N_(j+1)] of the same
    span, a span that misses an example of [Z]. *)
Lemma gap w : ~~ near w -> exists2 j, (j < m)%N &
  (count (inspan (near_set w j)) Z < m)%N /\
  forall z, z \in Z -> ~~ inspan (near_set w j) z -> level j.+1 < `|dot w z|.
Proof.
move=> Hfar; pose c i := count (inspan (near_set w i)) Z.
have Hcm : (c m < m)%N.
  rewrite ltn_neqAle count_size andbT; apply: contra Hfar.
  by rewrite /near all_count.
have [H|[j Hj Hc]] := nat_gap c m; first by move: H; rewrite leqNgt Hcm.
exists j => //; split.
  apply: leq_ltn_trans Hcm; apply: count_sub => z _.
  by apply: near_set_le; apply: ltnW.
move=> z Hz Hn.
have Hn' : ~~ inspan (near_set w j.+1) z.
  apply: contra Hn => H1; apply: (count_eq_sub _ _ _ _ Hc z Hz H1).
  by move=> y _; apply: near_set_le.
rewrite ltNge; apply: contra Hn' => Hle.
by apply: inspan_mem; rewrite mem_filter Hle Hz.
Qed.

(** Inside the gap's subspace a run from [w] moves every product [w . z'] by at most
    [drift A_j]: the run is the run of the projection, shifted; the projection is short
    (Span.v), and the induction bounds the run of the projection. *)
Lemma drift_bound w j t z :
  (count (inspan (near_set w j)) Z < m)%N ->
  {subset t <= filter (inspan (near_set w j)) Z} -> z \in Z ->
  `|dot (foldl step w t) z - dot w z| <= drift (level j).
Proof.
move=> Hprop Ht Hz; set S := near_set w j; set p := proj S w.
have Hq : orth (w - p) S := proj_perp S w.
have Hqt : forall y, y \in t -> dot (w - p) y = 0.
  by move=> y /Ht; rewrite mem_filter => /andP [HyS _]; apply: inspan_perp Hq HyS.
have Hw : w = p + (w - p) by rewrite addrC subrK.
have Hf : foldl step w t = foldl step p t + (w - p) by rewrite {1}Hw foldl_shift.
rewrite Hf {2}Hw -dotBl opprD addrACA subrr addr0.
have Hp : normsq p <= C * m%:R * level j ^+ 2 by rewrite -mulrA near_proj.
have Ha : normsq (foldl step p t) <= normsq p + K.
  by apply: (HK (inspan S)) => //; rewrite size_filter.
have HX : 0 <= C * m%:R * level j ^+ 2 by rewrite mulr_ge0 ?sqr_ge0 // mulr_ge0 ?ler0n.
have HM := sq_le _ (addr_ge0 HX HK0).
have Hp' : normsq (- p) <= reach (level j) ^+ 2.
  by rewrite normsqN; apply: le_trans HM; apply: le_trans Hp _; rewrite ler_addl.
have Ha' : normsq (foldl step p t) <= reach (level j) ^+ 2.
  by apply: le_trans HM; apply: le_trans Ha _; rewrite ler_add2r.
have Hd : normsq (foldl step p t - p) <= (reach (level j) + reach (level j)) ^+ 2.
  by apply: normsq_add_le; rewrite ?reach_ge0.
apply: abs_le_sq; first exact: drift_ge0.
apply: le_trans (cauchy_schwarz _ _ (foldl step p t - p) z) _.
apply: le_trans (_ : (reach (level j) + reach (level j)) ^+ 2 * R2 <= _).
  by apply: ler_pmul; rewrite ?normsq_ge0 ?HR.
have -> : (reach (level j) + reach (level j)) ^+ 2 * R2 = 4 * reach (level j) ^+ 2 * R2.
  by ring.
by apply: sq_le; rewrite mulr_ge0 // mulr_ge0 ?sqr_ge0 ?ler0n.
Qed.

(** After a near point, one update stays within [Q0]. *)
Definition Q0 : F := 2 * (C * (m%:R * level m ^+ 2)) + 2 * R2.

Lemma Q0_ge0 : 0 <= Q0.
Proof.
by rewrite addr_ge0 // mulr_ge0 ?ler0n // mulr_ge0 // mulr_ge0 ?ler0n ?sqr_ge0.
Qed.

(** Every run from a point of the span of [Z]: with [B] above the start's squared norm
    and above [Q0], the run stays below [B + K]. By induction on the stream's length:
    from a near point, one step stays below [Q0]; from a far point, the run inside the
    gap's subspace gains at most [K], and the update that leaves it ends below the
    start. *)
Lemma bounded_span k : forall s, (size s <= k)%N -> {subset s <= Z} ->
  forall w B, inspan Z w -> normsq w <= B -> Q0 <= B -> normsq (foldl step w s) <= B + K.
Proof.
elim: k => [|k IHk] s Hsize Hs w B Hw HwB HQ.
  by case: s Hsize Hs => // _ _; apply: ler_paddr.
have [Hnear|Hfar] := boolP (near w).
  case: s Hsize Hs => [|z s] Hsize Hs /=; first by apply: ler_paddr.
  have Hz : z \in Z := Hs z (mem_head _ _).
  have Hs' : {subset s <= Z} by move=> y Hy; apply: Hs; rewrite inE Hy orbT.
  apply: IHk => //; rewrite /step; case: ifP => _ //; first exact: inspanD _ _ _ Hw (inspan_mem _ _ Hz).
  apply: le_trans HQ; apply: le_trans (normsq_add2 w z) _.
  by apply: ler_add; rewrite ler_pmul2l ?ltr0n ?near_bound ?HR.
have [j Hj [Hprop Hgap]] := gap w Hfar.
set S := near_set w j.
suff H : forall s', (size s' <= k.+1)%N -> {subset s' <= Z} ->
    forall t, {subset t <= filter (inspan S) Z} ->
    normsq (foldl step (foldl step w t) s') <= B + K.
  by apply: (H s Hsize Hs [::]).
elim=> [|z s' IHs] Hsize' Hs' t Ht /=.
  apply: le_trans (HK (inspan S) _ w t Ht) _; first by rewrite size_filter.
  by rewrite ler_add2r.
have Hz : z \in Z := Hs' z (mem_head _ _).
have Hs'' : {subset s' <= Z} by move=> y Hy; apply: Hs'; rewrite inE Hy orbT.
have Hsize'' : (size s' <= k.+1)%N by apply: ltnW.
have Hdr := drift_bound w j t z Hprop Ht Hz.
have [HzS|HzS] := boolP (inspan S z).
  rewrite -foldl_rcons; apply: IHs => // y; rewrite mem_rcons inE.
  by case/orP => [/eqP ->|/Ht //]; rewrite mem_filter HzS.
have Hlt := Hgap z Hz HzS.
have Hh : drift (level j) <= level j.+1.
  rewrite /= -addrA -addrA; apply: ler_paddl (level_ge0 j) _.
  apply: ler_paddl HK0 _; apply: ler_paddl HR0 _.
  have -> : 2 * drift (level j) = drift (level j) + drift (level j) by ring.
  by rewrite ler_addr drift_ge0.
have [Hpos|Hneg] := lerP 0 (dot w z).
  have -> : step (foldl step w t) z = foldl step w t.
    rewrite /step /mistake; case: ifP => // Hm; exfalso.
    move: Hm; rewrite leNgt => /negP; apply.
    by apply: drift_pos Hdr _ Hh; rewrite -(ger0_norm Hpos).
  exact: IHs.
have Hneg' : dot w z < - level j.+1 by rewrite ltr_oppr -(ltr0_norm Hneg).
have Hv := drift_neg Hdr Hneg'.
have Hm : mistake (foldl step w t) z.
  by rewrite /mistake; apply: ltW; apply: lt_le_trans Hv _; rewrite subr_le0.
rewrite /step Hm; apply: IHk => //.
- have Ht' : {subset t <= Z} by move=> y /Ht; rewrite mem_filter => /andP [].
  by apply: inspanD _ _ _ (foldl_inspan Ht' Hw) (inspan_mem _ _ Hz).
- apply: le_trans HwB; rewrite normsqD.
  apply: (repay (K := K) (R := R2) (h := drift (level j)) (L := level j.+1)) => //.
  + by apply: (HK (inspan S)) => //; rewrite size_filter.
  + exact: HR.
  + have -> : 2 * level j.+1 = level j.+1 + level j.+1 by ring.
    apply: ler_paddl (level_ge0 _) _.
    by rewrite /= -!addrA; apply: ler_paddl (level_ge0 j) (lexx _).
Qed.

End Far.

Arguments Q0 {F n}.
Arguments bounded_span {F n Z C K R2}.

Section Main.

Variables (F : realFieldType) (n : nat).
Notation vec := 'rV[F]_n.

(** The theorem from the starts in the span of [Z], given the constants of [Z]'s
    proper subsets. *)
Lemma span_start (Z : seq vec) (C K R2 : F) :
  0 <= C -> 0 <= K -> 0 <= R2 ->
  (forall (P : pred vec) x, normsq (proj (filter P Z) x) <= C * sumsq (filter P Z) x) ->
  (forall P : pred vec, (size (filter P Z) < size Z)%N ->
    forall w s, {subset s <= filter P Z} -> normsq (foldl step w s) <= normsq w + K) ->
  (forall z, z \in Z -> normsq z <= R2) ->
  forall w s, inspan Z w -> {subset s <= Z} ->
    normsq (foldl step w s) <= normsq w + (Q0 Z C K R2 + K).
Proof.
move=> HC0 HK0 HR0 HC HK HR; have HQ := Q0_ge0 _ _ Z C K R2 HC0 HR0.
move=> w s Hw Hs; rewrite addrA.
apply: (bounded_span HC0 HK0 HR0 HC HK HR (size s) s (leqnn _) Hs w) => //.
  by rewrite ler_addl.
by rewrite ler_addr normsq_ge0.
Qed.

(** Theorem D: from every start. The component of the start orthogonal to [Z] never
    changes and adds its squared norm to both sides. *)
Lemma any_start (Z : seq vec) (K : F) :
  (forall w s, inspan Z w -> {subset s <= Z} -> normsq (foldl step w s) <= normsq w + K) ->
  forall w s, {subset s <= Z} -> normsq (foldl step w s) <= normsq w + K.
Proof.
move=> H w s Hs; set p := proj Z w; set q := w - p.
have Hq : forall y, y \in s -> dot q y = 0 by move=> y /Hs; apply: proj_perp.
have -> : w = p + q by rewrite /q addrC subrK.
rewrite foldl_shift // normsqD (dotC (foldl step p s)).
rewrite (inspan_perp (proj_perp Z w) (foldl_inspan Hs (inspan_proj Z w))) mulr0 addr0.
rewrite normsqD (dotC p) (inspan_perp (proj_perp Z w) (inspan_proj Z w)) mulr0 addr0.
by rewrite addrAC ler_add2r; apply: H => //; apply: inspan_proj.
Qed.

(** The constants of the proof, as definitions. [R2]: above every [||z||^2]; [span_C]:
    the Gram-Schmidt constant [proj_C] summed over the subsets of [Z]. *)
Definition sqnorms (Z : seq vec) : F := \sum_(z <- Z) normsq z.
Definition span_C (Z : seq vec) : F := subsets_sum Z proj_C.

(** [cycK k Z], with fuel [k > size Z]: the constants [K] of the proper subsets summed,
    then [Q0 + K] as [span_start] proves. *)
Fixpoint cycK (k : nat) (Z : seq vec) : F :=
  if k is k'.+1 then
    let K := subsets_sum Z (fun N => if (size N < size Z)%N then cycK k' N else 0) in
    Q0 Z (span_C Z) K (sqnorms Z) + K
  else 0.

(** The cycling theorem's constant [K] of a finite set of examples [Z]. *)
Definition cycling_K (Z : seq vec) : F := cycK (size Z).+1 Z.

Lemma sqnorms_ge0 Z : 0 <= sqnorms Z.
Proof. by apply: sumr_ge0 => z _; apply: normsq_ge0. Qed.

Lemma span_C_ge0 Z : 0 <= span_C Z.
Proof. by apply: subsets_sum_ge0 => N; apply: proj_C_ge0. Qed.

Lemma cycK_ge0 k Z : 0 <= cycK k Z.
Proof.
elim: k Z => [|k IH] Z //=.
have HK : 0 <= subsets_sum Z (fun N => if (size N < size Z)%N then cycK k N else 0).
  by apply: subsets_sum_ge0 => N; case: ifP.
by rewrite addr_ge0 // Q0_ge0 ?span_C_ge0 ?sqnorms_ge0.
Qed.

Lemma cycling_K_ge0 Z : 0 <= cycling_K Z.
Proof. exact: cycK_ge0. Qed.

Lemma bounded_cycK k (Z : seq vec) : (size Z < k)%N ->
  forall w s, {subset s <= Z} -> normsq (foldl step w s) <= normsq w + cycK k Z.
Proof.
elim: k Z => [|k IHk] Z // HZ /=.
set f := fun N => if (size N < size Z)%N then cycK k N else 0.
have Hf : forall N, 0 <= f N by move=> N; rewrite /f; case: ifP => // _; apply: cycK_ge0.
set K := subsets_sum Z f.
have HK0 : 0 <= K := subsets_sum_ge0 Z f Hf.
have HK : forall P : pred vec, (size (filter P Z) < size Z)%N ->
    forall w s, {subset s <= filter P Z} -> normsq (foldl step w s) <= normsq w + K.
  move=> P HP w s Hs; apply: le_trans (IHk _ (leq_trans HP HZ) w s Hs) _.
  rewrite ler_add2l; have := subsets_sum_le Z f Hf P.
  by rewrite /f HP.
have HC : forall (P : pred vec) x,
    normsq (proj (filter P Z) x) <= span_C Z * sumsq (filter P Z) x.
  move=> P x; apply: le_trans (proj_bound _ x) _; apply: ler_wpmul2r; first exact: sumsq_ge0.
  exact: (subsets_sum_le Z proj_C proj_C_ge0 P).
have HR : forall z, z \in Z -> normsq z <= sqnorms Z.
  by move=> z Hz; apply: (sum_le_mem Z normsq z) => // x; apply: normsq_ge0.
apply: any_start => w s; apply: (span_start Z) => //; rewrite ?span_C_ge0 ?sqnorms_ge0 //.
Qed.

(** The perceptron cycling theorem (Minsky-Papert 1969, Block-Levin 1970), over any
    ordered field, for any finite set of examples [Z] (any signs: [z = y x]):
    [||w_t||^2 <= ||w_0||^2 + cycling_K Z] for every run over [Z], in any order and
    from any start. *)
Theorem cycling_bounded (Z : seq vec) w s :
  {subset s <= Z} -> normsq (run perceptron_update w s).1 <= normsq w + cycling_K Z.
Proof. by move=> Hs; rewrite run_foldl; apply: bounded_cycK. Qed.

(** From a zero start: every step of every run over [Z] stays in the ball
    [||w||^2 <= cycling_K Z]. *)
Corollary cycling_theorem (Z : seq vec) s t :
  {subset s <= Z} -> normsq (run perceptron_update 0 (take t s)).1 <= cycling_K Z.
Proof.
move=> Hs; apply: le_trans (cycling_bounded Z 0 _ _) _; first by move=> z /mem_take /Hs.
by rewrite /normsq dot0l add0r.
Qed.

End Main.

Arguments sqnorms {F n}.
Arguments span_C {F n}.
Arguments cycK {F n}.
Arguments cycling_K {F n}.
Arguments cycling_K_ge0 {F n}.
