(** Extraction of the checker to OCaml: integers as Zarith's, indices as OCaml ints. *)
From Markone Require Import Checker.
Require Import ExtrOcamlBasic ExtrOcamlNatInt ExtrOcamlZBigInt.
Extraction "checker.ml" check Witness Certificate.
