"""sims.cluster.solve_over_primes: one prime per task, the same answers wherever."""

import numpy as np
import pytest

from sims.cluster import solve_over_primes
from verify.modular import default_primes, solve_modulo


def system(d=60, seed=0):
    rng = np.random.default_rng(seed)
    return rng.integers(-9, 10, size=(d, d)), rng.integers(-9, 10, size=d)


def as_lists(found):
    return {p: None if x is None else x.tolist() for p, x in found.items()}


def test_each_prime_is_solve_modulo_in_the_given_order():
    A, b = system()
    primes = [*default_primes(3), 5]
    found = solve_over_primes(A, b, primes)
    assert list(found) == primes
    assert as_lists(found) == as_lists({p: solve_modulo(A, b, p) for p in primes})


def test_two_local_workers_give_the_same_answers():
    A, b = system()
    primes = default_primes(4)
    assert as_lists(solve_over_primes(A, b, primes, workers=2)) == as_lists(
        solve_over_primes(A, b, primes))


@pytest.mark.slow   # two worker processes started; docs/sims.md's doctest runs a
def test_a_dask_local_cluster_of_two_processes_gives_the_same_answers():   # cluster
    dist = pytest.importorskip("dask.distributed")
    A, b = system(30)
    primes = default_primes(3)
    with dist.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                           dashboard_address=None) as cluster:
        on_dask = solve_over_primes(A, b, primes, dask=cluster.scheduler_address)
    assert as_lists(on_dask) == as_lists(solve_over_primes(A, b, primes))


@pytest.mark.parametrize("primes, match", [([7, 7], "distinct"), ([7, 9], "prime")])
def test_bad_primes_are_refused_before_any_task(primes, match):
    with pytest.raises(ValueError, match=match):
        solve_over_primes([[1]], [1], primes, workers=2)
