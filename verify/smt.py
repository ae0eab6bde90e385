"""SMT queries written once, solved by Z3 or cvc5, exported as SMT-LIB 2.

A small term language (:class:`Term`: real and integer variables, rational constants,
``+ - *``, comparisons, ``and or not => ite``) is rendered to SMT-LIB 2 text, and that
text is what every solver reads: Z3 and cvc5 parse the same assertions through their
Python APIs, and :meth:`Session.smt2` writes them to a file that any other solver (the
``z3`` executable, ``cvc5``, ...) reruns with the same answers. The same terms are
evaluated exactly in :class:`~fractions.Fraction` arithmetic (:func:`evaluate`), so a
solver's model can be re-checked without trusting the solver.

Examples
--------
>>> x, y = Real("x"), Real("y")
>>> s = Session("QF_NRA", solver="cvc5")
>>> s.add(x * y > 2, x < 2, x > 1)
>>> s.check()
'sat'
>>> m = s.model()
>>> all(evaluate(t, m) for t in (x * y > 2, x < 2, x > 1))
True
>>> [line for line in s.smt2().splitlines() if "assert" in line][0]
'(assert (> (* x y) 2.0))'
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any

from markone._internal.exact import int_of_digits, int_text
from markone._internal.validation import check_int_at_least
from verify._internal.budget import BUDGET, TIMEOUT, check_timeout

__all__ = ["Term", "Real", "Int", "Sum", "And", "Or", "Not", "Implies", "If", "Eq",
           "evaluate", "Session", "SOLVERS", "RLIMIT"]

#: Solvers that read the queries.
SOLVERS = ("z3", "cvc5")

#: Default resource limit of one ``check`` (a deterministic count of the solver's
#: work: Z3's ``rlimit``, cvc5's ``rlimit-per``). About 13 times what the hardest of
#: :data:`verify.proofs.OBLIGATIONS` takes (1.5 million Z3 units, 70 thousand cvc5
#: units, under a second either way).
RLIMIT = {"z3": 20_000_000, "cvc5": 1_000_000}



class Term:
    """An SMT term: ``op`` with ``args`` of sort ``"Real"``, ``"Int"`` or ``"Bool"``.

    Arithmetic and comparisons build new terms (``==`` stays Python's identity: use
    :func:`Eq`). Python ints and Fractions become constants of the other side's sort.
    """

    __slots__ = ("op", "args", "sort")

    def __init__(self, op: str, args: Iterable[Any], sort: str) -> None:
        self.op, self.args, self.sort = op, tuple(args), sort

    def __repr__(self):
        return _render(self)

    def _num(self, other):
        if isinstance(other, Term):
            return other
        if isinstance(other, bool) or not isinstance(other, (int, Fraction)):
            raise TypeError(f"cannot combine a term with {other!r}; use ints, Fractions "
                            "or terms")
        if self.sort == "Int" and Fraction(other).denominator != 1:
            raise TypeError(f"{other} is not an integer (this term is Int)")
        return Term("const", (Fraction(other),), self.sort)

    def _arith(self, op, other, flip=False):
        if not isinstance(other, (Term, int, Fraction)):
            return NotImplemented  # e.g. a vector's own scalar multiplication
        other = self._num(other)
        a, b = (other, self) if flip else (self, other)
        return Term(op, (a, b), "Real" if "Real" in (a.sort, b.sort) else "Int")

    def __add__(self, o): return self._arith("+", o)
    def __radd__(self, o): return self._arith("+", o, True)
    def __sub__(self, o): return self._arith("-", o)
    def __rsub__(self, o): return self._arith("-", o, True)
    def __mul__(self, o): return self._arith("*", o)
    def __rmul__(self, o): return self._arith("*", o, True)
    def __neg__(self): return Term("neg", (self,), self.sort)
    def __le__(self, o): return Term("<=", (self, self._num(o)), "Bool")
    def __lt__(self, o): return Term("<", (self, self._num(o)), "Bool")
    def __ge__(self, o): return Term(">=", (self, self._num(o)), "Bool")
    def __gt__(self, o): return Term(">", (self, self._num(o)), "Bool")
    __hash__ = object.__hash__


def Real(name: str) -> Term:
    """A real-valued unknown."""
    return Term("var", (name,), "Real")


def Int(name: str) -> Term:
    """An integer-valued unknown."""
    return Term("var", (name,), "Int")


def _const(v, sort):
    return Term("const", (Fraction(v),), sort)


def Sum(terms: Iterable[Term], sort: str = "Real") -> Term:
    """The sum of terms (0 of ``sort`` when empty)."""
    terms = list(terms)
    if not terms:
        return _const(0, sort)
    return Term("+", terms, terms[0].sort) if len(terms) > 1 else terms[0]


def And(*ts: Term) -> Term:
    return Term("and", ts, "Bool") if len(ts) != 1 else ts[0]


def Or(*ts: Term) -> Term:
    return Term("or", ts, "Bool") if len(ts) != 1 else ts[0]


def Not(t: Term) -> Term:
    return Term("not", (t,), "Bool")


def Implies(a: Term, b: Term) -> Term:
    return Term("=>", (a, b), "Bool")


def If(c: Term, a: Term, b: Term) -> Term:
    """``ite``: ``a`` when ``c`` holds, else ``b``."""
    if not isinstance(a, Term) and not isinstance(b, Term):
        sort = "Int" if Fraction(a).denominator == Fraction(b).denominator == 1 else "Real"
        a = _const(a, sort)
    if not isinstance(a, Term):
        a = b._num(a)
    if not isinstance(b, Term):
        b = a._num(b)
    return Term("ite", (c, a, b), a.sort if a.sort == b.sort else "Real")


def Eq(a: Term, b: Term | int | Fraction) -> Term:
    """The equation ``a = b``."""
    if not isinstance(a, Term):
        a, b = b, a
    return Term("=", (a, a._num(b)), "Bool")


# --------------------------------------------------------------------------------------
# SMT-LIB 2 text and exact evaluation


def _render_const(q, sort):
    if sort == "Int":
        return int_text(q.numerator) if q >= 0 else f"(- {int_text(-q.numerator)})"
    mag = abs(q)
    top, bottom = int_text(mag.numerator), int_text(mag.denominator)
    text = f"{top}.0" if mag.denominator == 1 else f"(/ {top}.0 {bottom}.0)"
    return text if q >= 0 else f"(- {text})"


def _render(t):
    if t.op == "var":
        return t.args[0]
    if t.op == "const":
        return _render_const(t.args[0], t.sort)
    op = {"neg": "-"}.get(t.op, t.op)
    return f"({op} {' '.join(_render(a) for a in t.args)})"


def variables(terms: Iterable[Term]) -> dict[str, str]:
    """The variables of ``terms`` as ``{name: sort}``, in order of first use."""
    out: dict[str, str] = {}
    stack = list(reversed(list(terms)))
    while stack:
        t = stack.pop()
        if t.op == "var":
            out.setdefault(t.args[0], t.sort)
        elif t.op != "const":
            stack.extend(reversed(t.args))
    return out


def _product(v: list[Any]) -> Fraction:
    out = Fraction(1)
    for x in v:
        out *= x
    return out


#: How :func:`evaluate` applies each operator to its arguments' values.
_APPLY: dict[str, Any] = {
    "+": lambda v: sum(v, Fraction(0)), "*": _product, "-": lambda v: v[0] - v[1],
    "neg": lambda v: -v[0],
    "<=": lambda v: v[0] <= v[1], "<": lambda v: v[0] < v[1],
    ">=": lambda v: v[0] >= v[1], ">": lambda v: v[0] > v[1], "=": lambda v: v[0] == v[1],
    "and": all, "or": any, "not": lambda v: not v[0], "=>": lambda v: (not v[0]) or v[1],
}


def evaluate(t: Term, env: Mapping[str, Any]) -> Any:
    """The exact value of ``t`` (Fraction or bool) with variables from ``env``."""
    op, a = t.op, t.args
    if op == "var":
        return Fraction(env[a[0]])
    if op == "const":
        return a[0]
    if op == "ite":
        return evaluate(a[1] if evaluate(a[0], env) else a[2], env)
    v = [evaluate(x, env) for x in a]
    if op in _APPLY:
        return _APPLY[op](v)
    raise ValueError(f"unknown operator {op!r}")  # pragma: no cover


# --------------------------------------------------------------------------------------
# one solver session over SMT-LIB text


class Session:
    """An incremental solver session that reads SMT-LIB 2 and keeps the transcript.

    Parameters
    ----------
    logic : str
        SMT-LIB logic, e.g. ``"QF_NRA"`` (polynomial real arithmetic), ``"QF_LRA"``.
    solver : {"z3", "cvc5"}
    rlimit : int, optional
        Resource units each ``check`` may spend, in the solver's own deterministic
        count (Z3's ``rlimit``, cvc5's ``rlimit-per``; the units differ between the
        two). Default :data:`RLIMIT` of the solver; 0: no limit. Past it the answer
        is ``"unknown"`` and :attr:`stopped_by` is ``"budget"``.
    timeout_s : float, optional
        Per ``check`` wall-clock limit, only when given (then an answer may depend on
        how busy the machine is); past it the answer is ``"unknown"`` and
        :attr:`stopped_by` is ``"timeout"``.
    seed : int, default 0
        The solver's random seed (fixed: the same query gets the same answer).
    comment : str
        Written at the top of the exported file.

    Attributes
    ----------
    stopped_by : str
        After an ``"unknown"``: ``"budget"`` (``rlimit``), ``"timeout"`` (``timeout_s``)
        or ``""`` (the solver gave up by itself); ``""`` after ``"sat"``/``"unsat"``.

    Each Z3 session has a context of its own, so no earlier query changes the work a
    later one takes.
    """

    def __init__(self, logic: str, *, solver: str = "z3", rlimit: int | None = None,
                 timeout_s: float | None = None, seed: int = 0,
                 comment: str = "") -> None:
        if solver not in SOLVERS:
            raise ValueError(f"solver={solver!r} must be one of {SOLVERS}.")
        timeout_s = check_timeout(timeout_s)
        self.rlimit = RLIMIT[solver] if rlimit is None else check_int_at_least(
            rlimit, "rlimit", 0)
        seed = check_int_at_least(seed, "seed", 0)
        self.logic, self.solver, self.timeout_s = logic, solver, timeout_s
        self.stopped_by = ""
        self._declared: dict[str, str] = {}
        self._script = [f"; {line}" for line in comment.splitlines()]
        self._script += ["(set-logic " + logic + ")", "(set-option :produce-models true)"]
        self._lines: list[str] = []  # declarations and assertions (the text the solver read)
        self._last: str | None = None
        self.time_s = 0.0
        if solver == "z3":
            import z3

            self._z3 = z3.SolverFor(logic, ctx=z3.Context())
            self._z3.set("random_seed", seed)
        else:
            import cvc5

            self._tm = cvc5.TermManager()
            self._cvc = cvc5.Solver(self._tm)
            self._cvc.setOption("produce-models", "true")
            self._cvc.setOption("incremental", "true")
            self._cvc.setOption("seed", str(seed))
            self._cvc.setLogic(logic)
            self._sm = cvc5.SymbolManager(self._tm)
        self._limit(self.rlimit, timeout_s)

    def _limit(self, rlimit, timeout_s):
        """Set the per-check resource limit and (when given) the time limit."""
        ms = None if timeout_s is None else max(1, math.ceil(timeout_s * 1000))
        if self.solver == "z3":
            self._z3.set("rlimit", rlimit)
            self._z3.set("timeout", ms if ms is not None else 4294967295)
        else:
            self._cvc.setOption("rlimit-per", str(rlimit))
            self._cvc.setOption("tlimit-per", str(ms or 0))

    def add(self, *terms: Term) -> None:
        """Assert terms (declaring their new variables first)."""
        lines = []
        for name, sort in variables(terms).items():
            if name not in self._declared:
                self._declared[name] = sort
                lines.append(f"(declare-fun {name} () {sort})")
        lines += [f"(assert {_render(t)})" for t in terms]
        self._feed("\n".join(lines) + "\n")
        self._script += lines

    def _feed(self, text):
        if self.solver == "z3":
            self._z3.from_string(text)
            return
        import cvc5

        parser = cvc5.InputParser(self._cvc, self._sm)
        parser.setStringInput(cvc5.InputLanguage.SMT_LIB_2_6, text, "markone")
        while True:
            cmd = parser.nextCommand()
            if cmd.isNull():
                break
            cmd.invoke(self._cvc, self._sm)

    def check(self, timeout_s: float | None = None) -> str:
        """``"sat"``, ``"unsat"`` or ``"unknown"`` for the assertions so far, within
        the session's ``rlimit`` and (``timeout_s`` when given, else the session's)
        time limit; :attr:`stopped_by` says what cut an ``"unknown"`` short."""
        timeout_s = check_timeout(timeout_s)
        if timeout_s is not None:
            self._limit(self.rlimit, timeout_s)
        t0 = time.perf_counter()
        if self.solver == "z3":
            before = self._z3_work()
            r = str(self._z3.check())
            why = self._z3.reason_unknown() if r == "unknown" else ""
            # Z3 says "canceled" for either limit in some logics: count the work
            spent = self.rlimit and self._z3_work() - before >= self.rlimit
            self.stopped_by = ("" if r != "unknown" else
                               BUDGET if spent or "resource limit" in why else
                               TIMEOUT if why in ("timeout", "canceled") else "")
        else:
            import cvc5

            res = self._cvc.checkSat()
            r = "sat" if res.isSat() else "unsat" if res.isUnsat() else "unknown"
            why = res.getUnknownExplanation() if r == "unknown" else None
            self.stopped_by = (BUDGET if why == cvc5.UnknownExplanation.RESOURCEOUT else
                               TIMEOUT if why == cvc5.UnknownExplanation.TIMEOUT else "")
        self.time_s += time.perf_counter() - t0
        if timeout_s is not None:
            self._limit(self.rlimit, self.timeout_s)
        self._script.append("(check-sat)")
        self._last = r
        return r

    def _z3_work(self):
        """Z3's resource count so far in this session's context."""
        stats = self._z3.statistics()
        return stats.get_key_value("rlimit count") if "rlimit count" in stats.keys() else 0

    def push(self) -> None:
        self._script.append("(push 1)")
        if self.solver == "z3":
            self._z3.push()
        else:
            self._cvc.push()

    def pop(self) -> None:
        self._script.append("(pop 1)")
        if self.solver == "z3":
            self._z3.pop()
        else:
            self._cvc.pop()

    def model(self) -> dict[str, Fraction | str]:
        """After ``"sat"``: ``{name: Fraction}``, or a decimal string (ending in
        ``"?"``) for a value that is an irrational algebraic number."""
        if self._last != "sat":
            raise ValueError("there is no model: the last check was not sat.")
        if self.solver == "z3":
            return self._z3_model()
        out: dict[str, Fraction | str] = {}
        for t in self._sm.getDeclaredTerms():
            v = self._cvc.getValue(t)
            if v.isRealValue() or v.isIntegerValue():
                out[str(t)] = Fraction(v.getRealValue() if v.isRealValue()
                                       else v.getIntegerValue())
            else:
                out[str(t)] = _cvc5_algebraic(str(v))
        return out

    def _z3_model(self):
        import z3

        m, out, ctx = self._z3.model(), {}, self._z3.ctx
        for name, sort in self._declared.items():
            v = m.eval(z3.Real(name, ctx) if sort == "Real" else z3.Int(name, ctx),
                       model_completion=True)
            if z3.is_rational_value(v):  # (z3's as_fraction goes through int(str))
                out[name] = Fraction(int_of_digits(v.numerator().as_string()),
                                     int_of_digits(v.denominator().as_string()))
            elif z3.is_int_value(v):
                out[name] = Fraction(int_of_digits(v.as_string()))
            else:
                out[name] = v.approx(20).as_decimal(20).rstrip("?") + "?"
        return out

    def rational_model(self, tries: int = 6) -> dict[str, Fraction] | None:
        """After ``"sat"``: a model whose values are all rational, found by fixing the
        irrational ones to nearby rationals one at a time; None when that fails."""
        model = self.model()
        for name in [k for k, v in model.items() if isinstance(v, str)]:
            approx = Fraction(str(model[name]).rstrip("?"))
            for digits in range(tries):
                q = approx.limit_denominator(10 ** (digits + 1))
                self.push()
                self.add(Eq(Real(name) if self._declared[name] == "Real" else Int(name),
                            q))
                if self.check() == "sat":
                    model = self.model()
                    break
                self.pop()
            else:
                return None
        exact = {k: v for k, v in model.items() if isinstance(v, Fraction)}
        return exact if len(exact) == len(model) else None

    def smt2(self) -> str:
        """The whole session as an SMT-LIB 2 script (every ``check-sat`` included)."""
        return "\n".join(self._script + ["(exit)"]) + "\n"


def _cvc5_algebraic(text):
    """A decimal approximation of cvc5's ``(_ real_algebraic_number <p, (lo, hi)>)``."""
    lo, hi = text.rsplit("(", 1)[1].rstrip(")>").split(",")
    mid = (Fraction(lo.strip()) + Fraction(hi.strip())) / 2
    return f"{float(mid):.17g}?"
