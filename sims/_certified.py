"""A damaged Mark I decided exactly, with one certificate file per verdict.

A Mark I learns a task when every R-unit does: R-unit ``r``'s targets must be
separable, through the origin, on the A-unit patterns of its inputs
(:func:`verify.machine.machine_task`). Several such *parts* (one per R-unit, or one per
R-unit of several fault plans) are stacked into one dataset, block-diagonally: part
``k``'s figures are the rows of block ``k`` and see only its own columns. A weight
vector separates the stack exactly when its blocks separate the parts, and a Gordan
certificate of one part (``lambda >= 0``, not all zero, ``sum lambda_i y_i x_i = 0``),
placed on that part's rows, is one of the stack. So *every part is learnable* and
*some part is not* are each one separability claim about one dataset, written by
:func:`verify.certificate.certificate_document` (no intercept, sparse ``csr``
layout) and re-checked from scratch by ``markone verify check``.

>>> import numpy as np
>>> parts = [(np.array([[1, 0], [0, 1]]), np.array([1, -1])),   # separable
...          (np.array([[1], [1]]), np.array([1, -1]))]          # the same figure twice
>>> X, y = stack(parts)
>>> X.shape, y.tolist()
((4, 3), [1, -1, 1, -1])
>>> v = decide(parts)
>>> v.separable, v.part, sorted(v.certificate)
(False, 1, [2, 3])
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from markone._internal.typing import JSONDict
from verify.certificate import certificate_document

__all__ = ["StackedVerdict", "machine_parts", "stack", "decide", "certificate"]

#: A part: the 0/1 patterns (n, d) of one R-unit's inputs and its +/-1 targets (n,).
Part = tuple[np.ndarray, np.ndarray]


@dataclasses.dataclass(frozen=True)
class StackedVerdict:
    """Whether every part of a stack is separable, in the shape a certificate file
    is written from (:func:`verify.certificate.certificate_document`).

    ``witness`` (every part separable) is the concatenation of the parts' exact
    witnesses; ``certificate`` (not) maps stacked rows to their weights; ``part`` is the
    first part found not separable, ``None`` when ``separable`` is not False.
    ``separable`` is ``None`` when a part was not decided within its work limits.
    """

    separable: bool | None
    witness: tuple | None
    certificate: dict | None
    part: int | None
    message: str
    method: str = "verify.machine: each R-unit's task, stacked block-diagonally"
    intercept: bool = False


def machine_parts(task: Any) -> list[Part]:
    """The parts of a :class:`verify.machine.task.MachineTask`: one per R-unit, its
    figures' patterns on its inputs (the A-units wired to it whose motors turn)."""
    return [(task.patterns[:, cols], task.targets[:, r])
            for r, cols in enumerate(task.inputs)]


def stack(parts: Sequence[Part]) -> tuple[Any, np.ndarray]:
    """The block-diagonal stack of ``parts``: a ``scipy.sparse`` CSR matrix of int64
    and the +/-1 labels (see the module doc)."""
    import scipy.sparse

    if not parts:
        raise ValueError("parts is empty: there is no task to stack.")
    X = scipy.sparse.block_diag([np.asarray(P, dtype=np.int64) for P, _ in parts],
                                format="csr")
    y = np.concatenate([np.asarray(t, dtype=np.int64) for _, t in parts])
    return X, y


def decide(parts: Sequence[Part]) -> StackedVerdict:
    """Decide every part exactly (:func:`verify.machine.faults.check_r_unit_task`);
    stop at the first that is not separable, whose certificate is the stack's."""
    from verify.machine.faults import check_r_unit_task

    witness: list[Fraction] = []
    offset = 0
    for k, (P, t) in enumerate(parts):
        v = check_r_unit_task(P, t)
        if v.separable is None:
            return StackedVerdict(None, None, None, None, f"part {k} was not decided "
                                  f"within its work limits ({v.stopped_by or v.message})")
        if v.separable is False:
            assert v.certificate is not None  # a decided "no" carries its certificate
            cert = {offset + int(i): Fraction(lam) for i, lam in v.certificate.items()}
            return StackedVerdict(False, None, cert, k, f"part {k} is not separable: "
                                  f"{v.message}")
        assert v.witness is not None  # a decided "yes" carries its witness
        witness.extend(Fraction(w) for w in v.witness)
        offset += len(t)
    return StackedVerdict(True, tuple(witness), None, None,
                          f"each of the {len(parts)} parts is separable")


def certificate(parts: Sequence[Part], verdict: StackedVerdict,
                source: JSONDict) -> JSONDict:
    """The certificate document of a decided ``verdict`` on the stack of ``parts``
    (what ``markone verify check`` reads), with ``source`` saying what it is about."""
    X, y = stack(parts)
    return certificate_document(X, y, verdict, source=source, layout="csr")
