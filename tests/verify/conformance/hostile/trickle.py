"""A correct answer written a character at a time, with brackets, quotes and a
backslash inside a string: the checks on stdout must not be fooled by chunks."""

if __name__ == "__main__":   # imported by pytest's doctest collection: nothing runs
    import json, sys, time
    from fractions import Fraction
    p = json.load(sys.stdin)
    X = [[Fraction(v) for v in row] + [Fraction(1)] * p["intercept"] for row in p["X"]]
    w, mistakes = [Fraction(0)] * len(X[0]), 0
    for i in p["order"]:
        if p["y"][i] * sum(a * b for a, b in zip(w, X[i])) <= 0:
            w = [a + p["y"][i] * b for a, b in zip(w, X[i])]
            mistakes += 1
    text = json.dumps({"note": 'a \\" ]]]] [[[[ {{{{ "', "w": [str(v) for v in w],
                       "mistakes": mistakes})
    for ch in text:
        sys.stdout.write(ch)
        sys.stdout.flush()
        time.sleep(0.0005)
