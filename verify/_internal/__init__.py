"""verify's own helpers, shared by its modules and by no other package.
No other package imports them (``tests/design/test_import_graph.py``): what ``sims``
needs of ``verify`` is public.

Modules
-------
``basis``
    the separability LP's own basis solved exactly (FLINT): a vertex or duals.
``budget``
    work budgets, timeouts and the words of a stopped search.
``cuts``
    the cutting-plane LP of :mod:`verify.separability`.
``dixon``
    square integer systems solved exactly by p-adic lifting on float BLAS (FLINT as
    the fallback).
``exact``
    floats taken as the exact numbers they are: exact dot products, error bounds.
``leastsq``
    Gordan certificates from least-squares weights.
``memory``
    the memory a computation will need, estimated before it allocates.
``novikoff``
    Novikoff's bound ``(R / gamma)**2`` rounded up: its one definition.
``wolfe_exact``
    Wolfe's minimum-norm-point algorithm in rationals.
"""

__all__ = []  # type: list[str]
