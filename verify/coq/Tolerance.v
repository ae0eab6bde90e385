(** The worst case of a trained machine (issue 42): the lemma that, for a linear
    score, the worst case over a box of weight errors or over k forced terms is
    attained at a witness, and the checker of a tolerance certificate, executable and
    extracted with [Checker.check], proved sound against it.

    One R-unit has weights [w]; a figure is [(y, x)], its margin [y * dot w x]; it is
    answered right when the margin is > 0 (a tie is wrong, as the machine counts it).
    - Box: every weight off by at most [e]. The margin drops by at most
      [e * l1 y x] ([l1 y x] the sum of the [|y x_j|]), and the push [push e y x]
      (every weight [e] against [y x_j]) drops it by exactly that.
    - Forced terms: the A-units of a list [K] forced to output [a] ([0] dead, [1]
      stuck). The margin drops by the sum over [K] of the terms
      [v_j = y w_j (x_j - a)]; over every [K] of at most [k] A-units that sum is at
      most [k t + sum_j (v_j - t)^+] for any [t >= 0], with equality at the [k]
      largest terms when [t] is the [k]-th largest: a threshold [t] per figure is the
      certificate that no [k] A-units break it. *)
From Markone Require Import Checker.
Require Import QArith Qabs ZArith List Bool Lia Lqa Morphisms.
Import ListNotations.
Local Open Scope Q_scope.

#[local] Instance qadd_comp' : Proper (Qeq ==> Qeq ==> Qeq) qadd.
Proof. intros x x' Hx y y' Hy; rewrite !qadd_eq, Hx, Hy; reflexivity. Qed.
#[local] Instance qmul_comp' : Proper (Qeq ==> Qeq ==> Qeq) qmul.
Proof. intros x x' Hx y y' Hy; rewrite !qmul_eq, Hx, Hy; reflexivity. Qed.

Ltac qs := repeat (first [rewrite qadd_eq | rewrite qmul_eq]).

(** ---- the quantities ---- *)
Definition margin (w : list Q) (f : Q * list Q) : Q := qmul (fst f) (dot w (snd f)).

(** [l1 y x]: the sum of the [|y x_j|], what a box of 1 can take from a margin. *)
Fixpoint l1 (y : Q) (x : list Q) : Q :=
  match x with [] => 0 | a :: x' => qadd (Qabs (qmul y a)) (l1 y x') end.

(** The witness of the box: every weight [e] against the figure. *)
Definition qsgn (q : Q) : Q := if Qlt_le_dec 0 q then 1 else if Qlt_le_dec q 0 then -1 else 0.
Definition push (e y : Q) (x : list Q) : list Q := map (fun a => - (e * qsgn (y * a))) x.

(** [force a K x]: the entries of [x] whose positions [K] lists set to [a]. *)
Fixpoint forcei (a : Q) (K : list nat) (i : nat) (x : list Q) : list Q :=
  match x with
  | [] => []
  | b :: x' => (if existsb (Nat.eqb i) K then a else b) :: forcei a K (S i) x'
  end.
Definition force a K x := forcei a K O x.

(** The terms [v_j = y w_j (x_j - a)] and the sum of those whose positions [K] lists. *)
Fixpoint terms (a y : Q) (w x : list Q) : list Q :=
  match w, x with
  | c :: w', b :: x' => qmul y (qmul c (qadd b (- a))) :: terms a y w' x'
  | _, _ => []
  end.
Fixpoint chosen (K : list nat) (i : nat) (v : list Q) : Q :=
  match v with
  | [] => 0
  | c :: v' => qadd (if existsb (Nat.eqb i) K then c else 0) (chosen K (S i) v')
  end.

(** [sum_j (v_j - t)^+]. *)
Definition pos (q : Q) : Q := if Qle_bool q 0 then 0 else q.
Fixpoint excess (t : Q) (v : list Q) : Q :=
  match v with [] => 0 | c :: v' => qadd (pos (qadd c (- t))) (excess t v') end.

(** ---- arithmetic facts ---- *)
Lemma pos_ge q : q <= pos q.
Proof. unfold pos; destruct (Qle_bool q 0) eqn:E; [apply Qle_bool_iff in E|]; lra. Qed.
Lemma pos_nonneg q : 0 <= pos q.
Proof.
  unfold pos; destruct (Qle_bool q 0) eqn:E; [lra|].
  destruct (Qlt_le_dec 0 q); [lra|]. apply Qle_bool_iff in q0; congruence.
Qed.
Lemma pos_of_nonneg q : 0 <= q -> pos q == q.
Proof.
  unfold pos; intro H; destruct (Qle_bool q 0) eqn:E; [apply Qle_bool_iff in E; lra|reflexivity].
Qed.
Lemma pos_of_nonpos q : q <= 0 -> pos q == 0.
Proof.
  unfold pos; intro H; destruct (Qle_bool q 0) eqn:E; [reflexivity|].
  apply (proj2 (Qle_bool_iff _ _)) in H; congruence.
Qed.

Lemma l1_nonneg y x : 0 <= l1 y x.
Proof.
  induction x as [|a x IH]; simpl; [lra|]; rewrite qadd_eq.
  pose proof (Qabs_nonneg (qmul y a)); lra.
Qed.

Lemma excess_nonneg t v : 0 <= excess t v.
Proof. induction v as [|c v IH]; simpl; [lra|]; qs; pose proof (pos_nonneg (qadd c (-t))); lra. Qed.

Lemma qsgn_abs q : qsgn q * q == Qabs q.
Proof.
  unfold qsgn; destruct (Qlt_le_dec 0 q); [rewrite Qabs_pos by lra; ring|].
  destruct (Qlt_le_dec q 0); [rewrite Qabs_neg by lra; ring|].
  assert (q == 0) as -> by lra; reflexivity.
Qed.

Lemma qsgn_bound q : Qabs (qsgn q) <= 1.
Proof. unfold qsgn; destruct (Qlt_le_dec 0 q); [|destruct (Qlt_le_dec q 0)]; cbv; discriminate. Qed.

Lemma dot_comm w x : dot w x == dot x w.
Proof.
  revert x; induction w as [|a w IH]; intros [|b x]; simpl; try reflexivity.
  qs; rewrite IH; ring.
Qed.

(** ---- the box ---- *)
(** Every weight of [dw] off by at most [e]: the margin drops by at most [e * l1 y x]. *)
Lemma dot_low y dw x e : 0 <= e -> Forall (fun d => Qabs d <= e) dw ->
  - (e * l1 y x) <= y * dot dw x.
Proof.
  intros He Hdw; revert x; induction Hdw as [|d dw Hd Hdw IH]; intros x.
  - pose proof (l1_nonneg y x); assert (E : dot [] x = 0) by (destruct x; reflexivity).
    rewrite E; nra.
  - destruct x as [|b x]; [simpl; lra|]; simpl; qs; specialize (IH x).
    assert (Hb : - (e * Qabs (y * b)) <= y * (d * b)).
    { assert (Habs : Qabs (y * (d * b)) == Qabs d * Qabs (y * b)).
      { rewrite <- Qabs_Qmult; apply Qabs_wd; ring. }
      pose proof (Qabs_nonneg (y * b)).
      assert (Qabs d * Qabs (y * b) <= e * Qabs (y * b)) by nra.
      pose proof (Qle_Qabs (- (y * (d * b)))) as H1; rewrite Qabs_opp, Habs in H1; lra. }
    lra.
Qed.

Lemma length_push e y x : length (push e y x) = length x.
Proof. apply map_length. Qed.

Lemma push_bound e y x : 0 <= e -> Forall (fun d => Qabs d <= e) (push e y x).
Proof.
  intros He; apply Forall_forall; intros d Hd; apply in_map_iff in Hd as [a [<- _]].
  rewrite Qabs_opp, Qabs_Qmult, (Qabs_pos e He).
  pose proof (qsgn_bound (y * a)); pose proof (Qabs_nonneg (qsgn (y * a))); nra.
Qed.

(** The push takes exactly [e * l1 y x]. *)
Lemma dot_push y e x : y * dot (push e y x) x == - (e * l1 y x).
Proof.
  induction x as [|a x IH]; simpl; [ring|]; qs.
  rewrite <- qsgn_abs.
  transitivity (- (e * (qsgn (y * a) * (y * a))) + y * dot (push e y x) x); [ring|].
  rewrite IH; ring.
Qed.

(** The lemma: over every error of at most [e] on each weight, the margin is least at
    the push. *)
Theorem box_worst_at_witness y w dw x e :
  0 <= e -> length dw = length w -> length x = length w ->
  Forall (fun d => Qabs d <= e) dw ->
  y * dot (vadd w (push e y x)) x <= y * dot (vadd w dw) x.
Proof.
  intros He Hl Hx Hdw.
  rewrite (dot_comm (vadd w dw)), (dot_comm (vadd w (push e y x))).
  rewrite !dot_vadd by (try rewrite length_push; lia).
  rewrite !(dot_comm x), Qmult_plus_distr_r, Qmult_plus_distr_r, dot_push.
  pose proof (dot_low y dw x e He Hdw); lra.
Qed.

(** ---- forced terms ---- *)
Definition qn (n : nat) : Q := inject_Z (Z.of_nat n).
Lemma qn_succ n : qn (S n) == qn n + 1.
Proof. unfold qn; rewrite Nat2Z.inj_succ; unfold Z.succ; rewrite inject_Z_plus; reflexivity. Qed.
Lemma qn_le n m : (n <= m)%nat -> qn n <= qn m.
Proof. intros H; unfold qn; rewrite <- Zle_Qle; lia. Qed.
Lemma qn_nonneg n : 0 <= qn n.
Proof. apply (qn_le 0). lia. Qed.

Definition mem (K : list nat) (j : nat) : bool := existsb (Nat.eqb j) K.

(** The forced margin: the margin less the chosen terms. *)
Lemma forcei_margin a y K i w x :
  y * dot w (forcei a K i x) == y * dot w x - chosen K i (terms a y w x).
Proof.
  revert i x; induction w as [|c w IH]; intros i [|b x]; simpl; try ring.
  destruct (existsb (Nat.eqb i) K); qs; rewrite Qmult_plus_distr_r, IH; ring.
Qed.

(** How many positions of [v], from [i], [K] lists. *)
Definition cnt (K : list nat) (i : nat) (v : list Q) : nat :=
  length (filter (mem K) (seq i (length v))).

Lemma chosen_bound K i v t : 0 <= t ->
  chosen K i v <= t * qn (cnt K i v) + excess t v.
Proof.
  unfold cnt; intros Ht; revert i; induction v as [|c v IH]; intros i; simpl.
  - setoid_replace (qn 0) with 0 by reflexivity; lra.
  - rewrite qadd_eq; specialize (IH (S i)); pose proof (pos_ge (qadd c (- t))).
    pose proof (pos_nonneg (qadd c (- t))); pose proof (qadd_eq c (- t)).
    destruct (mem K i) eqn:E; unfold mem in E; rewrite E; simpl.
    + rewrite qadd_eq, qn_succ; nra.
    + rewrite qadd_eq; lra.
Qed.

Lemma cnt_le K i v : (cnt K i v <= length K)%nat.
Proof.
  unfold cnt; apply NoDup_incl_length; [apply NoDup_filter, seq_NoDup|].
  intros j Hj; apply filter_In in Hj as [_ Hj].
  apply existsb_exists in Hj as [j' [Hin Heq]]; apply Nat.eqb_eq in Heq; subst; auto.
Qed.

(** The forced margin is at least the margin less [k t + excess]: any [K] of at most
    [k] positions. *)
Lemma forced_low a y K w x k t : 0 <= t -> (length K <= k)%nat ->
  y * dot w x - (t * qn k + excess t (terms a y w x)) <= y * dot w (force a K x).
Proof.
  intros Ht Hk; unfold force; rewrite forcei_margin.
  pose proof (chosen_bound K 0 (terms a y w x) t Ht).
  pose proof (qn_le _ _ (Nat.le_trans _ _ _ (cnt_le K 0 (terms a y w x)) Hk)).
  nra.
Qed.

(** With [t = 0] the bound holds whatever the number of positions. *)
Lemma forced_low_any a y K w x :
  y * dot w x - excess 0 (terms a y w x) <= y * dot w (force a K x).
Proof.
  unfold force; rewrite forcei_margin.
  pose proof (chosen_bound K 0 (terms a y w x) 0 (Qle_refl 0)); lra.
Qed.

(** At a witness [K*] ([k] distinct positions, every term there at least [t >= 0],
    every other at most [t]) the chosen sum is [k t + excess]. *)
Lemma chosen_at_witness K i v t : 0 <= t ->
  (forall j c, nth_error v j = Some c ->
     (mem K (i + j) = true -> t <= c) /\ (mem K (i + j) = false -> c <= t)) ->
  chosen K i v == t * qn (cnt K i v) + excess t v.
Proof.
  unfold cnt; intros Ht; revert i; induction v as [|c v IH]; intros i H; simpl.
  - setoid_replace (qn 0) with 0 by reflexivity; ring.
  - assert (IH' := IH (S i) ltac:(intros j c' Hj; replace (S i + j)%nat with (i + S j)%nat by lia;
                                  apply (H (S j)); exact Hj)).
    specialize (H O c eq_refl); rewrite Nat.add_0_r in H.
    pose proof (qadd_eq c (- t)) as Hc.
    destruct (mem K i) eqn:E; unfold mem in E; rewrite E; simpl.
    + rewrite pos_of_nonneg by (destruct H as [H _]; auto; lra).
      rewrite qn_succ; qs; rewrite IH'; ring.
    + rewrite pos_of_nonpos by (destruct H as [_ H]; auto; lra).
      qs; rewrite IH'; ring.
Qed.

Lemma cnt_witness K v : NoDup K -> (forall j, In j K -> (j < length v)%nat) ->
  cnt K 0 v = length K.
Proof.
  intros Hd Hr; apply Nat.le_antisymm; [apply cnt_le|].
  unfold cnt; apply NoDup_incl_length; auto.
  intros j Hj; apply filter_In; split.
  - apply in_seq; specialize (Hr j Hj); lia.
  - apply existsb_exists; exists j; split; auto; apply Nat.eqb_refl.
Qed.

(** The lemma: over every list [K] of at most [k] positions forced to [a], the margin
    is least at the witness [K*]. *)
Theorem forced_worst_at_witness a y w x K Ks t :
  0 <= t -> NoDup Ks -> (forall j, In j Ks -> (j < length (terms a y w x))%nat) ->
  (forall j c, nth_error (terms a y w x) j = Some c ->
     (mem Ks j = true -> t <= c) /\ (mem Ks j = false -> c <= t)) ->
  (length K <= length Ks)%nat ->
  y * dot w (force a Ks x) <= y * dot w (force a K x).
Proof.
  intros Ht Hd Hr Hs Hk.
  pose proof (forced_low a y K w x (length Ks) t Ht Hk).
  assert (E := forcei_margin a y Ks 0 w x); fold (force a Ks x) in E; rewrite E.
  assert (C := chosen_at_witness Ks 0 (terms a y w x) t Ht ltac:(intros; apply Hs; auto)).
  rewrite cnt_witness in C by auto; rewrite C; lra.
Qed.

(** ---- both at once: A-units dead and the box on the live ones ---- *)
(** The terms [u_j = y w_j x_j - e |y x_j|]: what a dead A-unit takes from the margin
    less what the box can no longer take through it. *)
Fixpoint uterms (e y : Q) (w x : list Q) : list Q :=
  match w, x with
  | c :: w', b :: x' => qadd (qmul y (qmul c b)) (- qmul e (Qabs (qmul y b)))
                        :: uterms e y w' x'
  | _, _ => []
  end.

Lemma forcei_both e y K i w x : length x = length w ->
  y * dot w (forcei 0 K i x) - e * l1 y (forcei 0 K i x) ==
  (y * dot w x - e * l1 y x) - chosen K i (uterms e y w x).
Proof.
  revert i x; induction w as [|c w IH]; intros i [|b x] Hl; simpl in *; try ring;
    try discriminate.
  injection Hl as Hl.
  assert (IH' := IH (S i) x Hl).
  destruct (existsb (Nat.eqb i) K); qs.
  - setoid_replace (Qabs (y * 0)) with 0 by (rewrite Qmult_0_r; reflexivity).
    rewrite !Qmult_plus_distr_r.
    transitivity (y * (c * 0) - e * 0 + (y * dot w (forcei 0 K (S i) x)
                                          - e * l1 y (forcei 0 K (S i) x))); [ring|].
    rewrite IH'; ring.
  - transitivity (y * (c * b) - e * Qabs (y * b) + (y * dot w (forcei 0 K (S i) x)
                                          - e * l1 y (forcei 0 K (S i) x))); [ring|].
    rewrite IH'; ring.
Qed.

Lemma length_forcei a K i x : length (forcei a K i x) = length x.
Proof. revert i; induction x as [|b x IH]; intros i; simpl; auto. Qed.

(** ---- the checker of a tolerance certificate ---- *)
Definition qlt (a b : Q) : bool := qpos (qadd b (- a)).
Lemma qlt_spec a b : qlt a b = true -> a < b.
Proof. unfold qlt; intros H; apply qpos_spec in H; rewrite qadd_eq in H; lra. Qed.
Lemma qle_spec a b : Qle_bool a b = true -> a <= b.
Proof. apply Qle_bool_iff. Qed.

Definition fits (w : list Q) (f : Q * list Q) : bool := Nat.eqb (len (snd f)) (len w).
Lemma fits_spec w f : fits w f = true -> length (snd f) = length w.
Proof. unfold fits; rewrite !len_eq; apply Nat.eqb_eq. Qed.

(** A figure right by at least [delta * l1 y x], and one that [delta] ties or flips. *)
Definition box_ok (w : list Q) (delta : Q) (f : Q * list Q) : bool :=
  fits w f && qpos (margin w f) && Qle_bool (qmul delta (l1 (fst f) (snd f))) (margin w f).
Definition box_tie (w : list Q) (delta : Q) (f : Q * list Q) : bool :=
  fits w f && Qle_bool (margin w f) (qmul delta (l1 (fst f) (snd f))).

(** No [k] A-units forced to [a] break the figure: its threshold [t]. *)
Definition forced_ok (a : Q) (k : nat) (w : list Q) (t : Q) (f : Q * list Q) : bool :=
  fits w f && Qle_bool 0 t &&
  qlt (qadd (qmul (qn k) t) (excess t (terms a (fst f) w (snd f)))) (margin w f).

(** [k] A-units dead and [delta] on the live ones leave it at least a tie: threshold
    [s] (the strict part is [forced_ok 0]'s). *)
Definition both_ok (k : nat) (w : list Q) (delta s : Q) (f : Q * list Q) : bool :=
  fits w f && Qle_bool 0 s &&
  Qle_bool (qadd (qmul (qn k) s) (excess s (uterms delta (fst f) w (snd f))))
           (qadd (margin w f) (- qmul delta (l1 (fst f) (snd f)))).

Definition at_figure (fs : list (Q * list Q)) (i : nat) (p : Q * list Q -> bool) : bool :=
  match nth_error fs i with Some f => p f | None => false end.

Fixpoint distinct (l : list nat) : bool :=
  match l with [] => true | j :: l' => negb (existsb (Nat.eqb j) l') && distinct l' end.

Lemma distinct_spec l : distinct l = true -> NoDup l.
Proof.
  induction l as [|j l IH]; simpl; intros H; [constructor|].
  apply andb_true_iff in H as [H1 H2]; constructor; auto.
  intros Hin; apply negb_true_iff in H1.
  assert (existsb (Nat.eqb j) l = true) by (apply existsb_exists; exists j; split; auto;
                                            apply Nat.eqb_refl); congruence.
Qed.

(** A witness set: [n] distinct A-units forced to [a] that break the figure [i]. *)
Definition witness_ok (a : Q) (w : list Q) (fs : list (Q * list Q)) (n : nat)
    (K : list nat) (i : nat) : bool :=
  distinct K && forallb (fun j => Nat.ltb j (len w)) K && Nat.eqb (len K) n &&
  at_figure fs i (fun f => fits w f && Qle_bool (margin w (fst f, force a K (snd f))) 0).

Fixpoint all2 {A B} (p : A -> B -> bool) (l : list A) (m : list B) : bool :=
  match l, m with
  | [], [] => true
  | a :: l', b :: m' => p a b && all2 p l' m'
  | _, _ => false
  end.

Lemma all2_in {A B} (p : A -> B -> bool) l m b :
  all2 p l m = true -> In b m -> exists a, p a b = true.
Proof.
  revert m; induction l as [|a l IH]; intros [|b' m] H Hin; simpl in *; try contradiction;
    try discriminate.
  apply andb_true_iff in H as [H1 H2]; destruct Hin as [<-|Hin]; eauto.
Qed.

(** A line of the table: [k] dead A-units, the tolerance [delta] with them, the
    figures' thresholds, and the witness: a figure and at most [k] A-units whose death
    leaves it a tie (or wrong) at [delta]. *)
Definition table_ok (w : list Q) (fs : list (Q * list Q)) (k : nat)
    (line : Q * list Q * nat * list nat) : bool :=
  let '(delta, ss, i, K) := line in
  Qle_bool 0 delta && all2 (both_ok k w delta) ss fs && Nat.leb (len K) k &&
  at_figure fs i (fun f => fits w f &&
    Qle_bool (margin w (fst f, force 0 K (snd f)))
             (qmul delta (l1 (fst f) (force 0 K (snd f))))).

Fixpoint table_from (w : list Q) (fs : list (Q * list Q)) (k : nat)
    (lines : list (Q * list Q * nat * list nat)) : bool :=
  match lines with
  | [] => true
  | line :: rest => table_ok w fs k line && table_from w fs (S k) rest
  end.

(** One R-unit's certificate: its weights (the potentiometers it has), its figures
    [(y, x)] over them, and its claims with their evidence. *)
Record unit_cert := UnitCert {
  weights : list Q;
  figures : list (Q * list Q);
  tolerance : Q;
  tolerance_figure : nat;
  dead : nat;
  dead_figure : nat;
  dead_units : list nat;
  dead_thresholds : list Q;
  stuck : option (nat * nat * list nat * list Q);  (** k, figure, units, thresholds *)
  table : list (Q * list Q * nat * list nat)
}.

Definition check_stuck (w : list Q) (fs : list (Q * list Q))
    (s : option (nat * nat * list nat * list Q)) : bool :=
  match s with
  | Some (k, i, K, ts) => all2 (forced_ok 1 k w) ts fs && witness_ok 1 w fs (S k) K i
  | None => forallb (forced_ok 1 O w 0) fs
  end.

Definition check_unit (c : unit_cert) : bool :=
  let w := weights c in
  let fs := figures c in
  Qle_bool 0 (tolerance c) && forallb (box_ok w (tolerance c)) fs &&
  at_figure fs (tolerance_figure c) (box_tie w (tolerance c)) &&
  all2 (forced_ok 0 (dead c) w) (dead_thresholds c) fs &&
  witness_ok 0 w fs (S (dead c)) (dead_units c) (dead_figure c) &&
  check_stuck w fs (stuck c) &&
  Nat.eqb (len (table c)) (S (dead c)) && table_from w fs O (table c).

Definition check_units (cs : list unit_cert) : bool := forallb check_unit cs.

(** ---- the checker is sound ---- *)
Lemma dot_vadd_l y w dw x : length dw = length w ->
  y * dot (vadd w dw) x == y * dot w x + y * dot dw x.
Proof.
  intros Hl; rewrite dot_comm, dot_vadd by auto; rewrite !(dot_comm x); ring.
Qed.

Lemma margin_eq w y x : margin w (y, x) == y * dot w x.
Proof. unfold margin; simpl; apply qmul_eq. Qed.

(** What each check promises of a figure. *)
Lemma box_ok_sound w delta y x : box_ok w delta (y, x) = true ->
  forall e dw, 0 <= e < delta -> length dw = length w ->
  Forall (fun d => Qabs d <= e) dw -> 0 < y * dot (vadd w dw) x.
Proof.
  unfold box_ok; simpl; intros H e dw He Hl Hdw.
  apply andb_true_iff in H as [H H2]; apply andb_true_iff in H as [_ H1].
  apply qpos_spec in H1; apply qle_spec in H2; rewrite qmul_eq in H2.
  rewrite margin_eq in H1, H2; rewrite dot_vadd_l by auto.
  pose proof (dot_low y dw x e (proj1 He) Hdw); pose proof (l1_nonneg y x).
  destruct (Qlt_le_dec 0 (l1 y x)); nra.
Qed.

Lemma box_tie_sound w delta y x : 0 <= delta -> box_tie w delta (y, x) = true ->
  length (push delta y x) = length w /\ Forall (fun d => Qabs d <= delta) (push delta y x) /\
  y * dot (vadd w (push delta y x)) x <= 0.
Proof.
  unfold box_tie; simpl; intros Hd H; apply andb_true_iff in H as [Hf H].
  apply fits_spec in Hf; simpl in Hf; apply qle_spec in H; rewrite qmul_eq, margin_eq in H.
  split; [rewrite length_push; auto|split; [apply push_bound; auto|]].
  rewrite dot_vadd_l by (rewrite length_push; auto); rewrite dot_push; lra.
Qed.

Lemma forced_ok_sound a k w t y x : forced_ok a k w t (y, x) = true ->
  forall K, (length K <= k)%nat -> 0 < y * dot w (force a K x).
Proof.
  unfold forced_ok; simpl; intros H K Hk.
  apply andb_true_iff in H as [H H2]; apply andb_true_iff in H as [_ H1].
  apply qle_spec in H1; apply qlt_spec in H2; rewrite margin_eq, qadd_eq, qmul_eq in H2.
  pose proof (forced_low a y K w x k t H1 Hk); lra.
Qed.

Lemma forced_any_sound a w y x : forced_ok a O w 0 (y, x) = true ->
  forall K, 0 < y * dot w (force a K x).
Proof.
  unfold forced_ok; simpl; intros H K.
  apply andb_true_iff in H as [_ H2]; apply qlt_spec in H2.
  rewrite margin_eq, qadd_eq, qmul_eq in H2.
  pose proof (forced_low_any a y K w x).
  setoid_replace (qn 0 * 0) with 0 in H2 by ring; lra.
Qed.

Lemma witness_ok_sound a w fs n K i : witness_ok a w fs n K i = true ->
  NoDup K /\ (forall j, In j K -> (j < length w)%nat) /\ length K = n /\
  exists y x, nth_error fs i = Some (y, x) /\ length x = length w /\
              y * dot w (force a K x) <= 0.
Proof.
  unfold witness_ok, at_figure; intros H.
  apply andb_true_iff in H as [H H4]; apply andb_true_iff in H as [H H3];
    apply andb_true_iff in H as [H1 H2].
  split; [apply distinct_spec; auto|split; [|split]].
  - intros j Hj; rewrite forallb_forall in H2; specialize (H2 j Hj).
    apply Nat.ltb_lt in H2; rewrite len_eq in H2; auto.
  - apply Nat.eqb_eq in H3; rewrite len_eq in H3; auto.
  - destruct (nth_error fs i) as [[y x]|]; [|discriminate].
    apply andb_true_iff in H4 as [Hf H4]; apply fits_spec in Hf; simpl in *.
    apply qle_spec in H4; rewrite margin_eq in H4; eauto.
Qed.

Lemma both_sound k kd w delta s t y x :
  forced_ok 0 kd w t (y, x) = true -> (k <= kd)%nat -> both_ok k w delta s (y, x) = true ->
  forall K, (length K <= k)%nat -> forall e dw, 0 <= e < delta -> length dw = length w ->
  Forall (fun d => Qabs d <= e) dw -> 0 < y * dot (vadd w dw) (force 0 K x).
Proof.
  intros Hdead Hk H K HK e dw He Hl Hdw.
  assert (Hm := forced_ok_sound _ _ _ _ _ _ Hdead K ltac:(lia)).
  unfold both_ok in H; simpl in H.
  apply andb_true_iff in H as [H H2]; apply andb_true_iff in H as [Hf H1].
  apply fits_spec in Hf; simpl in Hf; apply qle_spec in H1; apply qle_spec in H2.
  rewrite margin_eq, !qadd_eq, !qmul_eq in H2.
  pose proof (forcei_both delta y K O w x Hf) as Hb; fold (force 0 K x) in Hb.
  pose proof (chosen_bound K O (uterms delta y w x) s H1).
  pose proof (qn_le _ _ (Nat.le_trans _ _ _ (cnt_le K O (uterms delta y w x)) HK)).
  rewrite dot_vadd_l by auto.
  pose proof (dot_low y dw (force 0 K x) e (proj1 He) Hdw).
  pose proof (l1_nonneg y (force 0 K x)).
  assert (Hge : 0 <= y * dot w (force 0 K x) - delta * l1 y (force 0 K x)) by nra.
  destruct (Qlt_le_dec 0 (l1 y (force 0 K x))); nra.
Qed.

Ltac split_checks H :=
  repeat match type of H with
         | (_ && _) = true => let H1 := fresh "C" in apply andb_true_iff in H as [H H1]
         end.

(** The tolerance is exact: every error below it on every weight keeps every figure
    right, and at it the push makes the witness figure tie or flip. *)
Theorem tolerance_sound c : check_unit c = true ->
  (forall e dw, 0 <= e < tolerance c -> length dw = length (weights c) ->
     Forall (fun d => Qabs d <= e) dw ->
     forall y x, In (y, x) (figures c) -> 0 < y * dot (vadd (weights c) dw) x) /\
  (exists y x, nth_error (figures c) (tolerance_figure c) = Some (y, x) /\
     let dw := push (tolerance c) y x in
     length dw = length (weights c) /\ Forall (fun d => Qabs d <= tolerance c) dw /\
     y * dot (vadd (weights c) dw) x <= 0).
Proof.
  unfold check_unit; intros H; split_checks H.
  assert (H0 : 0 <= tolerance c) by (apply qle_spec; auto).
  split.
  - intros e dw He Hl Hdw y x Hin; rewrite forallb_forall in *.
    eapply box_ok_sound; eauto.
  - unfold at_figure in *; destruct (nth_error (figures c) (tolerance_figure c))
      as [[y x]|]; [|discriminate].
    exists y, x; split; auto; apply box_tie_sound; auto.
Qed.

(** Dead A-units: any [dead] of them (as positions of the weights) keep every figure
    right; the witness set, [dead + 1] distinct ones, breaks its figure. *)
Theorem dead_sound c : check_unit c = true ->
  (forall K, (length K <= dead c)%nat ->
     forall y x, In (y, x) (figures c) -> 0 < y * dot (weights c) (force 0 K x)) /\
  NoDup (dead_units c) /\ (forall j, In j (dead_units c) -> (j < length (weights c))%nat) /\
  length (dead_units c) = S (dead c) /\
  exists y x, nth_error (figures c) (dead_figure c) = Some (y, x) /\
    length x = length (weights c) /\ y * dot (weights c) (force 0 (dead_units c) x) <= 0.
Proof.
  unfold check_unit; intros H; split_checks H.
  split; [|eapply witness_ok_sound; eauto].
  intros K HK y x Hin; destruct (all2_in _ _ _ _ C3 Hin) as [t Ht].
  eapply forced_ok_sound; eauto.
Qed.

(** Stuck at 1: any [k] of them keep every figure right and the witness set breaks
    its figure, or (no number given) any number of them keep every figure right. *)
Theorem stuck_sound c : check_unit c = true ->
  match stuck c with
  | Some (k, i, Ks, _) =>
    (forall K, (length K <= k)%nat ->
       forall y x, In (y, x) (figures c) -> 0 < y * dot (weights c) (force 1 K x)) /\
    NoDup Ks /\ (forall j, In j Ks -> (j < length (weights c))%nat) /\
    length Ks = S k /\
    exists y x, nth_error (figures c) i = Some (y, x) /\
      length x = length (weights c) /\ y * dot (weights c) (force 1 Ks x) <= 0
  | None => forall K y x, In (y, x) (figures c) -> 0 < y * dot (weights c) (force 1 K x)
  end.
Proof.
  unfold check_unit, check_stuck; intros H; split_checks H.
  destruct (stuck c) as [[[[k i] Ks] ts]|].
  - apply andb_true_iff in C1 as [Ha Hw]; split; [|eapply witness_ok_sound; eauto].
    intros K HK y x Hin; destruct (all2_in _ _ _ _ Ha Hin) as [t Ht].
    eapply forced_ok_sound; eauto.
  - intros K y x Hin; rewrite forallb_forall in C1.
    eapply forced_any_sound; eauto.
Qed.

Lemma table_from_nth w fs k0 lines : table_from w fs k0 lines = true ->
  forall k line, nth_error lines k = Some line -> table_ok w fs (k0 + k) line = true.
Proof.
  revert k0; induction lines as [|l lines IH]; intros k0 H [|k] line Hn; simpl in *;
    try discriminate; apply andb_true_iff in H as [H1 H2].
  - injection Hn as <-; rewrite Nat.add_0_r; auto.
  - rewrite <- Nat.add_succ_comm; apply IH; auto.
Qed.

(** The table: with any [k] A-units dead, every error below its [delta] on the live
    ones keeps every figure right; at [delta], the push on the witness figure with its
    witness A-units dead ties or flips it. *)
Theorem table_sound c : check_unit c = true ->
  forall k delta ss i Ks, nth_error (table c) k = Some (delta, ss, i, Ks) ->
  (forall K, (length K <= k)%nat -> forall e dw, 0 <= e < delta ->
     length dw = length (weights c) -> Forall (fun d => Qabs d <= e) dw ->
     forall y x, In (y, x) (figures c) -> 0 < y * dot (vadd (weights c) dw) (force 0 K x)) /\
  (length Ks <= k)%nat /\
  exists y x, nth_error (figures c) i = Some (y, x) /\
    let dw := push delta y (force 0 Ks x) in
    length dw = length (weights c) /\ Forall (fun d => Qabs d <= delta) dw /\
    y * dot (vadd (weights c) dw) (force 0 Ks x) <= 0.
Proof.
  unfold check_unit; intros H k delta ss i Ks Hn; split_checks H.
  assert (Hk : (k < S (dead c))%nat).
  { apply Nat.eqb_eq in C0; rewrite len_eq in C0; rewrite <- C0.
    apply nth_error_Some; congruence. }
  assert (Ht := table_from_nth _ _ _ _ C k _ Hn); simpl in Ht.
  apply andb_true_iff in Ht as [Ht Hat]; apply andb_true_iff in Ht as [Ht Hle];
    apply andb_true_iff in Ht as [Hd0 Hall].
  assert (Hd : 0 <= delta) by (apply qle_spec; auto).
  split; [|split; [apply Nat.leb_le in Hle; rewrite len_eq in Hle; auto|]].
  - intros K HK e dw He Hl Hdw y x Hin.
    destruct (all2_in _ _ _ _ C3 Hin) as [t Hdead].
    destruct (all2_in _ _ _ _ Hall Hin) as [s Hboth].
    exact (both_sound k (dead c) (weights c) delta s t y x Hdead ltac:(lia) Hboth
             K HK e dw He Hl Hdw).
  - unfold at_figure in Hat; destruct (nth_error (figures c) i) as [[y x]|];
      [|discriminate].
    exists y, x; split; auto.
    apply andb_true_iff in Hat as [Hf Hq]; apply fits_spec in Hf; simpl in *.
    apply qle_spec in Hq; rewrite margin_eq, qmul_eq in Hq.
    assert (Hl : length (force 0 Ks x) = length (weights c))
      by (unfold force; rewrite length_forcei; auto).
    split; [rewrite length_push; auto|split; [apply push_bound; auto|]].
    rewrite dot_vadd_l by (rewrite length_push; auto); rewrite dot_push; lra.
Qed.

(** A certificate of every R-unit: each of them. *)
Theorem check_units_sound cs c : check_units cs = true -> In c cs -> check_unit c = true.
Proof. unfold check_units; rewrite forallb_forall; auto. Qed.
