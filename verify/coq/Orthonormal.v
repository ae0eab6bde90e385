(** The orthonormal lower bound: on pairwise orthogonal examples, each shown once, the
    perceptron that counts a zero score as a mistake errs on every one; with [m]
    orthonormal examples that is exactly [m] mistakes, Novikoff's bound [(R/gamma)^2]
    for [R = 1], [gamma = 1/sqrt m]: the bound is tight. *)
From Markone Require Import Perceptron.
Local Open Scope ring_scope.

Section Orthonormal.

Variables (F : realFieldType) (n : nat).
Notation vec := 'rV[F]_n.

Lemma run_orthogonal (s : seq vec) (w : vec) :
  pairwise (fun a b => dot a b == 0) s -> (forall z, z \in s -> dot w z = 0) ->
  (run perceptron_update w s).2 = size s.
Proof.
elim: s w => [|z s IH] w //= /andP [/allP Hz Hs] Hw.
rewrite /mistake Hw ?mem_head // lexx /=; congr _.+1; apply: IH => // z' Hz'.
by rewrite /perceptron_update dotDl Hw ?inE ?Hz' ?orbT // add0r; apply/eqP/Hz.
Qed.

Theorem orthogonal_mistakes (s : seq vec) :
  pairwise (fun a b => dot a b == 0) s -> mistakes perceptron_update s = size s.
Proof. by move=> H; apply: run_orthogonal => // z _; rewrite dot0l. Qed.

End Orthonormal.
