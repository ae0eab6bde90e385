(** The certificate checker of [verify], over the rationals [Q], executable and
    extracted to OCaml. Its two checks are proved to mean what [verify]'s kernel
    (verify/certificate/kernel.py) says they mean:
    - a witness [w] with [y_i w.[x_i, 1] > 0] for every example: separable;
    - a certificate [(i, l_i)], every [l_i > 0], with [sum_i l_i y_i [x_i, 1] = 0]:
      no [w] at all has [y_i w.[x_i, 1] > 0] for every example (Gordan). *)
Require Import QArith List Bool Lia Morphisms.
Import ListNotations.
Local Open Scope Q_scope.

(** Arithmetic in lowest terms (the numbers stay small); equal to [+] and [*]. *)
Definition qadd (x y : Q) : Q := Qred (x + y).
Definition qmul (x y : Q) : Q := Qred (x * y).
Definition qpos (q : Q) : bool := negb (Qle_bool q 0).

Arguments qadd : simpl never.
Arguments qmul : simpl never.

Lemma qadd_eq x y : qadd x y == x + y.  Proof. apply Qred_correct. Qed.
Lemma qmul_eq x y : qmul x y == x * y.  Proof. apply Qred_correct. Qed.
#[local] Instance qadd_comp : Proper (Qeq ==> Qeq ==> Qeq) qadd.
Proof. intros x x' Hx y y' Hy; rewrite !qadd_eq, Hx, Hy; reflexivity. Qed.
#[local] Instance qmul_comp : Proper (Qeq ==> Qeq ==> Qeq) qmul.
Proof. intros x x' Hx y y' Hy; rewrite !qmul_eq, Hx, Hy; reflexivity. Qed.

Ltac qsimpl := repeat (first [rewrite qadd_eq | rewrite qmul_eq]).

Lemma qpos_spec q : qpos q = true <-> 0 < q.
Proof.
  unfold qpos; rewrite negb_true_iff; split; intro H.
  - apply Qnot_le_lt; intro H'; apply Qle_bool_iff in H'; congruence.
  - destruct (Qle_bool q 0) eqn:E; auto; apply Qle_bool_iff in E.
    exfalso; apply (Qlt_not_le _ _ H E).
Qed.

(** Vectors are lists; [dot] stops at the shorter one. *)
Fixpoint dot (w z : list Q) : Q :=
  match w, z with a :: w', b :: z' => qadd (qmul a b) (dot w' z') | _, _ => 0 end.
Fixpoint vadd (a b : list Q) : list Q :=
  match a, b with x :: a', y :: b' => qadd x y :: vadd a' b' | _, _ => [] end.
Definition vscale (l : Q) (a : list Q) : list Q := map (qmul l) a.

Lemma dot_vadd w a b : length a = length b -> dot w (vadd a b) == dot w a + dot w b.
Proof.
  revert a b; induction w as [|x w IH]; intros [|p a] [|q b] H; simpl in *;
    try discriminate; try ring.
  qsimpl; rewrite IH by lia; ring.
Qed.

Lemma dot_vscale w l a : dot w (vscale l a) == l * dot w a.
Proof.
  revert a; induction w as [|x w IH]; intros [|p a]; simpl; try ring.
  qsimpl; rewrite IH; ring.
Qed.

Lemma dot_zeros w d : dot w (repeat 0 d) == 0.
Proof.
  revert d; induction w as [|x w IH]; intros [|d]; simpl; try reflexivity.
  qsimpl; rewrite IH; ring.
Qed.

Lemma dot_zero_vector w a : forallb (fun q => Qeq_bool q 0) a = true -> dot w a == 0.
Proof.
  revert a; induction w as [|x w IH]; intros [|p a] H; simpl in *; try reflexivity.
  apply andb_true_iff in H as [Hp Ha]; apply Qeq_bool_iff in Hp.
  qsimpl; rewrite Hp, IH by assumption; ring.
Qed.

Lemma length_vadd a b : length (vadd a b) = Nat.min (length a) (length b).
Proof. revert b; induction a as [|x a IH]; intros [|y b]; simpl; auto. Qed.

(** An example [(y, x)]: its augmented input [[x, 1]] (with an intercept) and its
    signed row [y [x, 1]]. *)
Definition augment (intercept : bool) (x : list Q) : list Q :=
  if intercept then x ++ [1] else x.
Definition signed (intercept : bool) (ex : Q * list Q) : list Q :=
  vscale (fst ex) (augment intercept (snd ex)).

(** What a separator is: a positive score on every signed row. *)
Definition separates (w : list Q) (zs : list (list Q)) : Prop :=
  forall z, In z zs -> 0 < dot w z.

(** ---- the witness check ---- *)
Definition check_witness (zs : list (list Q)) (w : list Q) : bool :=
  forallb (fun z => Nat.eqb (length z) (length w) && qpos (dot w z)) zs.

Theorem check_witness_correct zs w : check_witness zs w = true <->
  (forall z, In z zs -> length z = length w) /\ separates w zs.
Proof.
  unfold check_witness, separates; rewrite forallb_forall; split.
  - intros H; split; intros z Hz; specialize (H z Hz); apply andb_true_iff in H as [H1 H2].
    + apply Nat.eqb_eq; auto.
    + apply qpos_spec; auto.
  - intros [H1 H2] z Hz; apply andb_true_iff; split;
      [apply Nat.eqb_eq | apply qpos_spec]; auto.
Qed.

(** ---- the Gordan check ---- *)
Fixpoint combination (zs : list (list Q)) (d : nat) (cert : list (nat * Q)) : list Q :=
  match cert with
  | [] => repeat 0 d
  | (i, l) :: c => vadd (vscale l (nth i zs [])) (combination zs d c)
  end.

Definition check_gordan (zs : list (list Q)) (d : nat) (cert : list (nat * Q)) : bool :=
  negb (Nat.eqb (length cert) 0)
  && forallb (fun z => Nat.eqb (length z) d) zs
  && forallb (fun il => Nat.ltb (fst il) (length zs) && qpos (snd il)) cert
  && forallb (fun q => Qeq_bool q 0) (combination zs d cert).

Lemma length_combination zs d cert :
  (forall z, In z zs -> length z = d) ->
  (forall il, In il cert -> (fst il < length zs)%nat) ->
  length (combination zs d cert) = d.
Proof.
  intros Hz; induction cert as [|[i l] c IH]; intros Hc; simpl.
  - apply repeat_length.
  - rewrite length_vadd, IH by (intros; apply Hc; simpl; auto).
    unfold vscale; rewrite map_length, Hz; [lia|].
    apply nth_In; apply (Hc (i, l)); simpl; auto.
Qed.

Lemma combination_score zs d cert w :
  (forall z, In z zs -> length z = d) -> separates w zs ->
  (forall il, In il cert -> (fst il < length zs)%nat /\ 0 < snd il) ->
  0 <= dot w (combination zs d cert) /\
  (cert <> [] -> 0 < dot w (combination zs d cert)).
Proof.
  intros Hz Hw; induction cert as [|[i l] c IH]; intros Hc; simpl.
  - rewrite dot_zeros; split; [apply Qle_refl | congruence].
  - destruct IH as [IH0 _]; [intros; apply Hc; simpl; auto|].
    destruct (Hc (i, l)) as [Hi Hl]; [simpl; auto|]; simpl in Hi, Hl.
    assert (Hin : In (nth i zs []) zs) by (apply nth_In; auto).
    rewrite dot_vadd, dot_vscale.
    2: { rewrite length_combination; unfold vscale; rewrite ?map_length; auto.
         intros il Hil; apply Hc; simpl; auto. }
    assert (Hpos : 0 < l * dot w (nth i zs [])).
    { apply Qmult_lt_0_compat; auto; apply Hw; auto. }
    assert (0 < l * dot w (nth i zs []) + dot w (combination zs d c)).
    { apply Qlt_le_trans with (l * dot w (nth i zs []) + 0); [rewrite Qplus_0_r; auto|].
      apply Qplus_le_compat; [apply Qle_refl | auto]. }
    split; [apply Qlt_le_weak|]; auto.
Qed.

Theorem check_gordan_sound zs d cert :
  check_gordan zs d cert = true -> ~ exists w, separates w zs.
Proof.
  unfold check_gordan; intros H [w Hw].
  apply andb_true_iff in H as [H Hzero]; apply andb_true_iff in H as [H Hc];
    apply andb_true_iff in H as [Hne Hz].
  rewrite forallb_forall in Hz, Hc.
  destruct (combination_score zs d cert w) as [_ Hpos]; auto.
  - intros z Hin; apply Nat.eqb_eq, Hz; auto.
  - intros il Hin; specialize (Hc il Hin); apply andb_true_iff in Hc as [H1 H2].
    split; [apply Nat.ltb_lt | apply qpos_spec]; auto.
  - specialize (Hpos ltac:(destruct cert; discriminate)).
    rewrite (dot_zero_vector w _ Hzero) in Hpos; apply (Qlt_irrefl 0 Hpos).
Qed.

(** ---- the checker of a certificate file: data, and a witness or a certificate ---- *)
Inductive proof := Witness (w : list Q) | Certificate (cert : list (nat * Q)).

Definition width (zs : list (list Q)) : nat :=
  match zs with z :: _ => length z | [] => O end.

Definition labels_pm1 (data : list (Q * list Q)) : bool :=
  forallb (fun ex => Qeq_bool (fst ex) 1 || Qeq_bool (fst ex) (-1)) data.

Definition check (intercept : bool) (data : list (Q * list Q)) (p : proof) : bool :=
  let zs := map (signed intercept) data in
  labels_pm1 data &&
  match p with
  | Witness w => check_witness zs w
  | Certificate cert => check_gordan zs (width zs) cert
  end.

(** A separator of labelled data: [y (w . [x, 1]) > 0] for every example. *)
Definition separates_data (intercept : bool) (w : list Q) (data : list (Q * list Q))
  : Prop := forall y x, In (y, x) data -> 0 < y * dot w (augment intercept x).

Theorem check_witness_sound intercept data w :
  check intercept data (Witness w) = true -> separates_data intercept w data.
Proof.
  unfold check; intros H y x Hin; apply andb_true_iff in H as [_ H].
  apply check_witness_correct in H as [_ H].
  assert (Hpos := H (signed intercept (y, x)) ltac:(apply in_map_iff; exists (y, x); auto)).
  unfold signed in Hpos; rewrite dot_vscale in Hpos; exact Hpos.
Qed.

Theorem check_certificate_sound intercept data cert :
  check intercept data (Certificate cert) = true ->
  ~ exists w, separates_data intercept w data.
Proof.
  unfold check; intros H [w Hw]; apply andb_true_iff in H as [_ H].
  set (zs := map (signed intercept) data) in H.
  apply (check_gordan_sound zs (width zs) cert H); exists w; intros z Hz.
  apply in_map_iff in Hz as [[y x] [<- Hin]].
  unfold signed; rewrite dot_vscale; apply Hw; exact Hin.
Qed.

(** Which theorems the checker rests on; its run by the extracted OCaml. *)
