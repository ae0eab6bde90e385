"""Arrays of whole numbers sent compactly between processes, restored exactly.

A fleet machine's :class:`~markone.hardware.MachineRun` travels from a worker to the
caller by pickle: its weights (float64 motor steps), wiring (int64 S-unit indices) and
counts are about 110 kB, nearly all whole numbers in a small range. :func:`pack`
stores such an array in the smallest integer type that holds every value, with its
own dtype; :func:`unpack` gives back an equal array of that dtype, bit for bit. Any
other array (fractions, -0.0, NaN, inf, other dtypes) travels as it is.

>>> import numpy as np
>>> w = np.array([[0.0, -3.0, 50.0]])
>>> packed = pack(w)
>>> packed.values.dtype.name, packed.dtype
('int8', '<f8')
>>> restored = unpack(packed)
>>> restored.dtype.name, bool((restored == w).all())
('float64', True)
>>> unpack(pack(np.array([-0.0, 0.5]))).tolist()   # not packable: as it is
[-0.0, 0.5]
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

__all__ = ["Packed", "pack", "unpack"]

#: The integer types a packed array may take, smallest first, with their bounds
#: (``np.iinfo`` built once: building it per call took a fifth of a fleet machine's
#: packing).
_SMALL = tuple((small, int(np.iinfo(small).min), int(np.iinfo(small).max))
               for small in (np.int8, np.int16, np.int32))


class Packed(NamedTuple):
    """An array's ``values`` in a small integer type and its own ``dtype`` (str)."""

    values: np.ndarray
    dtype: str


def pack(value: Any) -> Any:
    """``value`` as a :class:`Packed` when it is a float64 or int64 array of whole
    numbers (no -0.0) that a smaller integer type holds exactly; else ``value``.

    Six passes over the array: its least and greatest values (NaN or an infinity
    among them leaves it as it is), the cast to the small type, and, for floats, the
    cast back compared bit for bit with the array (a fraction or a -0.0 differs), so
    that only an array :func:`unpack` restores bit for bit is packed.
    """
    if not isinstance(value, np.ndarray) or value.dtype not in (np.float64, np.int64) \
            or value.size == 0:
        return value
    lo, hi = value.min(), value.max()   # NaN, -inf or inf: no bound below holds them
    for small, least, most in _SMALL:
        if least <= lo and hi <= most:
            values = value.astype(small)
            if value.dtype == np.float64 and not np.array_equal(
                    values.astype(np.float64).view(np.int64), value.view(np.int64)):
                return value   # fractions or -0.0: not whole numbers, bit for bit
            return Packed(values, value.dtype.str)
    return value


def unpack(value: Any) -> Any:
    """The array :func:`pack` packed (anything else as it is)."""
    if isinstance(value, Packed):
        return value.values.astype(np.dtype(value.dtype))
    return value
