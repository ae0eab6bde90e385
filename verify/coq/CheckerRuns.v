(** From the checker's [true] to the learning theorems, for the perceptron on the
    checker's own signed rows [y [x, 1]] in exact rationals:
    - a Gordan certificate it accepts: every run that presents the data in a cyclic
      order, from any start, makes a mistake in every pass (infinitely many);
    - a witness [w] it accepts: its margin [gamma = min_i w . z_i] is positive, and
      Novikoff's bound [R^2 ||w||^2 / gamma^2] holds on every stream of the data. *)
From Markone Require Import Checker.
Require Import QArith Qpower Qminmax Lqa List Lia.
Import ListNotations.
Local Open Scope Q_scope.

(** The perceptron on rows [z]: a mistake when [w . z] is not [> 0] (a zero score is
    a mistake, as markone's), then [w + z]; the final weights and the mistakes. *)
Fixpoint qrun (w : list Q) (s : list (list Q)) : list Q * nat :=
  match s with
  | [] => (w, O)
  | z :: s' =>
    if qpos (dot w z) then qrun w s' else let r := qrun (vadd w z) s' in (fst r, S (snd r))
  end.

(** The signed rows the checker reads. *)
Definition rows (intercept : bool) (data : list (Q * list Q)) : list (list Q) :=
  map (signed intercept) data.

Lemma check_rows intercept data p : check intercept data p = true ->
  match p with
  | Witness w => check_witness (rows intercept data) w = true
  | Certificate cert => check_gordan (rows intercept data) (width (rows intercept data)) cert = true
  end.
Proof.
  unfold check, rows; rewrite rmap_eq; intros H; apply andb_true_iff in H as [_ H].
  destruct p; exact H.
Qed.

(** ---- a Gordan certificate: a mistake in every pass ---- *)
Lemma qrun_app w s1 s2 : qrun w (s1 ++ s2) =
  (fst (qrun (fst (qrun w s1)) s2), (snd (qrun w s1) + snd (qrun (fst (qrun w s1)) s2))%nat).
Proof.
  revert w; induction s1 as [|z s1 IH]; intros w; simpl.
  - destruct (qrun w s2); reflexivity.
  - destruct (qpos (dot w z)); rewrite IH; reflexivity.
Qed.

Lemma qrun_no_mistake w s : snd (qrun w s) = O -> separates w s.
Proof.
  induction s as [|z s IH]; intros H z' Hin; simpl in *; [contradiction|].
  destruct (qpos (dot w z)) eqn:E; [|discriminate].
  destruct Hin as [<-|Hin]; [apply qpos_spec; exact E | apply IH; auto].
Qed.

(** On accepted Gordan certificates: [p] passes over the data in the same order, from
    any start [w], make at least [p] mistakes. *)
Theorem check_certificate_cycles intercept data cert :
  check intercept data (Certificate cert) = true ->
  forall w p, (p <= snd (qrun w (concat (repeat (rows intercept data) p))))%nat.
Proof.
  intros H; apply check_rows, check_gordan_sound in H.
  intros w p; revert w; induction p as [|p IH]; intros w; [lia|].
  simpl; rewrite qrun_app; simpl.
  destruct (snd (qrun w (rows intercept data))) eqn:E.
  - exfalso; apply H; exists w; apply qrun_no_mistake; exact E.
  - specialize (IH (fst (qrun w (rows intercept data)))); lia.
Qed.

(** ---- a witness: Novikoff with the witness's margin ---- *)
Lemma sq_nonneg p : 0 <= p * p.
Proof. exact (Qsqr_nonneg p). Qed.

Lemma dot_comm a b : dot a b == dot b a.
Proof.
  revert b; induction a as [|x a IH]; intros [|y b]; simpl; try reflexivity.
  rewrite !qadd_eq, !qmul_eq, IH; ring.
Qed.

Lemma dot_zeros_l d a : dot (repeat 0 d) a == 0.
Proof. rewrite dot_comm; apply dot_zeros. Qed.

Lemma dot_self_nonneg a : 0 <= dot a a.
Proof.
  induction a as [|x a IH]; simpl; [apply Qle_refl|].
  rewrite qadd_eq, qmul_eq; pose proof (sq_nonneg x); lra.
Qed.

Lemma dot_vadd_l a b c : length a = length b -> dot (vadd a b) c == dot a c + dot b c.
Proof.
  intros H; rewrite dot_comm, dot_vadd, !(dot_comm c) by exact H; reflexivity.
Qed.

(** Cauchy-Schwarz, one coordinate at a time. *)
Lemma cs_step s A B x y : 0 <= A -> 0 <= B -> s * s <= A * B ->
  (x * y + s) * (x * y + s) <= (x * x + A) * (y * y + B).
Proof.
  intros HA HB Hs.
  assert (H : 0 <= A * y * y + B * x * x - 2 * s * x * y).
  { destruct (Qle_lt_or_eq 0 A HA) as [HA'|HA'].
    - pose proof (sq_nonneg (A * y - s * x)) as H1.
      assert (H2 : 0 <= (A * B - s * s) * (x * x))
        by (apply Qmult_le_0_compat; [lra | apply sq_nonneg]).
      assert (E : A * (A * y * y + B * x * x - 2 * s * x * y) ==
                  (A * y - s * x) * (A * y - s * x) + (A * B - s * s) * (x * x)) by ring.
      apply (Qmult_le_l _ _ A HA'); rewrite Qmult_0_r, E; lra.
    - rewrite <- HA' in Hs; pose proof (sq_nonneg s).
      assert (Es : s * s == 0) by lra.
      assert (Hs0 : s == 0) by (destruct (Qmult_integral _ _ Es); auto).
      rewrite <- HA', Hs0.
      assert (0 <= B * (x * x)) by (apply Qmult_le_0_compat; [lra | apply sq_nonneg]).
      setoid_replace (0 * y * y + B * x * x - 2 * 0 * x * y) with (B * (x * x)) by ring.
      lra. }
  lra.
Qed.

Lemma dot_cs a b : dot a b * dot a b <= dot a a * dot b b.
Proof.
  revert b; induction a as [|x a IH]; intros [|y b]; simpl.
  - lra.
  - rewrite Qmult_0_l; lra.
  - rewrite Qmult_0_r; lra.
  - rewrite !qadd_eq, !qmul_eq.
    apply cs_step; [apply dot_self_nonneg | apply dot_self_nonneg | apply IH].
Qed.

(** A count of mistakes as a rational. *)
Definition qn (k : nat) : Q := inject_Z (Z.of_nat k).

Lemma qn_S k : qn (S k) == qn k + 1.
Proof. unfold qn; rewrite Nat2Z.inj_succ, <- Z.add_1_r, inject_Z_plus; reflexivity. Qed.

Lemma qn_nonneg k : 0 <= qn k.
Proof. unfold qn; change 0 with (inject_Z 0); rewrite <- Zle_Qle; lia. Qed.

(** Along a run whose rows all have [u]'s length, [u . z >= gamma] and
    [||z||^2 <= R2]: [u . w] grows by at least [gamma] and [||w||^2] by at most [R2]
    at each mistake. *)
Lemma qrun_invariant u gamma R2 w s :
  length w = length u ->
  (forall z, In z s -> length z = length u /\ gamma <= dot u z /\ dot z z <= R2) ->
  length (fst (qrun w s)) = length u /\
  dot u w + qn (snd (qrun w s)) * gamma <= dot u (fst (qrun w s)) /\
  dot (fst (qrun w s)) (fst (qrun w s)) <= dot w w + qn (snd (qrun w s)) * R2.
Proof.
  revert w; induction s as [|z s IH]; intros w Hw Hs; simpl.
  { change (qn 0) with 0; rewrite !Qmult_0_l, !Qplus_0_r.
    split; [exact Hw | split; apply Qle_refl]. }
  destruct (Hs z (or_introl eq_refl)) as [Hz [Hg HR]].
  assert (Hs' : forall z', In z' s -> length z' = length u /\ gamma <= dot u z' /\
    dot z' z' <= R2) by (intros; apply Hs; simpl; auto).
  destruct (qpos (dot w z)) eqn:E; [apply IH; auto|]; simpl.
  assert (Hm : dot w z <= 0).
  { apply Qnot_lt_le; intros Hlt; apply qpos_spec in Hlt; congruence. }
  assert (Hl : length w = length z) by congruence.
  destruct (IH (vadd w z)) as [H1 [H2 H3]]; auto.
  { rewrite length_vadd, Hw, Hz; apply Nat.min_id. }
  rewrite dot_vadd in H2 by exact Hl.
  rewrite dot_vadd_l, !dot_vadd, (dot_comm z w) in H3 by (rewrite ?length_vadd; lia).
  rewrite qn_S; split; [exact H1 | split; lra].
Qed.

(** Novikoff over the rationals, with any [u] (not of unit length: [||u||^2] in the
    bound): [k gamma^2 <= R2 ||u||^2] after [k] mistakes from zero. *)
Theorem qnovikoff u gamma R2 s :
  0 < gamma -> 0 <= R2 ->
  (forall z, In z s -> length z = length u /\ gamma <= dot u z /\ dot z z <= R2) ->
  qn (snd (qrun (repeat 0 (length u)) s)) * (gamma * gamma) <= R2 * dot u u.
Proof.
  intros Hg HR Hs.
  destruct (qrun_invariant u gamma R2 (repeat 0 (length u)) s) as [_ [H2 H3]];
    [apply repeat_length | exact Hs |].
  set (k := qn (snd (qrun (repeat 0 (length u)) s))) in *.
  set (w := fst (qrun (repeat 0 (length u)) s)) in *.
  rewrite dot_zeros in H2.
  rewrite dot_zeros_l in H3.
  assert (Hk : 0 <= k) by apply qn_nonneg.
  assert (Hkg : 0 <= k * gamma) by (apply Qmult_le_0_compat; lra).
  assert (Hsq : (k * gamma) * (k * gamma) <= dot u w * dot u w)
    by (apply Qmult_le_compat_nonneg; lra).
  pose proof (dot_cs u w) as Hcs.
  assert (Huw : dot u u * dot w w <= dot u u * (k * R2)).
  { rewrite (Qmult_comm (dot u u)), (Qmult_comm (dot u u)).
    apply Qmult_le_compat_r; [lra | apply dot_self_nonneg]. }
  destruct (Qle_lt_or_eq 0 k Hk) as [Hkpos|Hk0].
  - apply (Qmult_le_l _ _ k Hkpos).
    setoid_replace (k * (k * (gamma * gamma))) with ((k * gamma) * (k * gamma)) by ring.
    setoid_replace (k * (R2 * dot u u)) with (dot u u * (k * R2)) by ring.
    lra.
  - rewrite <- Hk0, Qmult_0_l; apply Qmult_le_0_compat; [exact HR | apply dot_self_nonneg].
Qed.

(** The witness's margin (the least score of a row; 1 when there is no row) and the
    squared radius (the largest [||z||^2]; 0 when there is no row). *)
Fixpoint least_score (w : list Q) (first : Q) (zs : list (list Q)) : Q :=
  match zs with [] => first | z :: zs' => Qmin (dot w z) (least_score w first zs') end.
Definition margin (w : list Q) (zs : list (list Q)) : Q :=
  match zs with [] => 1 | z :: zs' => least_score w (dot w z) zs' end.
Fixpoint radius2 (zs : list (list Q)) : Q :=
  match zs with [] => 0 | z :: zs' => Qmax (dot z z) (radius2 zs') end.

Lemma least_score_le w m zs : least_score w m zs <= m /\
  forall z, In z zs -> least_score w m zs <= dot w z.
Proof.
  induction zs as [|z zs [IH1 IH2]]; simpl; [split; [apply Qle_refl | contradiction]|].
  split; [eapply Qle_trans; [apply Q.le_min_r | exact IH1]|].
  intros z' [<-|Hin]; [apply Q.le_min_l|].
  eapply Qle_trans; [apply Q.le_min_r | apply IH2; exact Hin].
Qed.

Lemma least_score_pos w m zs : 0 < m -> (forall z, In z zs -> 0 < dot w z) ->
  0 < least_score w m zs.
Proof.
  induction zs as [|z zs IH]; intros Hm Hz; simpl; [exact Hm|].
  apply Q.min_glb_lt; [apply Hz; simpl; auto | apply IH; auto].
  intros; apply Hz; simpl; auto.
Qed.

Lemma margin_spec w zs : separates w zs ->
  0 < margin w zs /\ forall z, In z zs -> margin w zs <= dot w z.
Proof.
  destruct zs as [|z0 zs]; intros H; simpl; [split; [lra | contradiction]|].
  destruct (least_score_le w (dot w z0) zs) as [H1 H2]; split.
  - apply least_score_pos; [apply H; simpl; auto | intros; apply H; simpl; auto].
  - intros z [<-|Hin]; [exact H1 | apply H2; exact Hin].
Qed.

Lemma radius2_spec zs : 0 <= radius2 zs /\ forall z, In z zs -> dot z z <= radius2 zs.
Proof.
  induction zs as [|z zs [IH1 IH2]]; simpl; [split; [apply Qle_refl | contradiction]|].
  split; [eapply Qle_trans; [exact IH1 | apply Q.le_max_r]|].
  intros z' [<-|Hin]; [apply Q.le_max_l|].
  eapply Qle_trans; [apply IH2; exact Hin | apply Q.le_max_r].
Qed.

(** On accepted witnesses: on every stream of the data's rows (any order, any
    repetition), the perceptron from zero makes at most [R^2 ||w||^2 / gamma^2]
    mistakes, [gamma] the witness's margin (positive) and [R^2] the largest
    [||z||^2]: Novikoff for the unit vector [w / ||w||], of margin [gamma / ||w||]. *)
Theorem check_witness_novikoff intercept data w s :
  check intercept data (Witness w) = true ->
  (forall z, In z s -> In z (rows intercept data)) ->
  0 < margin w (rows intercept data) /\
  qn (snd (qrun (repeat 0 (length w)) s)) *
    (margin w (rows intercept data) * margin w (rows intercept data))
    <= radius2 (rows intercept data) * dot w w.
Proof.
  intros H Hs; apply check_rows, check_witness_correct in H as [Hlen Hsep].
  destruct (margin_spec w _ Hsep) as [Hpos Hle].
  destruct (radius2_spec (rows intercept data)) as [HR0 HR].
  split; [exact Hpos|].
  apply qnovikoff; [exact Hpos | exact HR0 |].
  intros z Hz; specialize (Hs z Hz); split; [apply Hlen; exact Hs|].
  split; [apply Hle; exact Hs | apply HR; exact Hs].
Qed.
