"""Perceptron implementations for the conformance tests: a correct one in every
adapter shape, deliberately wrong ones (the strict rule, a zero score counted
as correct, learning rate 0.5, a hinge margin y w.x <= 1 or < 1), the textbook loop in float64 and in float32, and the
correct one with some of its numbers in float64 (all of them, or one part: the
intercept's constant, the averaged variant's running sum, the multiclass start).
Independent of markone: plain Fraction (or numpy float) loops. numpy is imported only
by the float ones: the command-line adapters run this module in a new process for
every answer, and numpy's import was most of the exact kinds' cost."""

from fractions import Fraction

RULES = {"correct": lambda y, s: y * s <= 0, "strict": lambda y, s: y * s < 0,
         "zero_correct": lambda y, s: (1 if s >= 0 else -1) != y,
         "half_rate": lambda y, s: y * s <= 0, "rate_tenth": lambda y, s: y * s <= 0,
         "margin": lambda y, s: y * s <= 1, "strict_margin": lambda y, s: y * s < 1}
STEP = {"half_rate": Fraction(1, 2), "rate_tenth": 0.1}


#: The parts of :func:`solve` that ``float_part`` makes float64 (the rest stays exact).
FLOAT_PARTS = ("all", "intercept", "running sum", "multiclass start")


def perceptron(rows, ys, order, kind="correct", zero=Fraction(0), start=None):
    """The 15-line textbook loop in Fractions (or float64, from ``zero=0.0``), from
    the weights ``start`` (zero when None): returns (w, mistakes, iterates,
    correct)."""
    mistake, eta = RULES[kind], STEP.get(kind, Fraction(1))
    w = list(start) if start is not None else [zero] * len(rows[0])
    iterates, correct, m = [], [], 0
    for i in order:
        x, y = rows[i], ys[i]
        s = sum((a * b for a, b in zip(w, x)), Fraction(0))
        if mistake(y, s):
            w = [a + eta * y * b for a, b in zip(w, x)]
            m += 1
        correct.append(not mistake(y, s))
        iterates.append(w)
    return w, m, iterates, correct


def _rows(problem, float_part=None):
    if float_part == "all":       # a float implementation reads the doubles X
        return [[float(v) for v in r] + [1.0] * problem["intercept"]
                for r in problem["X"]]
    one = 1.0 if float_part == "intercept" else Fraction(1)
    X = problem.get("X_exact") or problem["X"]
    return [[Fraction(v) for v in r] + [one] * problem["intercept"] for r in X]


def _sign(s):
    return 1 if s >= 0 else -1


def _start(problem, width, start, zero):
    """The starting weights: ``start`` for every weight (a number), the problem's
    ``"start"`` (``start="problem"``), or zero."""
    if start == "problem":
        return [zero + Fraction(v) for v in problem.get("start", [0] * width)]
    return [zero + (start if start is not None else 0)] * width


def solve(problem, kind="correct", float_part=None, start=None):
    """f(problem) -> answer for every task and variant of the suite; ``float_part``
    (one of :data:`FLOAT_PARTS`) computes that part in float64; ``start`` (a number
    for every weight, or ``"problem"`` for the problem's ``"start"``) is where the
    weights start (zero by default; the kernel's dual counts start at 0 anyway)."""
    number = float if float_part == "all" else Fraction
    if problem["task"] == "kernel":
        G, ys = [[number(v) for v in r] for r in problem["gram"]], problem["y"]
        alpha = [0] * len(ys)
        for i in problem["order"]:
            f = sum(alpha[j] * ys[j] * G[j][i] for j in range(len(ys)))
            alpha[i] += RULES[kind](ys[i], f)
        return {"alpha": alpha, "mistakes": sum(alpha)}
    rows = _rows(problem, float_part)
    zero = 0.0 if float_part in ("all", "multiclass start") else Fraction(0)
    if problem["task"] == "multiclass":
        K = problem["n_classes"]
        W = [_start(problem, len(rows[0]), start, zero) for _ in range(K)]

        def argmax(x):
            s = [sum(a * b for a, b in zip(W[k], x)) for k in range(K)]
            return s.index(max(s))

        m = 0
        for i in problem["order"]:
            x, c = rows[i], problem["y"][i]
            p = argmax(x)
            if p != c:
                eta = STEP.get(kind, 1)
                W[c] = [a + eta * b for a, b in zip(W[c], x)]
                W[p] = [a - eta * b for a, b in zip(W[p], x)]
                m += 1
        q = [[Fraction(v) for v in r] + [1] * problem["intercept"] for r in problem["queries"]]
        return {"W": [[str(v) for v in r] for r in W], "mistakes": m,
                "predictions": [argmax(x) for x in q]}
    w0 = _start(problem, len(rows[0]), start, 0.0 if float_part == "all" else Fraction(0))
    w, m, it, ok = perceptron(rows, problem["y"], problem["order"], kind,
                              0.0 if float_part == "all" else Fraction(0), w0)
    v = problem["variant"]
    if v == "averaged":
        start = 0.0 if float_part in ("all", "running sum") else 0
        w = [sum(c, start) / len(it) for c in zip(*it)]
    elif v == "pocket":
        best, run, w = 0, 0, w0
        for vec, good in zip(it, ok):
            run = run + 1 if good else 0
            if run > best:
                best, w = run, vec
    elif v == "voted":
        vectors, counts, prev = [w0], [0], None
        for vec, good in zip(it, ok):
            if good:
                counts[-1] += 1
            else:
                vectors.append(vec)
                counts.append(0)
        q = [[Fraction(v) for v in r] + [1] * problem["intercept"] for r in problem["queries"]]
        return {"mistakes": m, "predictions": [
            _sign(sum(c * _sign(sum(a * b for a, b in zip(vec, x)))
                      for vec, c in zip(vectors, counts))) for x in q]}
    return {"w": [str(x) for x in w], "mistakes": m}


def correct(problem):
    return solve(problem)


def strict(problem):
    return solve(problem, "strict")


def zero_correct(problem):
    return solve(problem, "zero_correct")


def half_rate(problem):
    return solve(problem, "half_rate")


def _legacy(kind):
    def run(X, y, order):
        import numpy as np
        rows = [[Fraction(float(v)) for v in r] for r in X]
        w, m, _, _ = perceptron(rows, [int(t) for t in y], [int(i) for i in order], kind)
        return np.array([float(v) for v in w]), m
    return run


legacy_correct, legacy_strict = _legacy("correct"), _legacy("strict")
legacy_zero_correct, legacy_half_rate = _legacy("zero_correct"), _legacy("half_rate")


class OnlinePerceptron:
    """One learner, both online APIs: partial_fit (scikit-learn style, coef_ and
    intercept_) and learn_one (River style, weights dict and intercept)."""

    def __init__(self, kind="correct", fit_intercept=True):
        self.kind, self.fit_intercept = kind, fit_intercept

    def get_params(self, deep=True):
        return {"kind": self.kind, "fit_intercept": self.fit_intercept}

    def set_params(self, **params):
        for k, v in params.items():
            setattr(self, k, v)
        return self

    def _step(self, x, y):
        if not hasattr(self, "w"):
            self.w, self.b = [Fraction(0)] * len(x), Fraction(0)
        s = sum(a * Fraction(float(v)) for a, v in zip(self.w, x)) + self.b
        if RULES[self.kind](y, s):
            eta = STEP.get(self.kind, Fraction(1))
            self.w = [a + eta * y * Fraction(float(v)) for a, v in zip(self.w, x)]
            if self.fit_intercept:
                self.b += eta * y

    def partial_fit(self, X, y, classes=None):
        import numpy as np
        for x, t in zip(np.asarray(X), y):
            self._step(list(x), int(t))
        if not hasattr(self, "coef_"):
            self.coef_, self.intercept_ = np.zeros((1, len(self.w))), np.zeros(1)
        self.coef_[0, :] = [float(v) for v in self.w]     # in place, as scikit-learn
        self.intercept_[:] = float(self.b)
        return self

    def learn_one(self, x, y):
        self._step([x[j] for j in sorted(x)], 1 if y else -1)
        self.weights = {j: float(v) for j, v in enumerate(self.w)}
        self.intercept = float(self.b)

    def predict_one(self, x):
        return True


class LearnOnly(OnlinePerceptron):
    """The River face only (no partial_fit)."""

    partial_fit = property()   # hide it: hasattr() is False

    def __getattribute__(self, name):
        if name == "partial_fit":
            raise AttributeError(name)
        return super().__getattribute__(name)


def float64_perceptron(X, y, order):
    import numpy as np
    """The textbook loop in float64."""
    w, m = np.zeros(X.shape[1]), 0
    for i in order:
        if y[i] * (w @ X[i]) <= 0:
            w, m = w + y[i] * X[i], m + 1
    return w, m


def float32_perceptron(X, y, order):
    import numpy as np
    """The textbook loop in float32 (numpy's own dot product)."""
    X, w, m = X.astype(np.float32), np.zeros(X.shape[1], np.float32), 0
    for i in order:
        if y[i] * (w @ X[i]) <= 0:
            w, m = w + np.float32(y[i]) * X[i], m + 1
    return w.astype(float), m


def no_kernels(problem):
    """Declines the kernel cases."""
    if problem["task"] == "kernel":
        return {"unsupported": "no kernels here"}
    return {"w": [0], "mistakes": 0}


def float64_rate_perceptron(X, y, order):
    """The textbook loop in float64 with a learning rate of 0.1 (``w += 0.1 * y * x``,
    as many textbooks write it), each score summed left to right: ``w @ x`` is BLAS's
    dot, whose order of sums (and fused multiply-adds) varies with the machine, and
    rounds -0.2 + 0.30000000000000004 - 0.1 to 0 on some (test_rates)."""
    import numpy as np

    w, m = np.zeros(X.shape[1]), 0
    for i in order:
        if y[i] * sum(w * X[i]) <= 0:
            w, m = w + 0.1 * y[i] * X[i], m + 1
    return w, m


def rate_float64(problem):
    """Every task and variant in float64 with a learning rate of 0.1."""
    return solve(problem, "rate_tenth", "all")


def half_rate_exact(problem):
    """The correct rule in exact arithmetic with a learning rate of 1/2 (a declared
    rate, not a misreading)."""
    return solve(problem, "half_rate")


def start_half_exact(problem):
    """Every task and variant in exact arithmetic from w = 1/2 (every weight)."""
    return solve(problem, start=Fraction(1, 2))


def start_half_float64(problem):
    """Every task and variant in float64 from w = 0.5 (every weight)."""
    return solve(problem, float_part="all", start=0.5)


def start_tenth_rate_tenth_float64(problem):
    """Every task and variant in float64 from w = 0.1 with a learning rate of 0.1
    (``w = np.full(d, 0.1)``; ``w += 0.1 * y * x``)."""
    return solve(problem, "rate_tenth", "all", start=0.1)


def start_from_problem(problem):
    """Every task and variant in exact arithmetic from the problem's ``"start"``."""
    return solve(problem, start="problem")
