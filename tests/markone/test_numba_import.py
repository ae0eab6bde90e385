"""numba is imported without the rest of ``scipy.linalg`` (issue 38).

numba's import checks SciPy's BLAS by importing ``scipy.linalg.cython_blas``, which
ran all of ``scipy.linalg`` first (a third of a first compiled call);
:func:`markone._internal.jit.import_numba` loads that one module alone. Each check
runs in a new interpreter (what is imported is the question); nothing here times.
"""

from __future__ import annotations

import json
import subprocess
import sys

#: numba loaded the markone way, BLAS used from compiled code, then scipy.linalg
#: imported by the user: the package is whole and bound to the module numba saw.
AFTER = """
import json, sys
import numpy as np
from markone._internal import jit
numba = jit.load_numba()
seen = {"plus_one": numba.njit(lambda x: x + 1)(1)}   # numba's target is set up
dot = numba.njit(lambda a, b: np.dot(a, b))
seen["dot"] = dot(np.arange(4.0).reshape(2, 2), np.ones(2)).tolist()
seen["linalg_before"] = "scipy.linalg" in sys.modules
import scipy.linalg
import scipy.linalg.cython_blas as blas
seen["bound"] = scipy.linalg.cython_blas is blas is sys.modules["scipy.linalg.cython_blas"]
seen["solve"] = scipy.linalg.solve(np.diag([2.0, 4.0]), np.ones(2)).tolist()
seen["finders"] = sum(type(f).__name__ == "_BindBlas" for f in sys.meta_path)
print(json.dumps(seen))
"""

#: scipy.linalg imported before numba: nothing is done beside it.
BEFORE = """
import json, sys
import scipy.linalg
from markone._internal import jit
jit.load_numba()
print(json.dumps([sys.modules["scipy.linalg.cython_blas"] is __import__("scipy.linalg.cython_blas",
                  fromlist=["x"]), len([f for f in sys.meta_path
                                        if type(f).__name__ == "_BindBlas"])]))
"""


def _run(code, cwd):
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=cwd)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_numba_loads_without_scipy_linalg_and_blas_still_works(tmp_path):
    assert _run(AFTER, tmp_path) == {"plus_one": 2, "dot": [1.0, 5.0], "linalg_before": False, "bound": True,
                           "solve": [0.5, 0.25], "finders": 0}


def test_a_process_that_imported_scipy_linalg_first_is_left_as_it_is(tmp_path):
    assert _run(BEFORE, tmp_path) == [True, 0]
