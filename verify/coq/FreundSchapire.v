(** Freund and Schapire's bound for data that need not be separable: on every stream,
    for a unit [u] and [gamma > 0], with the hinge deficiencies
    [d_z = max(0, gamma - u . z)] and [D^2 >= sum_z d_z^2], the perceptron makes at most
    [((R + D) / gamma)^2] mistakes. *)
From Markone Require Import Perceptron.
From mathcomp.algebra_tactics Require Import ring.
Local Open Scope ring_scope.

Section FreundSchapire.

Variables (F : realFieldType) (n : nat).
Notation vec := 'rV[F]_n.

Variables (u : vec) (gamma R : F).

(** How far [z] falls short of the margin [gamma] along [u] (0 when it does not). *)
Definition hinge (z : vec) : F := Num.max 0 (gamma - dot u z).

Lemma hinge_ge0 z : 0 <= hinge z.
Proof. by rewrite /hinge le_maxr lexx. Qed.

Lemma hinge_margin z : gamma - hinge z <= dot u z.
Proof. by rewrite ler_subl_addr addrC -ler_subl_addr /hinge le_maxr lexx orbT. Qed.

Lemma dotDr (a b c : vec) : dot a (b + c) = dot a b + dot a c.
Proof. by rewrite dotC dotDl !(dotC _ a). Qed.

(** The Cauchy-Schwarz step: [A^2 <= k Q] gives [(A + d)^2 <= (k + 1)(Q + d^2)]. *)
Lemma cs_step (k A Q d : F) :
  0 <= k -> 0 <= A -> 0 <= Q -> A ^+ 2 <= k * Q ->
  (d + A) ^+ 2 <= (k + 1) * (d ^+ 2 + Q).
Proof.
move=> Hk HA HQ HAQ.
have [Hk0|Hkpos] := eqVneq k 0.
  move: HAQ; rewrite Hk0 mul0r => HA2.
  have -> : A = 0 by apply/eqP; rewrite -sqrf_eq0 eq_le HA2 sqr_ge0.
  by rewrite addr0 add0r mul1r ler_addl.
have Hk' : 0 < k by rewrite lt_def Hkpos Hk.
rewrite -subr_ge0.
have -> : (k + 1) * (d ^+ 2 + Q) - (d + A) ^+ 2 = (k * Q - A ^+ 2) + (Q + k * d ^+ 2 - 2 * A * d)
  by ring.
apply: addr_ge0; first by rewrite subr_ge0.
rewrite -(pmulr_rge0 _ Hk'); apply: (le_trans (sqr_ge0 (A - k * d))).
rewrite -subr_ge0.
have -> : k * (Q + k * d ^+ 2 - 2 * A * d) - (A - k * d) ^+ 2 = k * Q - A ^+ 2 by ring.
by rewrite subr_ge0.
Qed.

(** Along a run from any [w], with [k] mistakes: [u . w] grows by at least
    [k gamma - A], [||w||^2] by at most [k R^2], where [A] sums the deficiencies of the
    mistakes and [A^2 <= k Q], [Q] the sum of their squares. *)
Lemma fs_run (w : vec) (s : seq vec) :
  (forall z, z \in s -> normsq z <= R ^+ 2) ->
  exists A Q : F, [/\ 0 <= A /\ 0 <= Q, A ^+ 2 <= (run perceptron_update w s).2%:R * Q,
    Q <= \sum_(z <- s) hinge z ^+ 2,
    (run perceptron_update w s).2%:R * gamma - A
      <= dot u (run perceptron_update w s).1 - dot u w
    & normsq (run perceptron_update w s).1
      <= normsq w + (run perceptron_update w s).2%:R * R ^+ 2].
Proof.
elim: s w => [|z s IH] w Hradius.
  by exists 0, 0; rewrite /= big_nil lexx expr0n /= !mul0r subrr sub0r oppr0 addr0 !lexx.
have Hs : forall z', z' \in s -> normsq z' <= R ^+ 2.
  by move=> z' Hz'; apply: Hradius; rewrite inE Hz' orbT.
rewrite big_cons /=; case: ifP => Hm /=; last first.
  have [A [Q [[HA HQ0] HAQ HQ Hu Hw]]] := IH w Hs.
  by exists A, Q; split => //; rewrite (le_trans HQ) // ler_addr sqr_ge0.
have [A [Q [[HA HQ0] HAQ HQ Hu Hw]]] := IH (perceptron_update w z) Hs.
set k := (run perceptron_update (perceptron_update w z) s).2 in HAQ Hu Hw *.
set w' := (run perceptron_update (perceptron_update w z) s).1 in Hu Hw *.
exists (hinge z + A), (hinge z ^+ 2 + Q); rewrite -[k.+1]addn1 natrD; split.
- by rewrite !addr_ge0 ?hinge_ge0 ?sqr_ge0.
- by apply: cs_step; rewrite ?ler0n.
- by rewrite ler_add2l.
- move: Hu (hinge_margin z); rewrite /perceptron_update dotDr => Hu Hz.
  have -> : (k%:R + 1) * gamma - (hinge z + A) = (k%:R * gamma - A) + (gamma - hinge z)
    by ring.
  apply: (le_trans (ler_add Hu Hz)); rewrite le_eqVlt; apply/orP; left; apply/eqP; ring.
- apply: (le_trans Hw); rewrite /perceptron_update normsqD -subr_ge0.
  have -> : normsq w + (k%:R + 1) * R ^+ 2 - (normsq w + 2 * dot w z + normsq z +
    k%:R * R ^+ 2) = 2 * (- dot w z) + (R ^+ 2 - normsq z) by ring.
  rewrite addr_ge0 ?mulr_ge0 ?ler0n // ?oppr_ge0 // subr_ge0.
  exact: Hradius (mem_head _ _).
Qed.

(** The arithmetic of the end: [k] mistakes, [A^2 <= k D^2] and, when
    [B = k gamma - A >= 0], [B^2 <= k R^2] give [k gamma^2 <= (R + D)^2]. *)
Lemma fs_arith (k A D : F) :
  0 <= k -> 0 < gamma -> 0 <= R -> 0 <= D -> 0 <= A -> A ^+ 2 <= k * D ^+ 2 ->
  (0 <= k * gamma - A -> (k * gamma - A) ^+ 2 <= k * R ^+ 2) ->
  k * gamma ^+ 2 <= (R + D) ^+ 2.
Proof.
move=> Hk Hg HR HD HA HAD HB.
have [->|Hk0] := eqVneq k 0; first by rewrite mul0r sqr_ge0.
have Hkpos : 0 < k by rewrite lt_def Hk0 Hk.
have HRD : D ^+ 2 <= (R + D) ^+ 2 by rewrite ler_sqr ?nnegrE ?addr_ge0 // ler_addr.
rewrite -(ler_pmul2l Hkpos).
have -> : k * (k * gamma ^+ 2) = (k * gamma) ^+ 2 by ring.
have Hkg : 0 <= k * gamma by rewrite mulr_ge0 // ltW.
have [Hle|Hlt] := leP (k * gamma) A.
  apply: (le_trans _ (le_trans HAD _)); first by rewrite ler_sqr ?nnegrE.
  by rewrite ler_pmul2l.
have HB0 : 0 <= k * gamma - A by rewrite subr_ge0 ltW.
have HB2 := HB HB0.
have HAB : A * (k * gamma - A) <= k * R * D.
  rewrite -ler_sqr ?nnegrE ?mulr_ge0 //.
  have -> : (k * R * D) ^+ 2 = (k * D ^+ 2) * (k * R ^+ 2) by ring.
  by rewrite exprMn; apply: ler_pmul; rewrite ?sqr_ge0.
have -> : (k * gamma) ^+ 2 = (k * gamma - A) ^+ 2 + 2 * (A * (k * gamma - A)) + A ^+ 2
  by ring.
have -> : k * (R + D) ^+ 2 = k * R ^+ 2 + 2 * (k * R * D) + k * D ^+ 2 by ring.
by rewrite !ler_add // ler_pmul2l ?ltr0n.
Qed.

Lemma normsqB (a b : vec) : normsq (a - b) = normsq a - 2 * dot a b + normsq b.
Proof.
rewrite normsqD /normsq [dot a (- b)]dotC [dot (- b) (- b)]dotNl [dot b (- b)]dotC.
by rewrite !dotNl opprK (dotC b a); ring.
Qed.

(** Freund and Schapire's bound: on every stream of signed examples [z = y x] (any
    order, any repetition, separable or not) with [||z|| <= R], for a unit [u], a
    margin [gamma > 0] and [D^2] at least the sum of the squared hinge deficiencies
    [max(0, gamma - u . z)^2] over the stream, the perceptron that starts at zero and
    counts a zero score as a mistake makes at most [((R + D) / gamma)^2] mistakes. *)
Theorem freund_schapire (D : F) (s : seq vec) :
  0 < gamma -> normsq u = 1 -> 0 <= R -> 0 <= D ->
  (forall z, z \in s -> normsq z <= R ^+ 2) ->
  \sum_(z <- s) hinge z ^+ 2 <= D ^+ 2 ->
  (mistakes perceptron_update s)%:R <= ((R + D) / gamma) ^+ 2.
Proof.
move=> Hg Hu HR HD Hradius HD2.
have [A [Q [[HA HQ] HAQ HQs Hdot Hnorm]]] := fs_run 0 s Hradius.
move: HAQ Hdot Hnorm; rewrite /mistakes.
set k := (run perceptron_update 0 s).2; set w := (run perceptron_update 0 s).1.
rewrite [dot u 0]dotC dot0l subr0 [normsq 0]/normsq dot0l add0r => HAQ Hdot Hnorm.
have Hg2 : 0 < gamma ^+ 2 by rewrite exprn_gt0.
rewrite expr_div_n ler_pdivl_mulr //.
apply: (fs_arith k%:R A D); rewrite ?ler0n //.
  by rewrite (le_trans HAQ) // ler_wpmul2l ?ler0n // (le_trans HQs).
move=> HB; apply: le_trans Hnorm.
have := normsq_ge0 (w - (k%:R * gamma - A) *: u).
rewrite normsqB dotZr normsqZ Hu mulr1 => H0.
have Hwu : k%:R * gamma - A <= dot w u by rewrite dotC.
rewrite -subr_ge0.
have -> : normsq w - (k%:R * gamma - A) ^+ 2 = (normsq w - 2 * ((k%:R * gamma - A) *
  dot w u) + (k%:R * gamma - A) ^+ 2) + 2 * (k%:R * gamma - A) * (dot w u -
  (k%:R * gamma - A)) by ring.
by rewrite addr_ge0 // !mulr_ge0 ?ler0n // subr_ge0.
Qed.

End FreundSchapire.
