(* The command line around the extracted checker (checker.ml, from Checker.v).
   Reads a certificate in markone's text form (written by verify.coq.certificate_text,
   or of a tolerance by verify.coq.tolerance.tolerance_text: below) and prints VALID
   (exit 0) or INVALID (exit 1); input it cannot read: a message, exit
   2; a check that needs more work than --budget WORDS: a message, exit 4; out of
   memory (the caller bounds it: setrlimit): a message, exit 5; anything else: a
   message, exit 3. This file only parses, counts and renumbers the columns of sparse
   data (which changes no answer: see "sparse data" below); the decision is
   Checker.check's, proved in Checker.v.

     markone-coq-certificate 1
     intercept 0|1
     examples N D
     Y X_1 ... X_D                      (N lines)          or, of sparse data,
     sparse-examples N D
     Y K J_1 X_1 ... J_K X_K            (N lines: K entries, columns rising, < D)
     witness M W_1 ... W_M              or
     certificate K  I_1 L_1 ... I_K L_K   (indices rising: Checker.check's walk)

   A cycling certificate (CycleCheck.v; decided by Checker.check_cycle):

     markone-coq-cycle 1
     intercept 0|1
     examples N D
     Y X_1 ... X_D                      (N lines)
     cycle A R Q TU                     (A passes and R presentations of transient,
                                         TU updates in it; a period of Q passes)
     updates M I_1 ... I_M              (the example of each update on the cycle)

   A tolerance certificate (Tolerance.v; decided by Checker.check_units):

     markone-coq-tolerance 1
     units R
     then per R-unit:
     unit D N                           (D potentiometers, N figures)
     weights W_1 ... W_D
     Y X_1 ... X_D                      (N lines)
     tolerance DELTA I
     dead K I M J_1 ... J_M  T_1 ... T_N
     stuck any                          or
     stuck K I M J_1 ... J_M  T_1 ... T_N
     table L                            (L lines:)
     DELTA I M J_1 ... J_M  S_1 ... S_N

   A number is P or P/Q, each an integer in decimal or hexadecimal ("-0x1f"), of any
   size; so is an index. A count is at most OCaml's max_int; an index over it is read
   as max_int, which names no example (no list is that long), as the index it stands
   for.

   Every loop here is a tail call, a for loop or an Array/List function that is one, and so is every recursion of the
   extracted checker (Checker.v): 10^8 entries need no deeper stack than 10.

   The budget counts the words (8 bytes) the program allocates, reading included: the
   same count for the same input on every machine. It is compared at every minor
   collection of OCaml's GC (every 256k words) and before the verdict: a check that
   allocates more than its budget ends with exit 4 (within 256k words of it, at the
   same point every time), never with a verdict. *)

exception Bad of string

let bad fmt = Printf.ksprintf (fun s -> raise (Bad s)) fmt

(* ---- tokens: runs of characters between blanks ---- *)

let buf = Buffer.create 64

let is_blank c = c = ' ' || c = '\n' || c = '\t' || c = '\r'

(* The next token, or "" at the end of the file. *)
let token_or_end ic =
  Buffer.clear buf;
  let rec skip () = match input_char ic with
    | c when is_blank c -> skip ()
    | c -> Buffer.add_char buf c; word ()
    | exception End_of_file -> ()
  and word () = match input_char ic with
    | c when is_blank c -> ()
    | c -> Buffer.add_char buf c; word ()
    | exception End_of_file -> () in
  skip ();
  Buffer.contents buf

let token ic = match token_or_end ic with "" -> bad "the file ends early" | s -> s

let expect ic word = let t = token ic in if t <> word then bad "expected %S, read %S" word t

let digits s = String.length s > 0 && String.for_all (fun c -> '0' <= c && c <= '9') s

let integer what s =
  let body = match s with "" -> "" | _ when s.[0] = '-' -> String.sub s 1 (String.length s - 1)
                                    | _ -> s in
  let hex = String.length body > 2 && String.sub body 0 2 = "0x" in
  let ok c = ('0' <= c && c <= '9') || (hex && (('a' <= c && c <= 'f') || c = 'x')) in
  if body = "" || not (String.for_all ok body) then bad "%s: %S is not an integer" what s;
  try Z.of_string s with _ -> bad "%s: %S is not an integer" what s

(* A count: an integer >= 0 up to max_int. *)
let count ic what =
  let t = token ic in
  match int_of_string_opt t with
  | Some k when k >= 0 && digits t -> k
  | _ -> bad "%s: %S is not a count" what t

(* An example index: an integer >= 0; over max_int, max_int (no example has it). *)
let index ic what =
  let t = token ic in
  let i = integer what t in
  if Z.sign i < 0 then bad "%s: %S is not an index" what t;
  if Z.fits_int i then Z.to_int i else max_int

let rational ic what : Checker.q =
  let s = token ic in
  match String.index_opt s '/' with
  | None -> { Checker.qnum = integer what s; qden = Z.one }
  | Some k ->
    let p = integer what (String.sub s 0 k)
    and q = integer what (String.sub s (k + 1) (String.length s - k - 1)) in
    if Z.sign q <= 0 then bad "%s: %S has a denominator <= 0" what s;
    { Checker.qnum = p; qden = q }

(* [k] values of [f i], in order; tail-recursive. *)
let read_list k f =
  let rec go i acc = if i = k then List.rev acc else go (i + 1) (f i :: acc) in
  go 0 []

(* ---- sparse data: the columns that occur, renumbered ----

   Sparse data are handed to the proven checker dense, but only over the columns that
   occur: the columns of the stored entries of any row, in increasing order, numbered
   0, 1, 2... A column that occurs in no row is 0 in every row x_i, so it changes
   nothing that Checker.check computes:
   - labels_pm1 reads the labels only;
   - check_witness: every dot product w . y_i [x_i, 1] loses the terms w_j * 0 = 0
     (whatever w_j is); the lengths it compares are made equal exactly when the
     witness has D (+ 1 with an intercept) entries (see [compress_witness]);
   - check_gordan: every signed row has the same width (the compressed one); the
     weights and their indices (rows, not columns) are unchanged; the sum
     sum l_i y_i [x_i, 1] is 0 in every dropped column, so it is the zero vector
     exactly when its compressed form is.
   So every check gives the same answer on the compressed problem, and the dense size
   is N x (the columns that occur), at most [max_dense] entries. *)

let max_dense = 100_000_000

(* A sparse row: K, then K (column, value) pairs, columns rising and below [d]. *)
let sparse_row ic what d =
  let k = count ic what in
  let last = ref (-1) in
  read_list k (fun _ ->
      let j = count ic (what ^ ": a column") in
      if j <= !last || j >= d then
        bad "%s: column %d is not above %d and below %d" what j !last d;
      last := j;
      (j, rational ic what))

(* The columns that occur in [rows], in increasing order, as an array. *)
let occurring rows =
  let cols = Array.of_list (List.fold_left (fun acc (_, row) ->
      List.fold_left (fun acc (j, _) -> j :: acc) acc row) [] rows) in
  Array.sort compare cols;
  let kept = ref [] in
  Array.iteri (fun i j -> if i = 0 || cols.(i - 1) <> j then kept := j :: !kept) cols;
  Array.of_list (List.rev !kept)

(* The position of column [j] in [cols] (it occurs there): a binary search. *)
let position cols j =
  let rec go lo hi = let mid = (lo + hi) / 2 in
    if cols.(mid) = j then mid else if cols.(mid) < j then go (mid + 1) hi
    else go lo (mid - 1) in
  go 0 (Array.length cols - 1)

(* A sparse row as a dense one over the occurring columns [cols]. *)
let densify cols row =
  let dense = Array.make (Array.length cols) { Checker.qnum = Z.zero; qden = Z.one } in
  List.iter (fun (j, v) -> dense.(position cols j) <- v) row;
  Array.to_list dense

let read_sparse ic n d =
  let rows = read_list n (fun i ->
      let what = Printf.sprintf "example %d" i in
      let y = rational ic what in
      (y, sparse_row ic what d)) in
  let cols = occurring rows in
  let c = Array.length cols in
  if c > 0 && n > max_dense / c then
    bad "%d examples x %d occurring columns: over the %d entries the checker holds" n c
      max_dense;
  (cols, List.rev (List.rev_map (fun (y, row) -> (y, densify cols row)) rows))

(* The witness over the occurring columns [cols] of [d], the intercept's weight last.
   A witness of another length than D (+ 1) fails the length check of every row, as
   the compressed rows' length check fails against a zero witness one entry longer. *)
let compress_witness intercept cols d w =
  let m = d + (if intercept then 1 else 0) in
  if List.length w <> m then
    List.init (Array.length cols + (if intercept then 2 else 1))
      (fun _ -> { Checker.qnum = Z.zero; qden = Z.one })
  else begin
    let wa = Array.of_list w in
    Array.to_list (Array.append (Array.map (fun j -> wa.(j)) cols)
                     (if intercept then [| wa.(d) |] else [||]))
  end

let read_intercept ic =
  expect ic "intercept";
  match token ic with "0" -> false | "1" -> true
                    | t -> bad "intercept: %S is not 0 or 1" t

(* [n] dense examples of [d] features: a label, then the features. *)
let read_dense ic n d = read_list n (fun i ->
    let what = Printf.sprintf "example %d" i in
    let y = rational ic what in
    (y, read_list d (fun _ -> rational ic what)))

(* Certificate indices must rise for Checker.check's walk; the writer sorts them. *)
let read_separability ic =
  expect ic "1";
  let intercept = read_intercept ic in
  let layout = token ic in
  if layout <> "examples" && layout <> "sparse-examples" then
    bad "expected \"examples\" or \"sparse-examples\", read %S" layout;
  let n = count ic "examples" in
  let d = count ic "features" in
  let cols, data = if layout = "examples" then None, read_dense ic n d
    else let cols, data = read_sparse ic n d in Some cols, data in
  let proof = match token ic with
    | "witness" ->
      let m = count ic "witness" in
      let w = read_list m (fun _ -> rational ic "witness") in
      Checker.Witness (match cols with None -> w
                                     | Some cols -> compress_witness intercept cols d w)
    | "certificate" ->
      let k = count ic "certificate" in
      Checker.Certificate (read_list k (fun _ ->
          let i = index ic "certificate index" in
          (i, rational ic "certificate weight")))
    | t -> bad "expected \"witness\" or \"certificate\", read %S" t in
  (intercept, data, proof)

(* ---- a cycling certificate (dense examples only) ---- *)

let read_cycle ic =
  expect ic "1";
  let intercept = read_intercept ic in
  expect ic "examples";
  let n = count ic "examples" in
  let d = count ic "features" in
  let data = read_dense ic n d in
  expect ic "cycle";
  let a = count ic "cycle: passes" in
  let r = count ic "cycle: presentations" in
  let q = count ic "cycle: period" in
  let tu = count ic "cycle: transient updates" in
  expect ic "updates";
  let m = count ic "updates" in
  (intercept, data, a, r, q, tu, read_list m (fun _ -> count ic "an update's example"))

(* ---- a tolerance certificate ---- *)

(* [M] A-unit positions, then [n] numbers. *)
let positions ic what = let m = count ic what in read_list m (fun _ -> count ic what)
let numbers ic n what = read_list n (fun _ -> rational ic what)

(* I M J_1 ... J_M T_1 ... T_N after the count K: a witness figure and set, the
   thresholds. *)
let forced ic n what k =
  let i = count ic (what ^ " figure") in
  let units = positions ic (what ^ " units") in
  (k, i, units, numbers ic n (what ^ " thresholds"))

let table_line ic n =
  let delta = rational ic "table" in
  let i = count ic "table figure" in
  let units = positions ic "table units" in
  (((delta, numbers ic n "table thresholds"), i), units)

let read_unit ic =
  expect ic "unit";
  let d = count ic "potentiometers" in
  let n = count ic "figures" in
  expect ic "weights";
  let weights = numbers ic d "weights" in
  let figures = read_list n (fun i ->
      let what = Printf.sprintf "figure %d" i in
      let y = rational ic what in
      (y, numbers ic d what)) in
  expect ic "tolerance";
  let tolerance = rational ic "tolerance" in
  let tolerance_figure = count ic "tolerance figure" in
  expect ic "dead";
  let (dead, dead_figure, dead_units, dead_thresholds) =
    forced ic n "dead" (count ic "dead") in
  expect ic "stuck";
  let stuck = match token ic with
    | "any" -> None
    | t -> (match int_of_string_opt t with
        | Some k when k >= 0 && digits t ->
          let (k, i, units, ts) = forced ic n "stuck" k in Some (((k, i), units), ts)
        | _ -> bad "stuck: %S is not a count or \"any\"" t) in
  expect ic "table";
  let lines = count ic "table" in
  let table = read_list lines (fun _ -> table_line ic n) in
  { Checker.weights; figures; tolerance; tolerance_figure; dead; dead_figure;
    dead_units; dead_thresholds; stuck; table }

let read_tolerance ic =
  expect ic "1"; expect ic "units";
  let r = count ic "units" in
  read_list r (fun _ -> read_unit ic)

type certificate =
  | Separability of bool * (Checker.q * Checker.q list) list * Checker.proof
  | Tolerance of Checker.unit_cert list
  | Cycle of bool * (Checker.q * Checker.q list) list * int * int * int * int * int list

let read ic =
  let cert = match token ic with
    | "markone-coq-certificate" ->
      let (intercept, data, proof) = read_separability ic in
      Separability (intercept, data, proof)
    | "markone-coq-tolerance" -> Tolerance (read_tolerance ic)
    | "markone-coq-cycle" ->
      let (intercept, data, a, r, q, tu, ups) = read_cycle ic in
      Cycle (intercept, data, a, r, q, tu, ups)
    | t -> bad "expected \"markone-coq-certificate\", \"markone-coq-tolerance\" or \
                \"markone-coq-cycle\", read %S" t in
  (match token_or_end ic with
   | "" -> () | t -> bad "unexpected %S after the proof" t);
  cert

(* ---- the budget: words allocated, compared at every minor collection ---- *)

let allocated () =
  let s = Gc.quick_stat () in
  s.Gc.minor_words +. s.Gc.major_words -. s.Gc.promoted_words

let budget = ref infinity

let over_budget () =
  let words = !budget in
  if allocated () > words then begin
    budget := infinity;  (* exit runs the finalisers: no second message *)
    prerr_endline (Printf.sprintf "over budget: the check needs more than %.0f words \
                                   of work (--budget)" words);
    exit 4
  end

(* Compared at every minor collection (a finaliser of a young value runs after the
   collection that frees it) and once more before the verdict is printed. *)
let watch words =
  budget := words;
  let rec arm () = Gc.finalise_last check (ref 0)
  and check () = if !budget < infinity then (over_budget (); arm ()) in
  arm ()

let usage () = prerr_endline "usage: markone_coq_check [--budget WORDS] CERT.txt"; exit 2

let () =
  let path = match Array.to_list Sys.argv with
    | [_; path] -> path
    | [_; "--budget"; words; path] ->
      (match int_of_string_opt words with
       | Some b when b > 0 -> watch (float_of_int b); path
       | _ -> usage ())
    | _ -> usage () in
  let verdict () =
    match read (open_in_bin path) with
    | exception (Bad msg | Sys_error msg) -> prerr_endline ("unreadable: " ^ msg); 2
    | cert ->
      let valid = match cert with
        | Separability (intercept, data, proof) -> Checker.check intercept data proof
        | Tolerance units -> Checker.check_units units
        | Cycle (intercept, data, a, r, q, tu, ups) ->
          Checker.check_cycle intercept data a r q tu ups in
      over_budget ();
      budget := infinity;  (* decided: no check after this one *)
      if valid then (print_endline "VALID"; 0) else (print_endline "INVALID"; 1) in
  exit (try verdict () with
      | Out_of_memory -> prerr_endline "out of memory"; 5
      | exn -> prerr_endline ("internal error: " ^ Printexc.to_string exn); 3)
