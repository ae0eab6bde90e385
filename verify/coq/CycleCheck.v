(** The checker of a cycling certificate, and what its [true] proves: the perceptron
    on the checker's signed rows [rows intercept data], presented in the cyclic order
    from zero, is eventually periodic with the stated period, makes a mistake in every
    period (infinitely many), so no bound on its mistakes holds for that order.

    A certificate states the transient, [a] whole passes and then [r] presentations
    (the cycle starts at example [r]), the period, [q] passes over the data rotated to
    start at example [r], the updates of the transient ([tu]), and the example of each
    update on the cycle ([ups]). The checker runs it again in exact rationals. *)
From Markone Require Import Checker CheckerRuns.
Require Import QArith List Bool Lia.
Import ListNotations.
Local Open Scope Q_scope.

(** Weights equal as written (the checker's weights are in lowest terms). *)
Definition qeqb (x y : Q) : bool := Z.eqb (Qnum x) (Qnum y) && Pos.eqb (Qden x) (Qden y).
Fixpoint veqb (a b : list Q) : bool :=
  match a, b with
  | [], [] => true
  | x :: a', y :: b' => if qeqb x y then veqb a' b' else false
  | _, _ => false
  end.
Fixpoint neqb (a b : list nat) : bool :=
  match a, b with
  | [], [] => true
  | x :: a', y :: b' => if Nat.eqb x y then neqb a' b' else false
  | _, _ => false
  end.

Lemma veqb_eq a b : veqb a b = true -> a = b.
Proof.
  revert b; induction a as [|[x1 x2] a IH]; intros [|[y1 y2] b]; simpl; try discriminate;
    auto.
  unfold qeqb; simpl; destruct (Z.eqb x1 y1) eqn:E1, (Pos.eqb x2 y2) eqn:E2; simpl;
    try discriminate.
  apply Z.eqb_eq in E1; apply Pos.eqb_eq in E2; subst; intros H; f_equal; auto.
Qed.

(** The state of a run: weights, the number of the example presented next, the
    mistakes, and the numbers of the examples updated on (the last first). *)
Record state := St { sw : list Q; spos : nat; smis : nat; sups : list nat }.

Definition next (n pos : nat) : nat := if Nat.eqb (S pos) n then O else S pos.

(** At most [k] presentations of the rows [s], in turn (tail-recursive). *)
Fixpoint steps (n k : nat) (st : state) (s : list (list Q)) : state :=
  match k, s with
  | S k', z :: s' =>
    if qpos (dot_from 0 (sw st) z)
    then steps n k' (St (sw st) (next n (spos st)) (smis st) (sups st)) s'
    else steps n k' (St (vadd' (sw st) z) (next n (spos st)) (S (smis st))
                        (spos st :: sups st)) s'
  | _, _ => st
  end.

(** The data rotated to start at example [r], a pass over it, and [p] passes. *)
Definition rot (r : nat) (zs : list (list Q)) : list (list Q) := skipn r zs ++ firstn r zs.
Definition pass (n : nat) (zs : list (list Q)) (r : nat) (st : state) : state :=
  steps n r (steps n n st (skipn r zs)) zs.
Fixpoint passes (n : nat) (zs : list (list Q)) (r p : nat) (st : state) : state :=
  match p with O => st | S p' => passes n zs r p' (pass n zs r st) end.

(** [p] passes; [early] becomes true when a pass but the last ends on [w0]. *)
Fixpoint tour (n : nat) (zs : list (list Q)) (r : nat) (w0 : list Q) (p : nat)
  (st : state) (early : bool) : state * bool :=
  match p with
  | O => (st, early)
  | S p' => let st' := pass n zs r st in
    tour n zs r w0 p' st' (if early then true else
                             if Nat.eqb p' 0 then false else veqb (sw st') w0)
  end.

(** The state after [a] passes and [r] presentations, from zero. *)
Definition start (zs : list (list Q)) : state := St (zeros (width zs) []) O O [].
Definition after (n : nat) (zs : list (list Q)) (a r : nat) : state :=
  steps n r (passes n zs 0 a (start zs)) zs.

(** The transient is the least: the state one presentation earlier does not come
    back [q] passes later. *)
Definition least_transient (n : nat) (zs : list (list Q)) (a r q : nat) : bool :=
  match a, r with
  | O, O => true
  | _, _ =>
    let a' := match r with O => pred a | _ => a end in
    let r' := match r with O => pred n | S r' => r' end in
    let pre := after n zs a' r' in
    negb (veqb (sw (passes n zs r' q (St (sw pre) r' O []))) (sw pre))
  end.

Definition check_cycle (intercept : bool) (data : list (Q * list Q))
  (a r q tu : nat) (ups : list nat) : bool :=
  let zs := rmap (signed intercept) data in
  let n := len zs in
  let pre := after n zs a r in
  let '(fin, early) := tour n zs r (sw pre) q (St (sw pre) r O []) false in
  labels_pm1 data && Nat.ltb r n && Nat.ltb 0 q && Nat.eqb (smis pre) tu &&
  veqb (sw fin) (sw pre) && Nat.ltb 0 (smis fin) && negb early &&
  neqb (rev' (sups fin)) ups && least_transient n zs a r q.

(** ---- the runs, as [qrun] ---- *)
Lemma qpos_compat a b : a == b -> qpos a = qpos b.
Proof.
  intros H; destruct (qpos a) eqn:Ea, (qpos b) eqn:Eb; auto.
  - apply qpos_spec in Ea; rewrite H in Ea; apply qpos_spec in Ea; congruence.
  - apply qpos_spec in Eb; rewrite <- H in Eb; apply qpos_spec in Eb; congruence.
Qed.

Lemma steps_qrun n k st s :
  sw (steps n k st s) = fst (qrun (sw st) (firstn k s)) /\
  smis (steps n k st s) = (smis st + snd (qrun (sw st) (firstn k s)))%nat.
Proof.
  revert k st; induction s as [|z s IH]; intros [|k] st; simpl;
    try (rewrite Nat.add_0_r; split; reflexivity).
  rewrite (qpos_compat (dot_from 0 (sw st) z) (dot (sw st) z))
    by (rewrite dot_from_eq; ring).
  destruct (qpos (dot (sw st) z)).
  - exact (IH k (St (sw st) (next n (spos st)) (smis st) (sups st))).
  - destruct (IH k (St (vadd' (sw st) z) (next n (spos st)) (S (smis st))
                      (spos st :: sups st))) as [H1 H2]; simpl in *.
    rewrite vadd'_eq in *; split; [exact H1 | rewrite H2; lia].
Qed.

Lemma pass_qrun n zs r st : (length zs <= n)%nat ->
  sw (pass n zs r st) = fst (qrun (sw st) (rot r zs)) /\
  smis (pass n zs r st) = (smis st + snd (qrun (sw st) (rot r zs)))%nat.
Proof.
  intros Hn; unfold pass, rot.
  destruct (steps_qrun n n st (skipn r zs)) as [H1 H2].
  rewrite firstn_all2 in H1, H2 by (rewrite skipn_length; lia).
  destruct (steps_qrun n r (steps n n st (skipn r zs)) zs) as [H3 H4].
  rewrite H3, H4, H1, H2, qrun_app; simpl; split; [reflexivity | lia].
Qed.

Lemma passes_qrun n zs r p st : (length zs <= n)%nat ->
  sw (passes n zs r p st) = fst (qrun (sw st) (concat (repeat (rot r zs) p))) /\
  smis (passes n zs r p st) =
    (smis st + snd (qrun (sw st) (concat (repeat (rot r zs) p))))%nat.
Proof.
  intros Hn; revert st; induction p as [|p IH]; intros st; simpl.
  - rewrite Nat.add_0_r; split; reflexivity.
  - destruct (pass_qrun n zs r st Hn) as [H1 H2].
    destruct (IH (pass n zs r st)) as [H3 H4].
    rewrite H3, H4, H1, H2, qrun_app; simpl; split; [reflexivity | lia].
Qed.

Lemma tour_passes n zs r w0 p st e : fst (tour n zs r w0 p st e) = passes n zs r p st.
Proof. revert st e; induction p as [|p IH]; intros st e; simpl; auto. Qed.

Lemma rot_0 zs : rot 0 zs = zs.
Proof. unfold rot; simpl; apply app_nil_r. Qed.

(** ---- what the checker's [true] proves ---- *)
Lemma qrun_periods w p m k : qrun w p = (w, m) ->
  qrun w (concat (repeat p k)) = (w, (k * m)%nat).
Proof.
  intros H; induction k as [|k IH]; simpl; [reflexivity|].
  rewrite qrun_app, H; simpl; rewrite IH; simpl; f_equal; lia.
Qed.

Lemma check_cycle_run intercept data a r q tu ups :
  check_cycle intercept data a r q tu ups = true ->
  let zs := rows intercept data in
  let w0 := repeat 0 (width zs) in
  let pre := concat (repeat zs a) ++ firstn r zs in
  let per := concat (repeat (rot r zs) q) in
  (r < length zs)%nat /\
  qrun (fst (qrun w0 pre)) per = (fst (qrun w0 pre), snd (qrun (fst (qrun w0 pre)) per)) /\
  (0 < snd (qrun (fst (qrun w0 pre)) per))%nat.
Proof.
  unfold check_cycle, rows; rewrite rmap_eq, len_eq.
  set (zs := map (signed intercept) data); set (n := length zs).
  destruct (tour n zs r (sw (after n zs a r)) q (St (sw (after n zs a r)) r 0 []) false)
    as [fin early] eqn:Et.
  intros H; apply andb_true_iff in H as [H _]; apply andb_true_iff in H as [H _];
  apply andb_true_iff in H as [H _]; apply andb_true_iff in H as [H Hmis];
  apply andb_true_iff in H as [H Heq]; apply andb_true_iff in H as [H _];
  apply andb_true_iff in H as [H _]; apply andb_true_iff in H as [_ Hr].
  assert (Hfin : fin = passes n zs r q (St (sw (after n zs a r)) r 0 []))
    by (rewrite <- (tour_passes n zs r (sw (after n zs a r)) q _ false), Et; reflexivity).
  destruct (passes_qrun n zs r q (St (sw (after n zs a r)) r 0 []) (le_n _)) as [P1 P2].
  destruct (steps_qrun n r (passes n zs 0 a (start zs)) zs) as [S1 _].
  destruct (passes_qrun n zs 0 a (start zs) (le_n _)) as [A1 _].
  assert (Hpre : sw (after n zs a r) = fst (qrun (repeat 0 (width zs))
                                         (concat (repeat zs a) ++ firstn r zs))).
  { unfold after; rewrite S1, A1, qrun_app, rot_0; simpl.
    rewrite zeros_eq, app_nil_r; reflexivity. }
  simpl in P1, P2; rewrite <- Hfin, <- Hpre in *.
  split; [apply Nat.ltb_lt; exact Hr|].
  apply veqb_eq in Heq; apply Nat.ltb_lt in Hmis.
  split; [|lia].
  rewrite <- Heq at 2; rewrite P1; destruct (qrun _ _); reflexivity.
Qed.

(** On an accepted certificate, with [pre] the transient ([a] passes and [r]
    presentations) and [per] the period ([q] passes from example [r]): every period
    comes back to the weights it starts from, whatever follows ([s]), and adds the same
    number of mistakes, at least one. *)
Theorem check_cycle_periodic intercept data a r q tu ups :
  check_cycle intercept data a r q tu ups = true ->
  let zs := rows intercept data in
  let w0 := repeat 0 (width zs) in
  let pre := concat (repeat zs a) ++ firstn r zs in
  let per := concat (repeat (rot r zs) q) in
  (0 < snd (qrun (fst (qrun w0 pre)) per))%nat /\
  forall k s, qrun w0 (pre ++ concat (repeat per k) ++ s) =
    (fst (qrun w0 (pre ++ s)),
     snd (qrun w0 pre) + k * snd (qrun (fst (qrun w0 pre)) per) +
     snd (qrun (fst (qrun w0 pre)) s))%nat.
Proof.
  intros H zs w0 pre per; destruct (check_cycle_run _ _ _ _ _ _ _ H) as [_ [Hper Hm]].
  fold zs w0 pre per in Hper, Hm; split; [exact Hm|].
  intros k s; rewrite !qrun_app, (qrun_periods _ _ _ k Hper); simpl; f_equal; lia.
Qed.

Lemma rot_passes r zs p :
  firstn r zs ++ concat (repeat (rot r zs) p) ++ skipn r zs = concat (repeat zs (S p)).
Proof.
  induction p as [|p IH]; simpl.
  - rewrite !app_nil_r; apply firstn_skipn.
  - unfold rot; rewrite <- !app_assoc, (app_assoc (firstn r zs) (skipn r zs)),
      firstn_skipn; f_equal; fold (rot r zs); exact IH.
Qed.

Lemma concat_repeat_add (l : list (list Q)) i j :
  concat (repeat l (i + j)) = concat (repeat l i) ++ concat (repeat l j).
Proof. induction i as [|i IH]; simpl; [reflexivity | rewrite IH, app_assoc; reflexivity]. Qed.

Lemma concat_repeat_mul (l : list (list Q)) k q :
  concat (repeat l (k * q)) = concat (repeat (concat (repeat l q)) k).
Proof. induction k as [|k IH]; simpl; [reflexivity | rewrite concat_repeat_add, IH; reflexivity]. Qed.

(** In the cyclic order itself ([p] passes over the data as they are, from zero): at
    least [k] mistakes in [a + k q + 1] passes, so infinitely many. *)
Theorem check_cycle_diverges intercept data a r q tu ups :
  check_cycle intercept data a r q tu ups = true ->
  forall k, Nat.le k (snd (qrun (repeat 0 (width (rows intercept data)))
                              (concat (repeat (rows intercept data) (S (a + k * q)))))).
Proof.
  intros H k; destruct (check_cycle_periodic _ _ _ _ _ _ _ H) as [Hm Hk].
  set (zs := rows intercept data) in *.
  rewrite <- Nat.add_succ_r, concat_repeat_add, <- (rot_passes r zs (k * q)),
    concat_repeat_mul, app_assoc.
  rewrite (Hk k (skipn r zs)).
  assert (k <= k * snd (qrun (fst (qrun (repeat 0%Q (width zs))
    (concat (repeat zs a) ++ firstn r zs))) (concat (repeat (rot r zs) q))))%nat
    by (destruct (snd _); [lia | nia]).
  simpl; lia.
Qed.

(** So no bound on the mistakes holds for the cyclic order from zero: not Novikoff's,
    nor any other. *)
Corollary check_cycle_unbounded intercept data a r q tu ups :
  check_cycle intercept data a r q tu ups = true ->
  ~ exists B, forall p, Nat.le (snd (qrun (repeat 0 (width (rows intercept data)))
                                         (concat (repeat (rows intercept data) p)))) B.
Proof.
  intros H [B HB]; pose proof (check_cycle_diverges _ _ _ _ _ _ _ H (S B)) as Hd.
  specialize (HB (S (a + S B * q))); lia.
Qed.
