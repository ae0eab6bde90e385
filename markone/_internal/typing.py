"""Type aliases of markone's public API (for annotations only).

>>> from markone._internal.typing import Seed
>>> Seed  # doctest: +ELLIPSIS
typing.Union[int, ...Generator, ...SeedSequence, NoneType]
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from fractions import Fraction
from typing import Any, Union

import numpy as np

__all__ = ["ArrayLike", "Seed", "Order", "Rational", "Label", "JSONDict", "PathLike"]

#: Anything ``numpy.asarray`` turns into numbers (lists, arrays, DataFrames; with
#: ``exact=True`` also Fractions and strings). The checker sees ``Any``: every public
#: function converts and validates it first, and its body works on the array.
ArrayLike = Any
#: ``seed=``: an int, a Generator, a SeedSequence, or None for fresh entropy.
Seed = Union[int, np.random.Generator, np.random.SeedSequence, None]
#: ``order=``: "given", "shuffle" or an explicit stream of example indices.
Order = Union[str, Sequence[int], np.ndarray]
#: A step size or constant: a real number, a Fraction, or a rational string ("1/2").
Rational = Union[float, Fraction, str]
#: A class label (any hashable value: numbers, strings).
Label = object
#: A JSON object as Python reads it: configurations, task specs, results, documents.
JSONDict = dict[str, Any]
#: A file or folder path: a string or a ``pathlib.Path``.
PathLike = Union[str, "os.PathLike[str]"]
