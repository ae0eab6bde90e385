"""``markone verify``: exact separability verdicts, certified margins, certificate checks.

Thin: parses arguments and calls :func:`verify.check_separable`,
:func:`verify.max_margin` and :func:`verify.certificate.check_certificate_file` (whose
proof the trusted kernel, ``verify/certificate/kernel.py``, decides). Exit statuses as
every command's (:mod:`markone.cli._errors`): ``separable`` and ``margin`` end 0
separable, 1 not separable, 4 not decided within ``--timeout``; ``check`` 0 valid, 1 the
certificate is wrong, 2 a file that cannot be read as a certificate (or over a limit of
the read: ``--max-bytes``, ``--max-number-chars``, ``--max-exponent``, ``--max-depth``).

Table cells are read exactly (:func:`markone.datasets.load_table` with ``exact=True``):
integer columns as integers, decimals (``0.1``) and fractions (``1/3``) as the exact
rationals they denote. ``.npz`` arrays are taken as they are (float64 as exact binary
fractions).
"""

from __future__ import annotations

import functools
from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from markone.cli import (CommandError, add_command, budget_and_timeout,
                         cli_terms, data_options, load_data, memory_option, output_file,
                         positive_float, positive_int, timeout_left)
from markone.cli import plural, purpose, rounded_note
from markone.cli import EXIT_NO, EXIT_OK, EXIT_UNDECIDED

__all__ = ["add_separable", "add_margin", "add_check"]


SEPARABLE_EXAMPLES = """\
  markone verify separable data.csv                       verdict (exit 0 yes, 1 no)
  markone verify separable data.csv --certificate c.json  save the proof
  markone verify check c.json                             re-check it from scratch
  markone verify separable data.npz --no-intercept --method z3 --timeout 60"""


def _source(args):
    """Where the data came from: the file and its hash, or the built-in data set."""
    from verify.certificate import file_sha256

    how = {"label": args.label, "delimiter": args.delimiter, "header": args.header}
    if not Path(args.file).is_file():
        return {"builtin": str(args.file), **how}
    return {"path": str(args.file), "sha256": file_sha256(args.file), **how}


def _source_data_sha256(claim):
    """The hash of the data read again from the certificate's source (a file that is
    present, or a built-in data set), as ``verify separable`` read it; None when there
    is nothing to read."""
    from markone.datasets import BUILTIN_TABLES, load_table
    from verify.certificate import data_sha256
    from verify.errors import CertificateUnreadable

    src = claim.fields.get("source") or {}
    name = claim.source_file if claim.source_checked else src.get("builtin")
    if "builtin" in src and src["builtin"] not in BUILTIN_TABLES:
        raise CertificateUnreadable(
            f"source.builtin names {src['builtin']!r}, which is not a built-in data set "
            f"({', '.join(sorted(BUILTIN_TABLES))}): the embedded data cannot be compared "
            "with their source; name one of those, or write the certificate again.")
    if name is None:
        return None
    X, y = load_table(name, label=src.get("label"), delimiter=src.get("delimiter"),
                      header=src.get("header"), exact=True)
    return data_sha256(X, y, version=claim.data_version)


#: The statuses of a separability verdict.
VERDICT_EXITS = {EXIT_OK: "separable", EXIT_NO: "not separable",
                 EXIT_UNDECIDED: "not decided within --timeout"}


def _status(separable):
    return EXIT_OK if separable else EXIT_NO if separable is False else EXIT_UNDECIDED


def _separable(args):
    from markone._internal.io import atomic_write
    from verify import check_separable
    from verify.certificate import certificate_document, certificate_json
    X, y = load_data(args, exact=True)
    v = check_separable(X, y, intercept=not args.no_intercept, method=args.method,
                        timeout_s=timeout_left(args), max_memory_gb=args.max_memory)
    word = {True: "separable", False: "not separable", None: "unknown"}[v.separable]
    print(f"{word} (method {v.method}, {'exact' if v.exact else 'not decided'}, "
          f"{v.time_s:.3g} s)")
    print(cli_terms(v.message))
    _print_numbers(v, args.certificate)
    if v.separable and not hasattr(X, "tocsr"):
        print(_witness_bound_line(X, y, v.witness, v.intercept))
    if args.certificate:
        if v.separable is None:
            print(f"no certificate written to {args.certificate}: the verdict is unknown")
        else:
            # the checker's own format; sparse data stay sparse (format /3, csr)
            atomic_write(args.certificate, certificate_json(
                certificate_document(X, y, v, source=_source(args))))
            print(f"certificate written to {args.certificate}")
    return _status(v.separable)


def _print_numbers(v, certificate):
    """Print the verdict ``v``'s certificate (lambdas) or witness when it has at most
    10 numbers: exactly, or rounded when too long to read, with a note that the file
    ``certificate`` (or the --certificate flag) holds them exactly."""
    from markone._internal.exact import fraction_shown

    shown: list[str] = []
    if v.separable is False and len(v.certificate) <= 10:
        shown = [fraction_shown(lam) for lam in v.certificate.values()]
        print("certificate:", ", ".join(f"lambda[{i}] = {text}"
                                        for i, text in zip(v.certificate, shown)))
    if v.separable and len(v.witness) <= 10:
        shown = [fraction_shown(value) for value in v.witness]
        print(f"witness (w{', intercept' if v.intercept else ''}):", ", ".join(shown))
    note = rounded_note(shown, what="number", where=f"{certificate} holds"
                        if certificate else "--certificate OUT writes")
    if note:
        print(note)


def _margin(args):

    from verify import max_margin

    X, y = load_data(args, exact=True)  # exact cells: rounded once, said in the message
    m = max_margin(X, y, intercept=not args.no_intercept, svm=args.svm)
    kind = "SVM margin (free intercept)" if args.svm else "max margin"
    beyond = (m.separable and not 0 < m.lower <= m.upper < float("inf")
              and "float64's range" in m.message)   # not when merely too thin
    note = " (beyond float64's range: the last line gives it in full)" if beyond else ""
    print(f"{kind}: certified in [{m.lower!r}, {m.upper!r}]{note}")
    print(f"R = {m.R_shown} (rounded up), {plural(len(m.support), 'support example')}, "
          f"{m.time_s:.3g} s")
    print(cli_terms(m.message))
    return _status(m.separable)


def _check(args):
    from markone._internal.io import plural
    from verify.certificate import ReadLimits, check_certificate_file
    from verify.errors import CertificateError, CertificateUnreadable

    limits = ReadLimits(max_bytes=args.max_bytes, max_number_chars=args.max_number_chars,
                        max_exponent=args.max_exponent, max_depth=args.max_depth,
                        max_presentations=args.max_presentations)
    kernel, undecided = _checker(args)
    try:
        claim = check_certificate_file(args.cert, limits=limits, kernel=kernel)
    except CertificateUnreadable:
        raise  # exit 2: cannot be read (one line on stderr)
    except CertificateError as exc:  # readable, but wrong: exit 1
        print(f"INVALID: {exc}")
        return EXIT_NO
    except undecided as exc:  # the Coq checker's --budget, --max-memory, --timeout: 4
        print(f"UNDECIDED: {exc}")
        return EXIT_UNDECIDED
    doc = claim.fields
    src = doc.get("source") or {}
    again = _source_data_sha256(claim)
    if again is not None and again != doc["data_sha256"]:
        print(f"INVALID: {args.cert}: the embedded data are not the data of "
              f"{src.get('path') or src.get('builtin')} (read again, they hash to "
              f"{again[:12]}..., not {doc['data_sha256'][:12]}...): the certificate "
              "speaks about other data than its source.")
        return EXIT_NO
    where = _where(claim, src, again)
    by = " (checked by the checker extracted from the Coq proofs)" * (args.checker == "coq")
    if not hasattr(claim, "separable"):   # a cycling certificate
        print(f"OK{by}: {_cycle_words(claim)} ({plural(len(doc['data']['y']), 'example')}, "
              f"{'with' if claim.intercept else 'without'} intercept; data sha256 "
              f"{doc['data_sha256'][:12]} recomputed; {where})")
        return 0
    _print_verdict(claim, by, where, doc)
    return 0


def _witness_bound_line(X, y, witness, intercept):
    """Novikoff's bound with the witness's own margin, in words (Coq:
    ``check_witness_novikoff``, over exactly these numbers)."""
    from markone._internal.exact import int_shown
    from verify.margin import witness_novikoff

    b = witness_novikoff(X, y, witness, intercept=intercept)
    x = "[x, 1]" if intercept else "x"   # without intercept there is no constant 1
    return (f"Novikoff with the witness's own margin (Coq: check_witness_novikoff): at "
            f"most floor(R^2 ||w||^2 / gamma^2) = {int_shown(b.mistakes)} mistakes in "
            f"any order, gamma = min y w.{x} and R^2 = max ||{x}||^2 exactly")


def _print_verdict(claim, by, where, doc):
    """The OK lines of a separability certificate that holds."""
    from markone._internal.io import plural

    what = "witness" if claim.separable else "certificate"
    print(f"OK{by}: the {what} proves the data {'are' if claim.separable else 'are not'} "
          f"linearly separable ({plural(len(doc['data']['y']), 'example')}, "
          f"{'with' if claim.intercept else 'without'} intercept; data sha256 {doc['data_sha256'][:12]} recomputed; {where})")
    if claim.separable and "X" in doc["data"]:
        print(_witness_bound_line(doc["data"]["X"], doc["data"]["y"], claim.witness,
                                  claim.intercept))


def _where(claim, src, again):
    """What was compared of the certificate's source, in words."""
    if "path" in src:
        return (f"source {src['path']} present, sha256 matches, its data are the "
                "embedded data" if claim.source_checked
                else f"source {src['path']} {claim.source_note}: not compared")
    if again is not None:
        return f"built-in data {src['builtin']}, read again: the embedded data"
    return "no source file"


def _cycle_words(claim):
    """What a cycling certificate that was re-run proves, in words."""
    from markone._internal.io import plural

    return (f"the perceptron from zero, in the cyclic order, enters a cycle after "
            f"{plural(claim.transient_presentations, 'presentation')} "
            f"({plural(claim.transient_updates, 'update')}) and comes back every "
            f"{plural(claim.period_passes, 'pass', 'passes')} with "
            f"{plural(len(claim.cycle_updates), 'update')}: it never converges in "
            "this order")


def _checker(args):
    """``(kernel, the exception of an undecided check)`` of ``--checker``: None for the
    Python kernel, or the checker extracted from the Coq proofs (``verify/coq``) within
    ``--budget`` and ``--timeout``, which only it has."""
    if args.checker != "coq":
        given = [flag for flag, value in (("--budget", args.budget),
                                          ("--timeout", args.timeout),
                                          ("--max-memory", args.max_memory))
                 if value is not None]
        if given:
            raise CommandError(f"{given[0]} applies to --checker coq only (the "
                               "certificate kernel has no budget, memory or time "
                               f"limit); add --checker coq or drop {given[0]}.")
        return None, ()
    from verify.coq import build, check_with_coq
    from verify.errors import CoqUnavailable, CoqUndecided
    try:
        built = build()
    except CoqUnavailable as exc:
        raise CommandError(f"--checker coq: {exc}") from None
    return functools.partial(check_with_coq, built=built, budget=args.budget,
                             timeout=args.timeout, max_memory_gb=args.max_memory
                             ), CoqUndecided


def add_separable(group: Any) -> ArgumentParser:
    """Add ``markone verify separable`` to the ``verify`` group's ``group``."""
    s = add_command(group, "separable", help=purpose("verify separable"),
                    description="A witness hyperplane (separable) or a Gordan "
                    "certificate (not separable), both exact rationals.",
                    example=SEPARABLE_EXAMPLES, func=_separable,
                    exits=VERDICT_EXITS)
    _data_args(s)
    s.add_argument("--method", choices=("auto", "lp", "z3", "perceptron"),
                   default="auto", help="prover: cheap ones first (auto), HiGHS LP, "
                   "plain Z3, or the perceptron only")
    s.add_argument("--timeout", type=positive_float, default=None, metavar="SECONDS",
                   help="give up (verdict unknown, exit 4) after this long")
    s.add_argument("--certificate", type=output_file, default=None, metavar="OUT.json",
                   help="write the verdict with its proof and the data (self-contained)")
    memory_option(s)
    return s


def add_margin(group: Any) -> ArgumentParser:
    """Add ``markone verify margin`` to the ``verify`` group's ``group``."""
    m = add_command(group, "margin", help=purpose("verify margin"),
                    description="gamma = max over unit u of min_i y_i u.[x_i, 1], "
                    "certified in an interval: a unit vector (lower end) and a hull "
                    "point (upper end). Also R, and a mistake bound of the perceptron "
                    "from the theorem it names, at the ends that make it true (R rounded "
                    "up, gamma the lower end; R^2 and gamma^2 exact when the margin is "
                    "beyond float64 and found in exact rationals).",
                    example="markone verify margin data.csv --svm", func=_margin,
                    exits={EXIT_OK: "separable", EXIT_NO: "not separable"})
    _data_args(m)
    m.add_argument("--svm", action="store_true",
                   help="hard-margin SVM margin instead (free intercept, not in the norm)")
    return m


def add_check(group: Any) -> ArgumentParser:
    """Add ``markone verify check`` to the ``verify`` group's ``group``."""
    c = add_command(group, "check", help=purpose("verify check"),
                    description="Exact re-check of a file written by `markone verify "
                    "separable --certificate` or `markone verify cycling --certificate`: "
                    "its schema, the hash of its embedded data, the source file's hash "
                    "when that file is present, and the proof (a cycle: run again). A "
                    "file that cannot be read as a certificate is bad input.",
                    example="markone verify check cert.json", func=_check,
                    exits={EXIT_OK: "valid (whichever verdict it proves)",
                           EXIT_NO: "the certificate is wrong (a proof that fails, data "
                           "that do not match their hash)",
                           EXIT_UNDECIDED: "--checker coq did not decide within --budget, "
                           "--max-memory or --timeout"})
    c.add_argument("cert", metavar="CERT.json", help="certificate file")
    c.add_argument("--checker", choices=("python", "coq"), default="python",
                   help="who checks the proof: python, the certificate kernel "
                   "(verify/certificate/kernel.py), or coq, the checker extracted from "
                   "the Coq proofs (verify/coq; needs Coq and OCaml, built once)")
    budget_and_timeout(c, "--checker coq: give up (exit 4) after the checker allocates "
                       "this many words (8 bytes), reading included: a count of its "
                       "work, the same on every machine (default: no limit)",
                       "--checker coq: give up (exit 4) after this long (default: no "
                       "limit)", unit="WORDS")
    memory_option(c, "--checker coq: give up (exit 4) when the checker would take more "
                  "memory than this (default 4)")
    _limit_args(c)
    return c


def _limit_args(p):
    """``verify check``'s limits of the read, as :class:`verify.certificate.ReadLimits`
    (its defaults; the module is standard library only, cheap to import)."""
    from verify.certificate.reading import ReadLimits

    default = ReadLimits()
    group = p.add_argument_group("limits of the read (a file over one is refused, exit 2)")
    for flag, what in (("--max-bytes", "largest certificate file read, in bytes"),
                       ("--max-number-chars", "longest number string, in characters"),
                       ("--max-exponent", "largest |exponent| of a number string"),
                       ("--max-depth", "deepest nesting of arrays and objects, checked "
                        "before parsing (a certificate nests 4; at most 400)"),
                       ("--max-presentations", "most presentations a cycling "
                        "certificate's re-run may take (its transient and period, "
                        "each twice)")):
        group.add_argument(flag, type=positive_int, metavar="N", help=what,
                           default=getattr(default, flag[2:].replace("-", "_")))


def _data_args(p):
    data_options(p)
    p.add_argument("--no-intercept", action="store_true",
                   help="separate through the origin (no constant input)")
