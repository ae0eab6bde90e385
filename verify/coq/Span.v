(** The span of a finite set of vectors over an ordered field, by Gram-Schmidt: the
    orthogonal projection [proj N x] onto the span of the sequence [N], the test
    [inspan N x], and the constant [C] with [||proj N x||^2 <= C * sum_(z in N) (x . z)^2]
    (a vector of the span is determined by its products with [N]). Steps toward the
    cycling theorem (BlockLevin.v). *)
From Markone Require Import Perceptron Bounded.
From mathcomp.algebra_tactics Require Import ring.
Unset Printing Implicit Defensive.
Local Open Scope ring_scope.

Section Span.

Variables (F : realFieldType) (n : nat).
Notation vec := 'rV[F]_n.

Lemma dotDr (u v w : vec) : dot u (v + w) = dot u v + dot u w.
Proof. by rewrite dotC dotDl !(dotC _ u). Qed.

Lemma dotBr (u v w : vec) : dot u (v - w) = dot u v - dot u w.
Proof. by rewrite dotDr dotNr. Qed.

Lemma dot0r (u : vec) : dot u 0 = 0.
Proof. by rewrite dotC dot0l. Qed.

(** [v] is orthogonal to every vector of [N]. *)
Definition orth (v : vec) (N : seq vec) : Prop := forall z, z \in N -> dot v z = 0.

Lemma orth_cons {v z N} : orth v (z :: N) -> orth v N.
Proof. by move=> H z' Hz'; apply: H; rewrite inE Hz' orbT. Qed.

(** Gram-Schmidt: the residue [r = z - proj N z] of each new vector, when not zero,
    adds its direction. *)
Fixpoint proj (N : seq vec) (x : vec) : vec :=
  if N is z :: N' then
    let r := z - proj N' z in
    if normsq r == 0 then proj N' x else proj N' x + (dot x r / normsq r) *: r
  else 0.

Lemma proj_orth {N v} x : orth v N -> dot v (proj N x) = 0.
Proof.
elim: N x => [|z N IH] x Hv /=; first exact: dot0r.
have Hv' := orth_cons Hv; case: ifP => _; first exact: IH.
rewrite dotDr dotZr (dotBr v) !IH // (Hv z (mem_head _ _)); ring.
Qed.

Lemma proj_perp N x : orth (x - proj N x) N.
Proof.
elim: N x => [|z N IH] x z'; first by [].
rewrite /= inE; set r := z - proj N z.
have Hr : orth r N by exact: IH.
have Hz : z = r + proj N z by rewrite subrK.
case: ifP => [/eqP/normsq_eq0 H0|Hne].
  have Hx := IH x; case/orP => [/eqP ->|]; last exact: Hx.
  by rewrite Hz H0 add0r proj_orth.
have Hx : orth (x - (proj N x + (dot x r / normsq r) *: r)) N.
  move=> y Hy; rewrite opprD addrA dotDl dotNl dotZl (IH x y Hy) (Hr y Hy); ring.
case/orP => [/eqP ->|]; last exact: Hx.
rewrite [in X in dot _ X]Hz dotDr (proj_orth _ Hx) addr0 opprD addrA dotDl dotNl dotZl.
rewrite dotBl (dotC (proj N x)) (proj_orth _ Hr) subr0 divfK ?subrr //.
by rewrite Hne.
Qed.

(** [x] is in the span of [N]: its residue is zero. *)
Definition inspan (N : seq vec) (x : vec) : bool := normsq (x - proj N x) == 0.

Lemma normsq_residue N x : normsq (x - proj N x) = dot (x - proj N x) x.
Proof. by rewrite /normsq dotBr (proj_orth _ (proj_perp N x)) subr0. Qed.

Lemma inspanP N x : reflect (proj N x = x) (inspan N x).
Proof.
apply: (iffP eqP) => [/normsq_eq0/eqP|->]; first by rewrite subr_eq0 => /eqP <-.
by rewrite subrr /normsq dot0l.
Qed.

(** The span is what every vector orthogonal to [N] is orthogonal to. *)
Lemma inspan_orthP N x : reflect (forall v, orth v N -> dot v x = 0) (inspan N x).
Proof.
apply: (iffP idP) => [/inspanP <- v Hv|H]; first exact: proj_orth.
by rewrite /inspan normsq_residue H //; apply: proj_perp.
Qed.

Lemma inspan_perp {N v x} : orth v N -> inspan N x -> dot v x = 0.
Proof. by move=> Hv /inspan_orthP; apply. Qed.

Lemma inspan_mem N z : z \in N -> inspan N z.
Proof. by move=> Hz; apply/inspan_orthP => v; apply. Qed.

Lemma inspan_sub A N x : (forall z, z \in A -> inspan N z) -> inspan A x -> inspan N x.
Proof.
move=> HA /inspan_orthP H; apply/inspan_orthP => v Hv.
by apply: H => z Hz; apply: inspan_perp Hv (HA z Hz).
Qed.

Lemma inspanD N x y : inspan N x -> inspan N y -> inspan N (x + y).
Proof.
move=> /inspan_orthP Hx /inspan_orthP Hy; apply/inspan_orthP => v Hv.
by rewrite dotDr Hx // Hy // addr0.
Qed.

Lemma proj_dot N x z : z \in N -> dot (proj N x) z = dot x z.
Proof. by move=> Hz; have /eqP := proj_perp N x z Hz; rewrite dotBl subr_eq0 => /eqP. Qed.

Lemma inspan_proj N x : inspan N (proj N x).
Proof. by apply/inspan_orthP => v Hv; apply: proj_orth. Qed.

(** Pythagoras for the projection: [||x||^2 = ||proj x||^2 + ||x - proj x||^2]. *)
Lemma normsq_proj N x : normsq x = normsq (proj N x) + normsq (x - proj N x).
Proof.
rewrite -{1}(subrK (proj N x) x) addrC normsqD.
by rewrite dotC (proj_orth _ (proj_perp N x)) mulr0 addr0.
Qed.

(** The sum of the squared products of [x] with the vectors of [N]. *)
Definition sumsq (N : seq vec) (x : vec) : F := \sum_(z <- N) dot x z ^+ 2.

Lemma sumsq_ge0 N x : 0 <= sumsq N x.
Proof. by apply: sumr_ge0 => z _; apply: sqr_ge0. Qed.

Lemma sumsq_cons z N x : sumsq (z :: N) x = dot x z ^+ 2 + sumsq N x.
Proof. by rewrite /sumsq big_cons. Qed.

Lemma sumsq_le N x (A : F) :
  (forall z, z \in N -> `|dot x z| <= A) -> sumsq N x <= (size N)%:R * A ^+ 2.
Proof.
elim: N => [|z N IH] H; first by rewrite /sumsq big_nil mul0r.
rewrite sumsq_cons /= mulrSr mulrDl mul1r addrC.
apply: ler_add; first by apply: IH => y Hy; apply: H; rewrite inE Hy orbT.
have Hz := H z (mem_head _ _).
by rewrite -real_normK ?num_real // !expr2; apply: ler_pmul; rewrite ?normr_ge0.
Qed.

(** The Gram-Schmidt step of the constant, in the field. *)
Lemma gs_step (a e s q g C rho : F) :
  0 < rho -> 0 <= a -> 0 <= s -> 0 <= q -> 0 <= C -> a <= C * s -> g ^+ 2 <= a * q ->
  a + (e - g) ^+ 2 / rho <= (C * (rho + 2 * q) + 2) / rho * (e ^+ 2 + s).
Proof.
move=> Hr Ha Hs Hq HC HaC Hg.
have H1 : (e - g) ^+ 2 <= 2 * e ^+ 2 + 2 * (a * q).
  apply: le_trans (_ : 2 * e ^+ 2 + 2 * g ^+ 2 <= _); last first.
    by rewrite ler_add2l ler_pmul2l ?ltr0n.
  rewrite -subr_ge0; have -> : 2 * e ^+ 2 + 2 * g ^+ 2 - (e - g) ^+ 2 = (e + g) ^+ 2 by ring.
  exact: sqr_ge0.
rewrite -(ler_pmul2r Hr) [in X in X <= _]mulrDl divfK ?gt_eqF // mulrAC divfK ?gt_eqF //.
apply: le_trans (ler_add (lexx (a * rho)) H1) _.
have H2 : a * (rho + 2 * q) <= C * s * (rho + 2 * q).
  have Hp : 0 <= rho + 2 * q by rewrite addr_ge0 ?mulr_ge0 ?ler0n ?(ltW Hr).
  exact: ler_wpmul2r Hp _ _ HaC.
rewrite -subr_ge0; apply: le_trans (_ : 0 <= C * s * (rho + 2 * q) - a * (rho + 2 * q)) _.
  by rewrite subr_ge0.
rewrite -subr_ge0.
have -> : (C * (rho + 2 * q) + 2) * (e ^+ 2 + s) - (a * rho + (2 * e ^+ 2 + 2 * (a * q))) -
  (C * s * (rho + 2 * q) - a * (rho + 2 * q)) = C * (rho + 2 * q) * e ^+ 2 + 2 * s by ring.
apply: addr_ge0; last by rewrite mulr_ge0 ?ler0n.
by rewrite mulr_ge0 ?sqr_ge0 // mulr_ge0 // addr_ge0 ?mulr_ge0 ?ler0n ?(ltW Hr).
Qed.

(** The constant of [proj_bound], step by step of Gram-Schmidt: a new direction [r]
    (the residue of [z]) turns [C] into [(C (||r||^2 + 2 ||proj z||^2) + 2) / ||r||^2]. *)
Fixpoint proj_C (N : seq vec) : F :=
  if N is z :: N' then
    let r := z - proj N' z in
    if normsq r == 0 then proj_C N'
    else (proj_C N' * (normsq r + 2 * normsq (proj N' z)) + 2) / normsq r
  else 0.

Lemma proj_C_ge0 N : 0 <= proj_C N.
Proof.
elim: N => [|z N IH] //=; case: ifP => // Hne.
have Hr : 0 < normsq (z - proj N z) by rewrite lt_def Hne normsq_ge0.
by rewrite divr_ge0 ?(ltW Hr) // addr_ge0 ?ler0n // mulr_ge0 // addr_ge0 ?normsq_ge0 //
  mulr_ge0 ?ler0n ?normsq_ge0.
Qed.

(** A vector of the span of [N] is determined by its products with [N]:
    [||proj N x||^2 <= proj_C N * sum_(z in N) (x . z)^2] for every [x]. *)
Lemma proj_bound N x : normsq (proj N x) <= proj_C N * sumsq N x.
Proof.
elim: N x => [|z N IH] x; first by rewrite /= /normsq dot0l mul0r.
set r := z - proj N z; have [H0|Hne] := boolP (normsq r == 0).
  rewrite /= -/r H0; apply: le_trans (IH x) _.
  by rewrite sumsq_cons ler_wpmul2l ?proj_C_ge0 // ler_addr sqr_ge0.
have Hr : 0 < normsq r by rewrite lt_def Hne normsq_ge0.
rewrite /= -/r (negbTE Hne) sumsq_cons normsqD dotZr.
rewrite (dotC (proj N x)) (proj_orth _ (proj_perp N z)) mulr0 mulr0 addr0 normsqZ.
have -> : (dot x r / normsq r) ^+ 2 * normsq r = dot x r ^+ 2 / normsq r.
  by field.
have -> : dot x r = dot x z - dot (proj N x) (proj N z).
  rewrite dotBr; congr (_ - _); apply/eqP; rewrite -subr_eq0 -dotBl.
  by rewrite (proj_orth _ (proj_perp N x)).
apply: gs_step; rewrite ?normsq_ge0 ?sumsq_ge0 ?proj_C_ge0 //; exact: cauchy_schwarz.
Qed.

End Span.

Arguments dotDr {F n}.
Arguments dotBr {F n}.
Arguments dot0r {F n}.
Arguments orth {F n}.
Arguments orth_cons {F n v z N}.
Arguments proj {F n}.
Arguments proj_orth {F n N v} x.
Arguments proj_perp {F n}.
Arguments inspan {F n}.
Arguments normsq_residue {F n}.
Arguments inspanP {F n}.
Arguments inspan_orthP {F n}.
Arguments inspan_perp {F n N v x}.
Arguments inspan_mem {F n}.
Arguments inspan_sub {F n}.
Arguments inspanD {F n}.
Arguments proj_dot {F n}.
Arguments inspan_proj {F n}.
Arguments normsq_proj {F n}.
Arguments sumsq {F n}.
Arguments sumsq_ge0 {F n}.
Arguments sumsq_cons {F n}.
Arguments sumsq_le {F n}.
Arguments gs_step {F}.
Arguments proj_C {F n}.
Arguments proj_C_ge0 {F n}.
Arguments proj_bound {F n}.
