"""The reference perceptron the mutation score is measured on (tests/mutation_score.py).

Every task and variant of the conformance suite, in exact Fractions, written plainly
so that mechanical edits (an operator, a constant, a loop bound, a dtype) make the
faulty versions a programmer might write. Only ``for`` loops: no mutant can hang.
"""

from fractions import Fraction


def dot(a, b):
    return sum((p * q for p, q in zip(a, b)), Fraction(0))


def sign(s):
    return 1 if s >= 0 else -1


def solve(problem):
    X = problem.get("X_exact") or problem["X"]
    c = 1 if problem["intercept"] else 0
    rows = [[Fraction(v) for v in row] + [Fraction(1)] * c for row in X]
    y = problem["y"]
    order = problem["order"]
    eta = 1
    if problem["task"] == "kernel":
        G = [[Fraction(v) for v in row] for row in problem["gram"]]
        alpha = [0] * len(y)
        for i in order:
            f = sum(alpha[j] * y[j] * G[j][i] for j in range(len(y)))
            if y[i] * f <= 0:
                alpha[i] += 1
        return {"alpha": alpha, "mistakes": sum(alpha)}
    if problem["task"] == "multiclass":
        K = problem["n_classes"]
        W = [[Fraction(0)] * len(rows[0]) for _ in range(K)]

        def argmax(x):
            best = 0
            for k in range(1, K):
                if dot(W[k], x) > dot(W[best], x):
                    best = k
            return best

        m = 0
        for i in order:
            p = argmax(rows[i])
            t = y[i]
            if p != t:
                W[t] = [a + eta * b for a, b in zip(W[t], rows[i])]
                W[p] = [a - eta * b for a, b in zip(W[p], rows[i])]
                m += 1
        queries = [[Fraction(v) for v in q] + [Fraction(1)] * c for q in problem["queries"]]
        return {"W": [[str(v) for v in r] for r in W], "mistakes": m,
                "predictions": [argmax(q) for q in queries]}
    d = len(rows[0])
    w = [Fraction(0)] * d
    total = [Fraction(0)] * d
    m = 0
    run = 0
    best = 0
    pocket = w
    votes = [[w, 0]]
    for i in order:
        s = dot(w, rows[i])
        if y[i] * s <= 0:
            w = [a + eta * y[i] * b for a, b in zip(w, rows[i])]
            m += 1
            run = 0
            votes.append([w, 0])
        else:
            run += 1
            votes[-1][1] += 1
            if run > best:
                best = run
                pocket = w
        total = [a + b for a, b in zip(total, w)]
    if problem["variant"] == "averaged":
        w = [a / len(order) for a in total]
    if problem["variant"] == "pocket":
        w = pocket
    if problem["variant"] == "voted":
        queries = [[Fraction(v) for v in q] + [Fraction(1)] * c for q in problem["queries"]]
        return {"mistakes": m, "predictions": [
            sign(sum(n * sign(dot(v, q)) for v, n in votes)) for q in queries]}
    return {"w": [str(v) for v in w], "mistakes": m}
