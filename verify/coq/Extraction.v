(** Extraction of the checker to OCaml: integers as Zarith's, indices as OCaml ints. *)
From Markone Require Import Checker CycleCheck Tolerance.
Require Import ZArith ExtrOcamlBasic ExtrOcamlNatInt ExtrOcamlZBigInt.
(** [Qred] divides by a gcd: Zarith's (GMP's), as Zarith already does [+], [*] and the
    comparisons (ExtrOcamlZBigInt). Coq's [Z.ggcd] is a binary gcd that recurses once
    per bit: quadratic, and deeper than OCaml's stack for numbers of 10^5 digits. Its
    meaning, kept here: [(g, (a / g, b / g))] with [g = gcd a b >= 0], and
    [(0, (0, 0))] for [a = b = 0]. *)
Extract Constant Z.ggcd =>
  "(fun a b -> let g = Big_int_Z.gcd_big_int a b in
    if Big_int_Z.sign_big_int g = 0 then (g, (g, g))
    else (g, (Big_int_Z.div_big_int a g, Big_int_Z.div_big_int b g)))".
(** [qadd_lcm] divides by the gcd of two denominators: Zarith's too ([>= 0], and
    [0] for [0, 0], as Coq's [Z.gcd]). *)
Extract Constant Z.gcd => "Big_int_Z.gcd_big_int".
Extraction "checker.ml" check Witness Certificate check_cycle check_units UnitCert.
