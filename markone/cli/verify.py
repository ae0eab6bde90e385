"""``markone verify``: exact separability verdicts, certified margins, certificate checks.

Thin: parses arguments and calls :func:`verify.check_separable`,
:func:`verify.max_margin` and :func:`verify.certificate.check_certificate_file` (the
small trusted checker). Exit status: 0
separable, 1 not separable, 2 unknown or bad input (or a certificate that fails).

Table cells are read exactly (:func:`markone.datasets.load_table` with ``exact=True``):
integer columns as integers, decimals (``0.1``) and fractions (``1/3``) as the exact
rationals they denote. ``.npz`` arrays are taken as they are (float64 as exact binary
fractions).
"""

from __future__ import annotations

import hashlib
import importlib
from pathlib import Path

from markone.cli import add_command, add_group, data_options, load_data, positive_float

__all__ = ["register"]


SEPARABLE_EXAMPLES = """\
  markone verify separable data.csv                       verdict (exit 0 yes, 1 no)
  markone verify separable data.csv --certificate c.json  save the proof
  markone verify check c.json                             re-check it from scratch
  markone verify separable data.npz --no-intercept --method z3 --timeout 60"""


def _source(args):
    """Where the data came from: the file and its hash, or the built-in data set."""
    if not Path(args.file).is_file():
        return {"builtin": str(args.file), "label": args.label}
    return {"path": str(args.file), "sha256": _sha256(args.file), "label": args.label}


def _sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _status(separable):
    return 0 if separable else 1 if separable is False else 2


def _separable(args):
    from markone._io import to_jsonable, write_json
    from verify import check_separable
    from verify.certificate import CERTIFICATE_FORMAT  # the checker defines the format

    X, y = load_data(args, exact=True)
    v = check_separable(X, y, intercept=not args.no_intercept, method=args.method,
                        timeout_s=args.timeout)
    word = {True: "separable", False: "not separable", None: "unknown"}[v.separable]
    print(f"{word} (method {v.method}, {'exact' if v.exact else 'not decided'}, "
          f"{v.time_s:.3g} s)")
    print(v.message)
    if v.separable is False and len(v.certificate) <= 10:
        print("certificate (example: lambda):",
              ", ".join(f"{i}: {lam}" for i, lam in v.certificate.items()))
    if v.separable and len(v.witness) <= 10:
        print(f"witness (w{', intercept' if v.intercept else ''}):",
              ", ".join(str(c) for c in v.witness))
    if args.certificate:
        if v.separable is None:
            print(f"no certificate written to {args.certificate}: the verdict is unknown")
        else:
            doc = {
                "format": CERTIFICATE_FORMAT,
                "source": _source(args),
                "data": {"X": to_jsonable(X), "y": to_jsonable(y)},
                "intercept": v.intercept, "separable": v.separable,
                "witness": v.witness, "certificate": v.certificate,
                "method": v.method, "message": v.message,
            }
            write_json(args.certificate, doc)
            print(f"certificate written to {args.certificate}")
    return _status(v.separable)


def _margin(args):
    import numpy as np

    from verify import max_margin

    X, y = load_data(args, exact=True)
    if X.dtype == object or X.dtype.kind in "US":  # exact cells -> nearest floats
        from markone._exact import to_fraction_matrix

        X = np.array([[float(c) for c in row] for row in to_fraction_matrix(X)])
    m = max_margin(X, y, intercept=not args.no_intercept, svm=args.svm)
    kind = "SVM margin (free intercept)" if args.svm else "max margin"
    print(f"{kind}: gamma = {m.gamma:.12g}, certified in [{m.lower:.17g}, {m.upper:.17g}]")
    print(f"R = {m.R:.12g}, Novikoff bound (R/gamma)^2 = {m.bound:.6g}, "
          f"{len(m.support)} support examples, {m.time_s:.3g} s")
    print(m.message)
    return _status(m.separable)


def _check(args):
    from verify.certificate import check_certificate_file

    claim = check_certificate_file(args.cert)
    src = claim.fields.get("source") or {}
    n = len(claim.fields["data"]["y"])
    what = "witness" if claim.separable else "certificate"
    print(f"OK: the {what} proves the data {'are' if claim.separable else 'are not'} "
          f"linearly separable ({n} examples, intercept={claim.intercept}; "
          f"data from {src.get('path', '?')}, sha256 {str(src.get('sha256', '?'))[:12]})")
    return _status(claim.separable)


def register(subparsers):
    """Add the ``markone verify`` group (separable, margin, check, and plug-ins)."""
    p, group = add_group(
        subparsers, "verify",
        help="verify perceptron theory on data: separability, margins, bounds",
        description="Exact verdicts with certificates anyone can re-check. Exit status "
        "0 separable, 1 not separable, 2 unknown or bad input.",
        example="markone verify separable data.csv --certificate cert.json",
    )

    s = add_command(group, "separable", help="exact separability verdict with a proof",
                    description="A witness hyperplane (separable) or a Gordan "
                    "certificate (not separable), both exact rationals.",
                    example=SEPARABLE_EXAMPLES, func=_separable)
    _data_args(s)
    s.add_argument("--method", choices=("auto", "lp", "z3", "perceptron"),
                   default="auto", help="prover: cheap ones first (auto), HiGHS LP, "
                   "plain Z3, or the perceptron only")
    s.add_argument("--timeout", type=positive_float, default=None, metavar="SECONDS",
                   help="give up (verdict unknown, exit 2) after this long")
    s.add_argument("--certificate", default=None, metavar="OUT.json",
                   help="write the verdict with its proof and the data (self-contained)")

    m = add_command(group, "margin", help="maximum margin with a certified interval",
                    description="gamma = max over unit u of min_i y_i u.[x_i, 1], "
                    "bracketed by a unit vector (lower) and a hull point (upper), with "
                    "R and Novikoff's (R/gamma)^2.",
                    example="markone verify margin data.csv --svm", func=_margin)
    _data_args(m)
    m.add_argument("--svm", action="store_true",
                   help="hard-margin SVM margin instead (free intercept, not in the norm)")

    c = add_command(group, "check", help="re-check a certificate file from scratch",
                    description="Exact re-check of a file written by `markone verify "
                    "separable --certificate`; exit 0/1 as the proven verdict, 2 when "
                    "the proof fails.", example="markone verify check cert.json",
                    func=_check)
    c.add_argument("cert", metavar="CERT.json", help="certificate file")

    # `verify bound`, `verify cycling` and `verify machine` plug in here
    for name in ("markone.cli._verify_theory", "markone.cli._verify_machine"):
        try:
            plugin = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
        else:
            plugin.register(group)
    return p


def _data_args(p):
    data_options(p)
    p.add_argument("--no-intercept", action="store_true",
                   help="separate through the origin (no constant input)")
