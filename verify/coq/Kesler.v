(** Kesler's construction and the multiclass mistake bound: the argmax perceptron
    (one weight row per class, ties to the lowest class index, as markone breaks them)
    makes at most [2 R^2 ||U||^2 / gamma^2] mistakes on every stream, when a matrix [U]
    scores every example's class at least [gamma] above every other class. *)
From Markone Require Import Perceptron Novikoff.
Local Open Scope ring_scope.

Section Kesler.

Variables (F : realFieldType) (K n : nat).
Notation vec := 'rV[F]_n.
(** One weight row per class: [K.+1] classes, class [0] first. *)
Notation mat := 'M[F]_(K.+1, n).
Notation class := 'I_K.+1.

Definition score (W : mat) (k : class) (x : vec) : F := dot (row k W) x.

(** The class of highest score, ties to the lowest class index: class [0] first, and a
    later class only when it scores strictly higher (markone's [_argmax_epoch]). *)
Definition better (W : mat) (x : vec) (b k : class) : class :=
  if score W b x < score W k x then k else b.
Definition argmax (W : mat) (x : vec) : class := foldl (better W x) ord0 (enum class).

Lemma better_ge (W : mat) (x : vec) (b k : class) :
  score W b x <= score W (better W x b k) x /\ score W k x <= score W (better W x b k) x.
Proof. by rewrite /better; case: ltP => H; split; rewrite ?lexx // ltW. Qed.

Lemma foldl_better (W : mat) (x : vec) (l : seq class) (b c : class) :
  c \in b :: l -> score W c x <= score W (foldl (better W x) b l) x.
Proof.
elim: l b c => [|k l IH] b c /=; first by rewrite inE => /eqP ->.
have [Hb Hk] := better_ge W x b k.
have Hf := IH (better W x b k) (better W x b k) (mem_head _ _).
rewrite !inE => /or3P [/eqP->|/eqP->|Hc]; first exact: le_trans Hb Hf.
  exact: le_trans Hk Hf.
by apply: IH; rewrite inE Hc orbT.
Qed.

Lemma argmax_max (W : mat) (x : vec) (c : class) : score W c x <= score W (argmax W x) x.
Proof. by apply: foldl_better; rewrite inE mem_enum orbT. Qed.

(** Kesler's vector of an example [x] of class [c] against a class [p]: [x] in row
    [c], [- x] in row [p], zero elsewhere. *)
Definition kesler (x : vec) (c p : class) : mat :=
  \matrix_(i, j) (((i == c)%:R - (i == p)%:R) * x 0 j).

(** The argmax perceptron on a stream of examples [(x, c)]: on a mistake (predicted
    class [p] other than [c]) it adds [x] to row [c] and subtracts it from row [p]. *)
Fixpoint mrun (W : mat) (s : seq (vec * class)) : mat * nat :=
  if s is e :: s' then
    if argmax W e.1 != e.2 then
      let r := mrun (W + kesler e.1 e.2 (argmax W e.1)) s' in (r.1, r.2.+1)
    else mrun W s'
  else (W, 0%N).

Definition multiclass_mistakes (s : seq (vec * class)) : nat := (mrun 0 s).2.

(** Matrices as row vectors (rows end to end): the dot product of [mxvec]s is the sum
    of the products of the entries. *)
Lemma dot_mxvec (A B : mat) : dot (mxvec A) (mxvec B) = \sum_i dot (row i A) (row i B).
Proof.
rewrite /dot (reindex _ (curry_mxvec_bij _ _)) /= pair_bigA /=.
by apply: eq_bigr => [[i j]] _ /=; rewrite !mxvecE !mxE.
Qed.

Lemma row_kesler (x : vec) (c p i : class) :
  row i (kesler x c p) = ((i == c)%:R - (i == p)%:R) *: x.
Proof. by apply/rowP => j; rewrite !mxE. Qed.

Lemma sum_delta (f : class -> F) (c : class) : \sum_i (i == c)%:R * f i = f c.
Proof.
by rewrite (bigD1 c) //= eqxx mul1r big1 ?addr0 // => i /negPf ->; rewrite mul0r.
Qed.

Lemma sum_indicator (f : class -> F) (c p : class) :
  \sum_i ((i == c)%:R - (i == p)%:R) * f i = f c - f p.
Proof.
rewrite (eq_bigr (fun i => (i == c)%:R * f i - (i == p)%:R * f i)); last first.
  by move=> i _; rewrite mulrBl.
by rewrite sumrB !sum_delta.
Qed.

(** [W . psi(x, c, p) = W_c . x - W_p . x]. *)
Lemma dot_kesler (W : mat) (x : vec) (c p : class) :
  dot (mxvec W) (mxvec (kesler x c p)) = score W c x - score W p x.
Proof.
rewrite dot_mxvec (eq_bigr (fun i => ((i == c)%:R - (i == p)%:R) * score W i x)).
  by rewrite sum_indicator.
by move=> i _; rewrite row_kesler dotZr mulrC /score.
Qed.

(** [||psi(x, c, p)||^2 = 2 ||x||^2] when [p <> c]. *)
Lemma normsq_kesler (x : vec) (c p : class) :
  p != c -> normsq (mxvec (kesler x c p)) = 2 * normsq x.
Proof.
move=> Hpc; rewrite /normsq dot_mxvec.
rewrite (eq_bigr (fun i => ((i == c)%:R - (i == p)%:R) *
    (((i == c)%:R - (i == p)%:R) * dot x x))); last first.
  by move=> i _; rewrite row_kesler dotZl dotZr.
rewrite sum_indicator !eqxx eq_sym (negPf Hpc) subr0 sub0r mulNr opprK mul1r.
by rewrite -mulr2n mulr_natl.
Qed.

(** The Kesler vectors of the mistakes, in the order they happen. *)
Fixpoint kesler_stream (W : mat) (s : seq (vec * class)) : seq 'rV[F]_(K.+1 * n) :=
  if s is e :: s' then
    if argmax W e.1 != e.2 then
      mxvec (kesler e.1 e.2 (argmax W e.1))
        :: kesler_stream (W + kesler e.1 e.2 (argmax W e.1)) s'
    else kesler_stream W s'
  else [::].

(** Every multiclass mistake is a binary mistake on its Kesler vector, followed by the
    binary update: the binary perceptron on [kesler_stream] is the argmax run. *)
Lemma mrun_binary (W : mat) (s : seq (vec * class)) :
  run perceptron_update (mxvec W) (kesler_stream W s) = (mxvec (mrun W s).1, (mrun W s).2).
Proof.
elim: s W => [|e s IH] W //=; case: ifP => Hp //=.
rewrite /mistake dot_kesler subr_le0 argmax_max /perceptron_update -linearD /=.
by rewrite IH.
Qed.

Lemma kesler_stream_mem (W : mat) (s : seq (vec * class)) z :
  z \in kesler_stream W s ->
  exists2 e, e \in s & exists2 p, p != e.2 & z = mxvec (kesler e.1 e.2 p).
Proof.
elim: s W => [|e s IH] W //=; case: ifP => Hp.
  rewrite inE => /orP [/eqP ->|/IH [e' He' Hz]]; first by exists e; rewrite ?mem_head //; exists (argmax W e.1).
  by exists e'; rewrite // inE He' orbT.
by move=> /IH [e' He' Hz]; exists e'; rewrite // inE He' orbT.
Qed.

(** Kesler's multiclass bound: on every stream of examples [(x, c)] (any order, any
    repetition) with [||x||^2 <= R^2], and a matrix [U] with
    [U_c . x - U_k . x >= gamma] for every other class [k], the argmax perceptron that
    starts at zero makes at most [2 R^2 ||U||^2 / gamma^2] mistakes ([||U||] the norm
    of its rows end to end). *)
Theorem kesler_bound (U : mat) (gamma R : F) (s : seq (vec * class)) :
  0 < gamma ->
  (forall e, e \in s -> forall k, k != e.2 -> gamma <= score U e.2 e.1 - score U k e.1) ->
  (forall e, e \in s -> normsq e.1 <= R ^+ 2) ->
  (multiclass_mistakes s)%:R <= 2 * R ^+ 2 * normsq (mxvec U) / gamma ^+ 2.
Proof.
move=> Hg Hmargin Hradius.
have := mrun_binary 0 s; rewrite linear0 /multiclass_mistakes => Hrun.
rewrite -[(mrun 0 s).2]/((mxvec (mrun 0 s).1, (mrun 0 s).2).2) -Hrun.
apply: novikoff_sq => //; first by rewrite mulr_ge0 ?ler0n ?sqr_ge0.
  by move=> z /kesler_stream_mem [e He [p Hp ->]]; rewrite dot_kesler Hmargin.
move=> z /kesler_stream_mem [e He [p Hp ->]]; rewrite normsq_kesler //.
by rewrite ler_pmul2l ?ltr0n // Hradius.
Qed.

End Kesler.
