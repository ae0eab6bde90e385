(* The command line around the extracted checker (checker.ml, from Checker.v).
   Reads a certificate in markone's text form (written by verify.coq.text) and prints
   VALID (exit 0) or INVALID (exit 1); input it cannot read: a message, exit 2.
   This file only parses; the decision is Checker.check's, proved in Checker.v.

     markone-coq-certificate 1
     intercept 0|1
     examples N D
     Y X_1 ... X_D                      (N lines; numbers are P or P/Q)
     witness M W_1 ... W_M              or
     certificate K  I_1 L_1 ... I_K L_K *)

exception Bad of string

let bad fmt = Printf.ksprintf (fun s -> raise (Bad s)) fmt

let token ic = Scanf.bscanf ic " %s" (fun s -> if s = "" then bad "the file ends early" else s)

let expect ic word = let t = token ic in if t <> word then bad "expected %S, read %S" word t

let count ic what =
  let t = token ic in
  match int_of_string_opt t with
  | Some k when k >= 0 -> k
  | _ -> bad "%s: %S is not a count" what t

let integer what s =
  try Big_int_Z.big_int_of_string s with _ -> bad "%s: %S is not an integer" what s

let rational ic what : Checker.q =
  let s = token ic in
  match String.index_opt s '/' with
  | None -> { Checker.qnum = integer what s; qden = Big_int_Z.unit_big_int }
  | Some k ->
    let p = integer what (String.sub s 0 k)
    and q = integer what (String.sub s (k + 1) (String.length s - k - 1)) in
    if Big_int_Z.sign_big_int q <= 0 then bad "%s: %S has a denominator <= 0" what s;
    { Checker.qnum = p; qden = q }

let rec read_list k f = if k = 0 then [] else let x = f () in x :: read_list (k - 1) f

let read ic =
  expect ic "markone-coq-certificate"; expect ic "1";
  expect ic "intercept";
  let intercept = match token ic with "0" -> false | "1" -> true
                                      | t -> bad "intercept: %S is not 0 or 1" t in
  expect ic "examples";
  let n = count ic "examples" in
  let d = count ic "features" in
  let data = List.init n (fun i ->
      let what = Printf.sprintf "example %d" i in
      let y = rational ic what in
      (y, read_list d (fun () -> rational ic what))) in
  let proof = match token ic with
    | "witness" ->
      let m = count ic "witness" in
      Checker.Witness (read_list m (fun () -> rational ic "witness"))
    | "certificate" ->
      let k = count ic "certificate" in
      Checker.Certificate (read_list k (fun () ->
          let i = count ic "certificate index" in (i, rational ic "certificate weight")))
    | t -> bad "expected \"witness\" or \"certificate\", read %S" t in
  (match Scanf.bscanf ic " %s" (fun s -> s) with
   | "" -> () | t -> bad "unexpected %S after the proof" t);
  (intercept, data, proof)

let () =
  let path = if Array.length Sys.argv = 2 then Sys.argv.(1)
    else (prerr_endline "usage: markone_coq_check CERT.txt"; exit 2) in
  match (try Ok (read (Scanf.Scanning.from_file path)) with
      | Bad msg -> Error msg
      | Sys_error msg -> Error msg
      | Scanf.Scan_failure msg | Failure msg -> Error msg) with
  | Error msg -> prerr_endline ("unreadable: " ^ msg); exit 2
  | Ok (intercept, data, proof) ->
    if Checker.check intercept data proof then (print_endline "VALID"; exit 0)
    else (print_endline "INVALID"; exit 1)
