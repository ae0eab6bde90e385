"""The verifiers' searches keep small work uncompiled (issue 38): the longest path of
a small mistake graph runs as plain Python, a large one compiled, with the same
answer; numba is not imported for a small worst-order search."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import verify.adversary
from markone._internal.jit import compiled


def _dag(rng, n):
    """A random DAG on ``n`` nodes (edges go from lower to higher numbers, node 0 the
    source of some) with repeated edges."""
    m = int(rng.integers(0, 4 * n))
    a, b = rng.integers(0, n, (2, m))
    keep = a != b
    src, dst = np.minimum(a, b)[keep], np.maximum(a, b)[keep]
    return src.astype(np.int64), dst.astype(np.int64)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 40))
def test_longest_path_is_the_same_plain_and_compiled_hypo(seed, n):
    src, dst = _dag(np.random.default_rng(seed), n)
    plain = verify.adversary._longest_path(n, src, dst)
    fast = compiled(verify.adversary._longest_path)(n, src, dst)
    assert [np.asarray(v).tolist() for v in plain] == [np.asarray(v).tolist() for v in fast]


@pytest.mark.parametrize("limit", [0, 10**9])
def test_worst_order_is_the_same_either_way(monkeypatch, limit):
    from verify.adversary import small_margin_lattice, worst_order

    X, y = small_margin_lattice(7, 2, 4, draws=60, seed=5)
    reference = worst_order(X, y, method="exhaustive", progress=False)
    monkeypatch.setattr(verify.adversary, "_PLAIN_EDGES", limit)
    again = worst_order(X, y, method="exhaustive", progress=False)
    assert (again.order, again.mistakes) == (reference.order, reference.mistakes)


def test_a_small_worst_order_search_does_not_import_numba():
    code = """
import json, sys
from verify.adversary import small_margin_lattice, worst_order
X, y = small_margin_lattice(7, 2, 4, draws=60, seed=5)
a = worst_order(X, y, method="exhaustive", progress=False)
print(json.dumps([a.mistakes, "numba" in sys.modules]))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    mistakes, numba_loaded = json.loads(out.stdout.splitlines()[-1])
    assert mistakes > 0 and numba_loaded is False
