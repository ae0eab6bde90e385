"""markone's internal layer: what ``verify`` and ``sims`` share with ``markone``.

This package is private to the markone distribution (no stability promise to users),
and it is the *only* private part of ``markone`` that the sibling packages ``verify``
and ``sims`` may import; everything else they use is public (``markone.train``,
``markone.datasets``, ``markone.online``, ``markone.hardware``, ...). The rule is
checked by ``tests/design/test_import_graph.py``, which also forbids import cycles.

Modules, one concern each:

- :mod:`~markone._internal.data`: the one data boundary: ``as_dataset(X, y)`` checks
  labelled inputs once and returns a ``Dataset`` that carries their float64 view,
  exact rows, signed integer rows and data hash (``sha256``), each made on first use.
- :mod:`~markone._internal.rows`: float64 rows made from checked inputs (``[X, c]``,
  the signed rows ``y_i [x_i, c]``).
- :mod:`~markone._internal.datahash`: the one definition of the data hash that names
  exact labelled data in certificates and results.
- :mod:`~markone._internal.validation`: arrays, labels, seeds, scalars checked at the
  boundary (``check_matrix``, ``encode_binary_labels``, ``as_generator``, ...).
- :mod:`~markone._internal.exact`: exact numbers (float64 exactness, rationals,
  integer rows; number strings read within a digit limit, ints of any size written).
- :mod:`~markone._internal.typing`: the shared type aliases (``ArrayLike``, ``Seed``, ...).
- :mod:`~markone._internal.io`: atomic writes, JSON with Fractions, all-or-nothing folders.
- :mod:`~markone._internal.progress`: tqdm progress bars, quiet off a terminal.
- :mod:`~markone._internal.signals`: SIGTERM as an exception that cannot be lost
  (``sigterm_raises``, and ``raise_if_terminated`` before output is committed).
- :mod:`~markone._internal.style`: the one figure style and its auditor.
- :mod:`~markone._internal.parallel`: the process/Dask executor for sweeps and fleets.
- :mod:`~markone._internal.html`: rich notebook display of results.
- :mod:`~markone._internal.checks`: shared result checks and warnings.
- :mod:`~markone._internal.sources`: the one bibliography (``SOURCES``) and citation keys
  checked and linked (``check_keys``, ``link_citations``).
- :mod:`~markone._internal.lazy`: lazy attribute exports for package ``__init__``\\ s.
- :mod:`~markone._internal.registry`: tables that code extends with new kinds (variants, faults).
- :mod:`~markone._internal.jit`: kernels written as plain Python, compiled by numba on
  demand (numba is imported by the first call big enough to need it).
- :mod:`~markone._internal.jit_cache`: where compiled kernels are kept (the user's
  cache folder, keyed on the sources' content; never beside the installed modules).

Nothing here imports ``verify``, ``sims`` or ``markone.cli``.
"""
