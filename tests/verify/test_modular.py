"""verify.modular.solve_modulo: A^{-1} b mod p from one LU modulo p."""

from fractions import Fraction

import numpy as np
import pytest

from verify._internal.dixon import flint_solve
from verify.modular import PRIME_BITS, default_primes, solve_modulo


def residues(x, p):
    """The exact rational solution ``x`` modulo ``p`` (its denominators invertible)."""
    return [f.numerator * pow(f.denominator, -1, p) % p for f in x]


@pytest.mark.parametrize("d, seed", [(1, 0), (7, 1), (40, 2), (100, 3)])   # plain LU
def test_the_residues_are_the_exact_solution_modulo_p(d, seed):
    rng = np.random.default_rng(seed)
    A = rng.integers(-9, 10, size=(d, d))
    b = rng.integers(-50, 51, size=d)
    exact = flint_solve(A, b.tolist())
    for p in [*default_primes(2), 101]:
        x = solve_modulo(A, b, p)
        assert x.dtype == np.int64 and x.tolist() == residues(exact, p)


def test_a_prime_dividing_the_determinant_gives_none():
    A = [[6, 1], [0, 5]]   # det 30
    assert solve_modulo(A, [1, 1], 5) is None and solve_modulo(A, [1, 1], 3) is None
    assert solve_modulo(A, [1, 1], 7).tolist() == residues(
        [Fraction(4, 30), Fraction(1, 5)], 7)


def test_huge_entries_are_exact():
    A = [[2**70 + 1, 3], [5, 2**65]]
    b = [2**80, -1]
    p = default_primes(1)[0]
    assert solve_modulo(A, b, p).tolist() == residues(flint_solve(A, b), p)


@pytest.mark.parametrize("A, b, p, match", [
    ([[1, 2]], [1], 7, "square"),
    ([[1]], [1, 2], 7, "square"),
    ([[1.5]], [1], 7, "integers"),
    ([[1]], [1], 8, "prime below"),
    ([[1]], [1], 2**PRIME_BITS + 17, "prime below"),   # a prime, too large
    ([[1]], [1], True, "prime below"),
])
def test_bad_input_is_named(A, b, p, match):
    with pytest.raises(ValueError, match=match):
        solve_modulo(A, b, p)
