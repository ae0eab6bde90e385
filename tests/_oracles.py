"""Exact oracles shared by the tests: a few lines of plain Fractions, independent of
the code under test."""

from fractions import Fraction


def fraction_solve(A, b):
    """Solve the square system ``A x = b`` in rationals (Gauss-Jordan); None when
    singular.

    >>> fraction_solve([[1, 4], [8, 3]], [1, 2])
    [Fraction(5, 29), Fraction(6, 29)]
    """
    n = len(A)
    M = [[Fraction(v) for v in row] + [Fraction(v)] for row, v in zip(A, b)]
    for c in range(n):
        p = next((r for r in range(c, n) if M[r][c] != 0), None)
        if p is None:
            return None
        M[c], M[p] = M[p], M[c]
        for r in range(n):
            if r != c and M[r][c] != 0:
                f = M[r][c] / M[c][c]
                M[r] = [a - f * e for a, e in zip(M[r], M[c])]
    return [M[r][n] / M[r][r] for r in range(n)]
