"""A perceptron in plain Python, the shape markone's conformance checker calls:

    markone adversary check suite/ --impl examples/perceptron.py:fit --profile arithmetic=float64

``fit(X, y, order)`` starts from w = 0 (every weight ``start``, when given) and,
for each index i of ``order``, adds
y[i] * X[i] to w whenever y[i] * (w . X[i]) <= 0 (a zero score is a mistake). ``X``
arrives as float64 rows, already augmented with the constant 1 when the case has an
intercept; ``y`` holds -1/+1. It returns the weights and the number of mistakes.
It computes in float64, so it declares ``--profile arithmetic=float64``: the cases
that need exact arithmetic then do not apply to it. Write ``< 0`` instead of ``<= 0``
and the checker names the strict rule. Start from w = 0.5 (``fit(X, y, order,
start=0.5)``) and declare it with ``--profile arithmetic=float64,start=0.5``.
"""


def fit(X, y, order, start=0.0):
    """The last weights and the number of mistakes of one run over ``order``, from
    every weight equal to ``start``."""
    w = [start] * len(X[0])
    mistakes = 0
    for i in order:
        if y[i] * sum(a * b for a, b in zip(w, X[i])) <= 0:
            w = [a + y[i] * b for a, b in zip(w, X[i])]
            mistakes += 1
    return w, mistakes
