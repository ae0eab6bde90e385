(** The certificate checker of [verify], over the rationals [Q], executable and
    extracted to OCaml. Its two checks are proved to mean what [verify]'s kernel
    (verify/certificate/kernel.py) says they mean:
    - a witness [w] with [y_i w.[x_i, 1] > 0] for every example: separable;
    - a certificate [(i, l_i)], every [l_i > 0], with [sum_i l_i y_i [x_i, 1] = 0]:
      no [w] at all has [y_i w.[x_i, 1] > 0] for every example (Gordan). *)
Require Import QArith ZArith List Bool Lia Morphisms.
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

(** Tail-recursive list functions: the checker reads 10^8 entries, so none of its
    recursions may be as deep as a list (OCaml's stack holds about 10^5 frames). Each is
    proved equal to the plain function of the standard library. *)
Definition len {A} (l : list A) : nat := fold_left (fun n _ => S n) l O.
Definition rmap {A B} (f : A -> B) (l : list A) : list B :=
  rev' (fold_left (fun acc x => f x :: acc) l []).
Fixpoint zeros (d : nat) (acc : list Q) : list Q :=
  match d with O => acc | S k => zeros k (0 :: acc) end.

Lemma len_eq A (l : list A) : len l = length l.
Proof. unfold len; apply fold_left_length. Qed.

Lemma rmap_eq A B (f : A -> B) l : rmap f l = map f l.
Proof.
  unfold rmap, rev'; rewrite <- rev_alt.
  assert (H : forall acc, fold_left (fun acc x => f x :: acc) l acc = rev (map f l) ++ acc).
  { induction l as [|x l IH]; intros acc; simpl; auto.
    rewrite IH, <- app_assoc; reflexivity. }
  rewrite H, app_nil_r, rev_involutive; reflexivity.
Qed.

Lemma zeros_eq d acc : zeros d acc = repeat 0 d ++ acc.
Proof.
  revert acc; induction d as [|d IH]; intros acc; simpl; auto.
  rewrite IH; change (0 :: acc) with ([0] ++ acc); rewrite app_assoc.
  f_equal; clear IH; induction d as [|d IH]; simpl; [reflexivity | now rewrite IH].
Qed.

(** A sum over the least common denominator, as the Python kernel's (not in lowest
    terms: the dot product's partial sums need no gcd of their numerators, only one
    of the denominators, which stay small). *)
Definition qadd_lcm (x y : Q) : Q :=
  let g := Z.gcd (Zpos (Qden x)) (Zpos (Qden y)) in
  Qmake (Qnum x * (Zpos (Qden y) / g) + Qnum y * (Zpos (Qden x) / g))
        (Z.to_pos (Zpos (Qden x) / g * Zpos (Qden y))).

Lemma qadd_lcm_eq x y : qadd_lcm x y == x + y.
Proof.
  destruct x as [nx dx], y as [ny dy]; unfold qadd_lcm, Qeq, Qplus; cbn [Qnum Qden].
  set (g := Z.gcd (Zpos dx) (Zpos dy)).
  assert (Hg : (0 < g)%Z).
  { pose proof (Z.gcd_nonneg (Zpos dx) (Zpos dy)) as H0.
    destruct (Z.eq_dec g 0%Z) as [H|H]; [apply Z.gcd_eq_0_l in H; discriminate | fold g in H0; lia]. }
  destruct (Z.gcd_divide_l (Zpos dx) (Zpos dy)) as [bx Hx].
  destruct (Z.gcd_divide_r (Zpos dx) (Zpos dy)) as [by' Hy]. fold g in Hx, Hy.
  assert (Ex : (Zpos dx / g = bx)%Z) by (rewrite Hx; apply Z.div_mul; lia).
  assert (Ey : (Zpos dy / g = by')%Z) by (rewrite Hy; apply Z.div_mul; lia).
  rewrite Ex, Ey.
  assert (Hbx : (0 < bx)%Z) by (apply Z.mul_pos_cancel_r with g; lia).
  rewrite Z2Pos.id by lia.
  rewrite Pos2Z.inj_mul, Hx, Hy; ring.
Qed.

(** Vectors are lists; [dot] stops at the shorter one. The checker runs [dot_from]
    and [vadd_from], their tail-recursive forms. *)
Fixpoint dot (w z : list Q) : Q :=
  match w, z with a :: w', b :: z' => qadd (qmul a b) (dot w' z') | _, _ => 0 end.
Fixpoint dot_from (acc : Q) (w z : list Q) : Q :=
  match w, z with a :: w', b :: z' => dot_from (qadd_lcm acc (qmul a b)) w' z' | _, _ => acc end.
Fixpoint vadd (a b : list Q) : list Q :=
  match a, b with x :: a', y :: b' => qadd x y :: vadd a' b' | _, _ => [] end.
Fixpoint vadd_from (a b acc : list Q) : list Q :=
  match a, b with x :: a', y :: b' => vadd_from a' b' (qadd x y :: acc) | _, _ => acc end.
Definition vadd' (a b : list Q) : list Q := rev' (vadd_from a b []).
Definition vscale (l : Q) (a : list Q) : list Q := rmap (qmul l) a.

Lemma dot_from_eq acc w z : dot_from acc w z == acc + dot w z.
Proof.
  revert acc z; induction w as [|x w IH]; intros acc [|p z]; simpl; try ring.
  rewrite IH, qadd_lcm_eq; qsimpl; ring.
Qed.

Lemma vadd'_eq a b : vadd' a b = vadd a b.
Proof.
  unfold vadd', rev'; rewrite <- rev_alt.
  assert (H : forall acc, vadd_from a b acc = rev (vadd a b) ++ acc).
  { revert b; induction a as [|x a IH]; intros [|y b] acc; simpl; auto.
    rewrite IH, <- app_assoc; reflexivity. }
  rewrite H, app_nil_r, rev_involutive; reflexivity.
Qed.

Lemma dot_vadd w a b : length a = length b -> dot w (vadd a b) == dot w a + dot w b.
Proof.
  revert a b; induction w as [|x w IH]; intros [|p a] [|q b] H; simpl in *;
    try discriminate; try ring.
  qsimpl; rewrite IH by lia; ring.
Qed.

Lemma dot_vscale w l a : dot w (vscale l a) == l * dot w a.
Proof.
  unfold vscale; rewrite rmap_eq.
  revert a; induction w as [|x w IH]; intros [|p a]; simpl; try ring.
  qsimpl; rewrite IH; ring.
Qed.

Lemma length_vscale l a : length (vscale l a) = length a.
Proof. unfold vscale; rewrite rmap_eq; apply map_length. Qed.

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
    signed row [y [x, 1]] (the checker appends the 1 by [augment'], tail-recursive). *)
Definition augment (intercept : bool) (x : list Q) : list Q :=
  if intercept then x ++ [1] else x.
Definition augment' (intercept : bool) (x : list Q) : list Q :=
  if intercept then rev_append (rev' x) [1] else x.
Definition signed (intercept : bool) (ex : Q * list Q) : list Q :=
  vscale (fst ex) (augment' intercept (snd ex)).

Lemma augment'_eq intercept x : augment' intercept x = augment intercept x.
Proof.
  unfold augment', augment, rev'; destruct intercept; auto.
  rewrite rev_append_rev, <- rev_alt, rev_involutive; reflexivity.
Qed.

(** What a separator is: a positive score on every signed row. *)
Definition separates (w : list Q) (zs : list (list Q)) : Prop :=
  forall z, In z zs -> 0 < dot w z.

(** ---- the witness check ---- *)
Definition check_witness (zs : list (list Q)) (w : list Q) : bool :=
  forallb (fun z => Nat.eqb (len z) (len w) && qpos (dot_from 0 w z)) zs.

Theorem check_witness_correct zs w : check_witness zs w = true <->
  (forall z, In z zs -> length z = length w) /\ separates w zs.
Proof.
  assert (Hd : forall z, 0 < dot_from 0 w z <-> 0 < dot w z).
  { intros z; rewrite dot_from_eq, Qplus_0_l; reflexivity. }
  unfold check_witness, separates; rewrite forallb_forall; split.
  - intros H; split; intros z Hz; specialize (H z Hz); apply andb_true_iff in H as [H1 H2].
    + rewrite <- !len_eq; apply Nat.eqb_eq; auto.
    + apply Hd, qpos_spec; auto.
  - intros [H1 H2] z Hz; apply andb_true_iff; split.
    + rewrite !len_eq; apply Nat.eqb_eq; auto.
    + apply qpos_spec, Hd; auto.
Qed.

(** ---- the Gordan check ---- *)
(** [walk zs i cert acc] goes down the rows [zs] (the first one numbered [i]) once, and
    adds [l z] to [acc] for the row [z] that the head [(j, l)] of [cert] names (when
    [j] is its number; then the next one): the sum [sum l_j z_j], and what is left of
    [cert]. Nothing is left exactly when [cert]'s indices rise and every one names a
    row: each row is looked up in its turn, not by [nth] (quadratic). *)
Fixpoint walk (zs : list (list Q)) (i : nat) (cert : list (nat * Q)) (acc : list Q)
  : list Q * list (nat * Q) :=
  match zs, cert with
  | z :: zs', (j, l) :: c =>
    if Nat.eqb j i then walk zs' (S i) c (vadd' (vscale l z) acc)
    else walk zs' (S i) cert acc
  | _, _ => (acc, cert)
  end.

Definition check_gordan (zs : list (list Q)) (d : nat) (cert : list (nat * Q)) : bool :=
  match cert with [] => false | _ => true end
  && forallb (fun z => Nat.eqb (len z) d) zs
  && forallb (fun il => qpos (snd il)) cert
  && match walk zs O cert (zeros d []) with
     | (sum, []) => forallb (fun q => Qeq_bool q 0) sum
     | _ => false
     end.

(** Every row [walk] adds has a positive score under a separator, so the score of the
    sum only grows, and strictly when it adds one. *)
Lemma walk_score zs i cert acc sum w d :
  (forall z, In z zs -> length z = d) -> length acc = d -> separates w zs ->
  (forall il, In il cert -> 0 < snd il) -> walk zs i cert acc = (sum, []) ->
  dot w acc <= dot w sum /\ (cert <> [] -> dot w acc < dot w sum).
Proof.
  revert i cert acc; induction zs as [|z zs IH]; intros i cert acc Hz Hacc Hw Hc Hwalk.
  - simpl in Hwalk; destruct cert; [|discriminate].
    injection Hwalk as <-; split; [apply Qle_refl | congruence].
  - destruct cert as [|[j l] c].
    { simpl in Hwalk; injection Hwalk as <-; split; [apply Qle_refl | congruence]. }
    assert (Hz' : forall z', In z' zs -> length z' = d) by (intros; apply Hz; simpl; auto).
    assert (Hw' : separates w zs) by (intros z' H'; apply Hw; simpl; auto).
    simpl in Hwalk; destruct (Nat.eqb j i).
    + assert (Hl : 0 < l) by (apply (Hc (j, l)); simpl; auto).
      assert (Hlen : length (vscale l z) = length acc)
        by (rewrite length_vscale, Hacc; apply Hz; simpl; auto).
      destruct (IH (S i) c (vadd' (vscale l z) acc)) as [IH1 _]; auto.
      { rewrite vadd'_eq, length_vadd, Hlen, Nat.min_id; auto. }
      { intros; apply Hc; simpl; auto. }
      rewrite vadd'_eq, dot_vadd, dot_vscale in IH1 by exact Hlen.
      assert (0 < l * dot w z) by (apply Qmult_lt_0_compat; auto; apply Hw; simpl; auto).
      assert (Hlt : dot w acc < dot w sum).
      { apply Qlt_le_trans with (l * dot w z + dot w acc); auto.
        rewrite <- (Qplus_0_l (dot w acc)) at 1; apply Qplus_lt_l; auto. }
      split; [apply Qlt_le_weak|]; auto.
    + apply (IH (S i) ((j, l) :: c) acc); auto.
Qed.

Theorem check_gordan_sound zs d cert :
  check_gordan zs d cert = true -> ~ exists w, separates w zs.
Proof.
  unfold check_gordan; intros H [w Hw].
  apply andb_true_iff in H as [H Hzero]; apply andb_true_iff in H as [H Hc];
    apply andb_true_iff in H as [Hne Hz].
  rewrite forallb_forall in Hz, Hc.
  destruct (walk zs O cert (zeros d [])) as [sum [|il rest]] eqn:Hwalk;
    [|discriminate].
  destruct (walk_score zs O cert (zeros d []) sum w d) as [_ Hpos]; auto.
  - intros z Hin; rewrite <- len_eq; apply Nat.eqb_eq, Hz; auto.
  - rewrite zeros_eq, app_nil_r; apply repeat_length.
  - intros il Hin; apply qpos_spec, Hc; auto.
  - specialize (Hpos ltac:(destruct cert; discriminate)).
    rewrite zeros_eq, app_nil_r, dot_zeros, (dot_zero_vector w _ Hzero) in Hpos.
    apply (Qlt_irrefl 0 Hpos).
Qed.

(** ---- the checker of a certificate file: data, and a witness or a certificate ---- *)
Inductive proof := Witness (w : list Q) | Certificate (cert : list (nat * Q)).

Definition width (zs : list (list Q)) : nat :=
  match zs with z :: _ => len z | [] => O end.

Definition labels_pm1 (data : list (Q * list Q)) : bool :=
  forallb (fun ex => Qeq_bool (fst ex) 1 || Qeq_bool (fst ex) (-1)) data.

Definition check (intercept : bool) (data : list (Q * list Q)) (p : proof) : bool :=
  let zs := rmap (signed intercept) data in
  labels_pm1 data &&
  match p with
  | Witness w => check_witness zs w
  | Certificate cert => check_gordan zs (width zs) cert
  end.

(** A separator of labelled data: [y (w . [x, 1]) > 0] for every example. *)
Definition separates_data (intercept : bool) (w : list Q) (data : list (Q * list Q))
  : Prop := forall y x, In (y, x) data -> 0 < y * dot w (augment intercept x).

Lemma signed_score intercept w y x :
  dot w (signed intercept (y, x)) == y * dot w (augment intercept x).
Proof. unfold signed; simpl; rewrite dot_vscale, augment'_eq; reflexivity. Qed.

Theorem check_witness_sound intercept data w :
  check intercept data (Witness w) = true -> separates_data intercept w data.
Proof.
  unfold check; rewrite rmap_eq; intros H y x Hin; apply andb_true_iff in H as [_ H].
  apply check_witness_correct in H as [_ H].
  assert (Hpos := H (signed intercept (y, x)) ltac:(apply in_map_iff; exists (y, x); auto)).
  rewrite signed_score in Hpos; exact Hpos.
Qed.

Theorem check_certificate_sound intercept data cert :
  check intercept data (Certificate cert) = true ->
  ~ exists w, separates_data intercept w data.
Proof.
  unfold check; rewrite rmap_eq; intros H [w Hw]; apply andb_true_iff in H as [_ H].
  set (zs := map (signed intercept) data) in H.
  apply (check_gordan_sound zs (width zs) cert H); exists w; intros z Hz.
  apply in_map_iff in Hz as [[y x] [<- Hin]].
  rewrite signed_score; apply Hw; exact Hin.
Qed.
