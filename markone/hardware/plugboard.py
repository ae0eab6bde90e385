"""The plugboard (random S->A wiring) and the 512 A-units behind it.

The wiring is drawn from a seed, as Rosenblatt's team drew it from a table of random
numbers: each A-unit gets ``n_excitatory`` (+1) and ``n_inhibitory`` (-1) connections
to distinct S-units, and no S-unit feeds more than ``max_fanout`` A-units. An A-unit
fires (output 1) when its net input, active excitatory minus active inhibitory S-units,
reaches the threshold ``theta``.

Examples
--------
>>> import numpy as np
>>> from markone.hardware.params import MarkIParams
>>> p = MarkIParams(retina_shape=(2, 2), n_a_units=3, n_excitatory=1, n_inhibitory=1)
>>> board = wire(p, seed=0)
>>> board.excitatory.shape, bool(np.all(board.excitatory != board.inhibitory))
((3, 1), True)
>>> net_input(board, np.ones((1, 4), dtype=np.uint8)).tolist()   # +1 - 1 each
[[0, 0, 0]]
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from markone._internal.jit import compiled, kernel, plain_form
from markone._internal.typing import Seed
from markone._internal.validation import as_generator
from markone._loops import running_sums
from markone.hardware.runits import numbered
from markone.hardware.trial import STEP_OPS, PLAIN, score, trials_of

if TYPE_CHECKING:
    from markone.hardware.params import MarkIParams

__all__ = ["Wiring", "wire", "wire_many", "net_input", "fire", "calibrate_theta", "theta_for",
           "connection_matrix", "Pattern", "PatternCache", "calibration", "Calibration"]


@dataclasses.dataclass(frozen=True, eq=False)
class Wiring:
    """Which S-units feed each A-unit: ``excitatory`` (n_a, n_exc) and
    ``inhibitory`` (n_a, n_inh) index arrays into the flat retina of ``n_s`` cells."""

    excitatory: np.ndarray
    inhibitory: np.ndarray
    n_s: int
    inputs: np.ndarray = dataclasses.field(init=False, repr=False)
    signs: np.ndarray = dataclasses.field(init=False, repr=False)

    def __post_init__(self):
        # every A-unit's inputs side by side, and their signs: net = s[inputs] @ signs
        object.__setattr__(self, "inputs", np.concatenate(
            (self.excitatory, self.inhibitory), axis=1))
        signs = np.ones(self.excitatory.shape[1] + self.inhibitory.shape[1])
        signs[self.excitatory.shape[1]:] = -1.0
        object.__setattr__(self, "signs", signs)

    @property
    def fanout(self) -> np.ndarray:
        """How many A-units each S-unit feeds (both kinds of connection)."""
        return np.bincount(np.concatenate([self.excitatory.ravel(),
                                           self.inhibitory.ravel()]), minlength=self.n_s)


def wire(params: MarkIParams, seed: Seed = None) -> Wiring:
    """Draw the plugboard's S->A wiring for ``params`` from ``seed``.

    A-unit by A-unit, each takes ``n_excitatory + n_inhibitory`` distinct S-units
    among those with room left (fewer than ``max_fanout`` connections), exactly as
    ``rng.choice(free, size=k, replace=False)`` would draw them: the random words
    are taken from the generator in a few large draws (:func:`_random_words`) and
    turned into picks by a compiled loop (:func:`_draw_picks`) that repeats
    numpy's algorithm, so a seed gives the same wiring, and leaves a given
    generator in the same state, as one ``choice`` call per A-unit would (from a
    seed, the words are drawn ahead in one draw: the same picks).

    >>> from markone.hardware.params import MarkIParams
    >>> p = MarkIParams(retina_shape=(2, 3), n_a_units=4, n_excitatory=2,
    ...                 n_inhibitory=1, max_fanout=3)
    >>> board = wire(p, seed=1)
    >>> board.excitatory.tolist(), board.inhibitory.ravel().tolist()
    ([[2, 1], [4, 5], [2, 3], [3, 5]], [4, 0, 1, 1])
    >>> int(board.fanout.max())   # no S-unit feeds more than max_fanout A-units
    3
    """
    rng = as_generator(seed)
    # a generator of its own (from a seed) is left where nobody reads it: its words
    # are drawn ahead, so that one draw of them usually serves every A-unit
    ahead = 0 if isinstance(seed, np.random.Generator) else \
        params.n_excitatory + params.n_inhibitory
    n_s = params.retina_shape[0] * params.retina_shape[1]
    k = params.n_excitatory + params.n_inhibitory
    room = np.full(n_s, params.max_fanout, dtype=np.int64)
    picks = np.empty((params.n_a_units, k), dtype=np.int64)
    words = np.empty(0, dtype=np.uint32)
    # about two scalar steps (a random draw and a pick) per connection
    draw = PLAIN.kernel(_draw_picks, trials_of(2 * picks.size * STEP_OPS))
    a, used, n_free = draw(words, room, picks, 0)
    while a < len(picks):   # it needs more words (a unit needs at least one more)
        if n_free < k:   # only when max_fanout is nearly exhausted
            raise ValueError(
                f"max_fanout(={params.max_fanout}) left only {n_free} free S-units "
                f"for {numbered('A-unit', a)}, which needs {k} distinct ones; raise "
                "max_fanout."
            )
        words = words[used:]   # the words of A-unit a on, and as many more as
        words = np.concatenate([words, _random_words(    # the rest surely take
            rng, (len(picks) - a) * (_fewest_words(n_free, k) + ahead) - len(words),
            own=ahead > 0)])
        a, used, n_free = draw(words, room, picks, a)
    return Wiring(picks[:, :params.n_excitatory].copy(),
                  picks[:, params.n_excitatory:].copy(), n_s)


def wire_many(params: MarkIParams, seeds: Sequence[int]) -> list[Wiring]:
    """``[wire(params, seed) for seed in seeds]``, drawn for all the seeds at once.

    The machines of a fleet draw their wirings side by side: each A-unit's picks are
    made for every seed by one numpy step (:func:`_draw_side_by_side`), the same
    picks from the same random words as :func:`wire`'s loop, so that many wirings
    cost about what one costs and no compiler is needed. A seed whose draw this
    cannot follow (a retina large enough for numpy's tail shuffle, an S-unit with
    too little room left, words beyond those drawn ahead) is drawn by :func:`wire`.

    >>> from markone.hardware.params import MarkIParams
    >>> p = MarkIParams(retina_shape=(2, 3), n_a_units=4, n_excitatory=2,
    ...                 n_inhibitory=1, max_fanout=3)
    >>> [w.excitatory.tolist() for w in wire_many(p, [1, 2])] == [
    ...     wire(p, s).excitatory.tolist() for s in (1, 2)]
    True
    """
    seeds = list(seeds)
    n_s = params.retina_shape[0] * params.retina_shape[1]
    k = params.n_excitatory + params.n_inhibitory
    if not seeds or n_s > _TAIL_SHUFFLE_ABOVE or k < 1:
        return [wire(params, seed) for seed in seeds]
    # every A-unit takes 2k - 1 words but for the rare rejected one: some to spare
    need = params.n_a_units * (2 * k - 1) + 64
    words = np.array([_random_words(as_generator(seed), need, own=True)
                      for seed in seeds])
    picks, good = _draw_side_by_side(words, np.full(n_s, params.max_fanout), k,
                                     params.n_a_units)
    return [Wiring(picks[m, :, :params.n_excitatory].copy(),
                   picks[m, :, params.n_excitatory:].copy(), n_s)
            if good[m] else wire(params, seed) for m, seed in enumerate(seeds)]


def _draw_side_by_side(words, room0, k, n_a):
    """:func:`_draw_picks` for every row of ``words`` (one machine's random words
    each) at once, Floyd's algorithm only (no tail shuffle): ``(picks (M, n_a, k),
    good (M,))``, ``good[m]`` False where machine ``m``'s draw needed more words
    than its row holds or met an S-unit set with fewer than ``k`` free (its picks
    are then not its wiring)."""
    n_m = len(words)
    rows = np.arange(n_m)
    room = np.tile(room0, (n_m, 1))
    free = np.tile(np.flatnonzero(room0 > 0), (n_m, 1))
    n_free = np.full(n_m, free.shape[1])
    cursor = np.zeros(n_m, dtype=np.int64)
    good = n_free >= k
    picks = np.zeros((n_m, n_a, k), dtype=np.int64)
    shuffle_highs = np.arange(k - 1, 0, -1)
    for a in range(n_a):
        # the bounds of its 2k - 1 draws: Floyd's j = n-k .. n-1, then the shuffle's
        highs = np.hstack([n_free[:, None] - k + np.arange(k),
                           np.broadcast_to(shuffle_highs, (n_m, k - 1))])
        draws = _below_rows(words, cursor, highs, good)
        idx = np.empty((n_m, k), dtype=np.int64)
        for t in range(k):   # Floyd: a value seen already is replaced by j itself
            seen = (idx[:, :t] == draws[:, t, None]).any(axis=1)
            idx[:, t] = np.where(seen, highs[:, t], draws[:, t])
        for s, i in enumerate(shuffle_highs):   # numpy's _shuffle_int of the k picks
            j = draws[:, k + s]
            idx[:, i], idx[rows, j] = idx[rows, j], idx[:, i].copy()
        picks[:, a] = np.take_along_axis(free, idx, axis=1)
        room[rows[:, None], picks[:, a]] -= 1   # k distinct S-units a machine
        for m in np.flatnonzero((room[rows[:, None], picks[:, a]] == 0).any(axis=1)):
            open_ = np.flatnonzero(room[m] > 0)   # an S-unit ran out of room
            free[m, :open_.size], n_free[m] = open_, open_.size
        good &= n_free >= k
    return picks, good


def _below_rows(words, cursor, highs, good):
    """:func:`_below` of each bound ``highs[m, t]`` in turn, row ``m`` from its
    words ``words[m, cursor[m]:]`` (``cursor`` advanced past the words taken): one
    word per draw for every row at once, and the scalar loop for a row where a word
    was rejected (once in some ten million draws). A row that runs out of words is
    marked not ``good`` (its numbers are then 0)."""
    n_m, n_t = highs.shape
    out = np.zeros((n_m, n_t), dtype=np.int64)
    fits = good & (cursor + n_t <= words.shape[1])
    high = np.where(fits[:, None] & (highs > 0), highs, 0).astype(np.uint64)
    span = high + np.uint64(1)
    taken = words[np.arange(n_m)[:, None], np.minimum(
        cursor[:, None] + np.arange(n_t), words.shape[1] - 1)].astype(np.uint64)
    product = taken * span
    low = product & np.uint64(0xFFFFFFFF)
    # a bound of 0 takes no word: those rows' later words shift, the scalar loop
    plain = fits & ((low < (np.uint64(0xFFFFFFFF) - high) % span)
                    | (highs == 0)).any(axis=1)
    out[:] = (product >> np.uint64(32)).astype(np.int64)
    cursor[fits & ~plain] += n_t
    for m in np.flatnonzero(plain | (good & ~fits)):
        at = cursor[m:m + 1]
        for t in range(n_t):
            out[m, t] = _below(words[m], at, highs[m, t])
            if out[m, t] < 0:
                good[m] = False
                break
    return out


def _random_words(rng, n, own=False):
    """The generator's next ``n`` 32-bit words (at least one): the numbers its
    ``integers``/``choice`` draws are made of, in the order they would take them.

    ``own``: nobody else draws from ``rng`` (made from a seed for the caller
    alone), so that when it is numpy's default PCG64 its 64-bit outputs are taken
    raw (about twice as fast), each split into two words as ``integers`` splits
    them, low half first (on a little-endian machine): the same words, and one more
    when ``n`` is odd (the half ``integers`` would keep for its next call).

    >>> a, b = as_generator(7), as_generator(7)
    >>> words = [_random_words(a, n, own=True) for n in (3, 2)]
    >>> np.concatenate(words).tolist() == _random_words(b, 6).tolist()
    True
    """
    if own and sys.byteorder == "little" and type(rng.bit_generator) is np.random.PCG64:
        return rng.bit_generator.random_raw(-(-max(n, 1) // 2)).view(np.uint32)
    return rng.integers(0, 2**32, size=max(n, 1), dtype=np.uint32)


#: ``Generator.choice(n, k, replace=False)`` draws by a tail shuffle of ``range(n)``
#: when ``n`` exceeds this and ``k > n // _TAIL_CUTOFF``, else by Floyd's algorithm
#: (numpy's ``_generator.pyx``, the shuffled case).
_TAIL_SHUFFLE_ABOVE, _TAIL_CUTOFF = 10_000, 50


def _fewest_words(n_free, k):
    """The fewest random words any later A-unit's ``choice`` of ``k`` among at most
    ``n_free`` S-units takes (so a draw of that many per A-unit never takes a word
    the one-call-per-A-unit loop would not)."""
    return 2 * k - 2 if n_free <= _TAIL_SHUFFLE_ABOVE else k - 1


@kernel()
def _draw_picks(words, room, picks, a):
    """Fill ``picks[a:]`` (``k`` distinct S-units for each A-unit) from the S-units
    with ``room`` left, decrementing it, as ``picks[a] = rng.choice(free, size=k,
    replace=False)`` with ``free = np.flatnonzero(room > 0)`` would, the generator's
    random ``words`` taken in turn. Stops at the first A-unit that has fewer than
    ``k`` free S-units or that needs more words than are left (it is not drawn).
    Returns ``(that A-unit (or the end), words used before it, its free S-units)``."""
    n_s, k = room.size, picks.shape[1]
    free, idx = np.empty(n_s, dtype=np.int64), np.empty(max(n_s, k), dtype=np.int64)
    cursor = np.zeros(1, dtype=np.int64)
    n_free, full = _free(room, free), False
    while a < picks.shape[0]:
        if full:   # an S-unit ran out of room: the free ones again, ascending
            n_free, full = _free(room, free), False
        used = cursor[0]
        if n_free < k or not _choose(words, cursor, n_free, k, idx):
            return a, used, n_free
        first = n_free - k if n_free > _TAIL_SHUFFLE_ABOVE and \
            k > n_free // _TAIL_CUTOFF else 0
        for p in range(k):
            s = free[idx[first + p]]
            picks[a, p] = s
            room[s] -= 1
            full |= room[s] == 0
        a += 1
    return a, cursor[0], n_free


@kernel()
def _free(room, free):
    """``free[:n]`` = the S-units with room left, ascending; returns ``n``."""
    n = 0
    for s in range(room.size):
        if room[s] > 0:
            free[n] = s
            n += 1
    return n


@kernel()
def _choose(words, cursor, n, k, idx):
    """``rng.choice(n, size=k, replace=False)`` (shuffled) from ``words[cursor:]``:
    into ``idx[:k]``, or ``idx[n - k:n]`` after a tail shuffle. Returns False when
    the words ran out."""
    if n > _TAIL_SHUFFLE_ABOVE and k > n // _TAIL_CUTOFF:   # tail shuffle
        for i in range(n):
            idx[i] = i
        return _shuffle(words, cursor, idx[:n], max(n - k, 1))
    for t in range(k):   # Floyd's algorithm: j = n-k .. n-1, each draw in [0, j]
        j = n - k + t
        val = _below(words, cursor, j)
        if val < 0:
            return False
        seen = False
        for u in range(t):
            seen |= idx[u] == val
        idx[t] = j if seen else val
    return _shuffle(words, cursor, idx[:k], 1)


@kernel()
def _shuffle(words, cursor, data, first):
    """numpy's ``_shuffle_int``: swap ``data[i]`` with ``data[j]``, ``j`` drawn in
    ``[0, i]``, for ``i`` from the last down to ``first``. False when the words ran
    out."""
    for i in range(data.size - 1, first - 1, -1):
        j = _below(words, cursor, i)
        if j < 0:
            return False
        data[i], data[j] = data[j], data[i]
    return True


@kernel()
def _below(words, cursor, high):
    """A number in ``[0, high]`` (``high < 2**32 - 1``) as numpy's
    ``random_bounded_uint64`` draws it, by Lemire's multiply-and-reject on the words
    from ``cursor`` on (none when ``high`` is 0); -1 when the words ran out."""
    if high == 0:
        return 0
    span = np.uint64(high) + np.uint64(1)
    threshold = span   # an upper bound of the true one, computed only if needed
    while cursor[0] < words.size:
        m = np.uint64(words[cursor[0]]) * span
        cursor[0] += 1
        low = m & np.uint64(0xFFFFFFFF)
        if low < threshold:
            threshold = (np.uint64(0xFFFFFFFF) - np.uint64(high)) % span
        if low >= threshold:
            return np.int64(m >> np.uint64(32))
    return -1


def net_input(wiring: Wiring, s: np.ndarray) -> np.ndarray:
    """Net input of every A-unit: ``(n, n_a)`` int for S-states ``s`` of shape
    ``(n, n_s)`` (or ``(n_a,)`` for one state of shape ``(n_s,)``)."""
    return _net(wiring, s, np.int64)


def _net(wiring, s, dtype=np.float64):
    # small integers summed in float64: exact, in any order (and stored as ``dtype``);
    # summed figure-minor (the states transposed), so that the kernel's inner loop
    # runs over independent figures: no chain of dependent additions per A-unit
    s = np.asarray(s)
    flat = s.reshape(-1, s.shape[-1])
    states = np.empty((flat.shape[1], flat.shape[0]))
    states[:] = flat.T   # (n_s, n) float64, C order
    out = np.empty((wiring.inputs.shape[0], flat.shape[0]))
    PLAIN.kernel(_net_rows, trials_of(out.size * wiring.inputs.shape[1]))(
        states, wiring.inputs, wiring.signs, out)
    return np.ascontiguousarray(out.T, dtype=dtype).reshape(
        s.shape[:-1] + (wiring.inputs.shape[0],))


@kernel()
def _net_rows(states, inputs, signs, out):
    """``out[a, n] = sum_k states[inputs[a, k], n] * signs[k]``, summed over ``k``
    in order from +0.0: every A-unit's net input on figures ``n``, given the S-states
    transposed (``(n_s, n)``). The inner loop runs over the figures: independent
    sums, where a loop over ``k`` waits for each addition (about 3x slower)."""
    for a in range(inputs.shape[0]):
        row = out[a]
        for n in range(row.size):
            row[n] = 0.0
        for k in range(inputs.shape[1]):
            cells, sign = states[inputs[a, k]], signs[k]
            for n in range(row.size):
                row[n] += cells[n] * sign


#: figures whose net inputs the plain :func:`_net_rows` sums per numpy call (its
#: temporary holds this many times ``n_a * (n_excitatory + n_inhibitory)`` floats)
_NET_CHUNK = 128


@plain_form(_net_rows)
def _net_rows_plain(states, inputs, signs, out):
    for n in range(0, states.shape[1], _NET_CHUNK):
        part = states[:, n:n + _NET_CHUNK].T
        out[:, n:n + _NET_CHUNK] = running_sums(part[:, inputs] * signs).T


def fire(wiring: Wiring, s: np.ndarray, theta: int) -> np.ndarray:
    """A-unit outputs (uint8 0/1) for S-states ``s``: net input ``>= theta``."""
    return (_net(wiring, s) >= theta).astype(np.uint8)


class Pattern:
    """One A-unit pattern and what the trainer and the log need of it, each computed
    once (on first use) and shared by every presentation that settles on it.

    >>> pat = Pattern(np.array([1, 0, 1], dtype=np.uint8))
    >>> pat.x.tolist(), pat.active, pat.scores(np.array([[1.0, 2.0, 3.0]])).tolist()
    ([[1.0, 0.0, 1.0]], (0, 2), [4.0])
    >>> pat.masked(np.array([[True, True, False], [False, False, True]])).tolist()
    [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
    """

    __slots__ = ("a", "_x", "_units", "_masked", "_active")
    _x: np.ndarray | None
    _units: np.ndarray | None
    _masked: np.ndarray | None
    _active: tuple[int, ...] | None

    def __init__(self, a: np.ndarray) -> None:
        a.setflags(write=False)
        self.a = a
        self._x = self._units = self._masked = self._active = None

    @property
    def x(self) -> np.ndarray:
        """The outputs as a float64 row ``(1, n_a)``: the trainer's input."""
        if self._x is None:
            self._x = self.a.astype(np.float64)[None, :]
            self._x.flags.writeable = False
        return self._x

    @property
    def units(self) -> np.ndarray:
        """The indices of the A-units that fire, ascending (int64)."""
        if self._units is None:
            self._units = np.flatnonzero(self.a).astype(np.int64)
            self._units.flags.writeable = False
        return self._units

    def scores(self, weights: np.ndarray) -> np.ndarray:
        """Every R-unit's weighted sum over the active A-units (``weights`` is
        ``(n_r, n_a)``): the trial kernel's :func:`~markone.hardware.trial.score`,
        the same sums in the same order as the segment loop's."""
        out = np.empty(weights.shape[0])
        PLAIN.kernel(score)(weights, self.units, out)
        return out

    def masked(self, mask: np.ndarray) -> np.ndarray:
        """``x`` seen through each R-unit's source set: ``x * mask``, ``(n_r, n_a)``."""
        if self._masked is None:
            masked = self.x * mask
            masked.flags.writeable = False
            self._masked = masked
        return self._masked

    @property
    def active(self) -> tuple[int, ...]:
        """Indices of the A-units that fire, as the log records them."""
        if self._active is None:
            self._active = tuple(self.units.tolist())
        return self._active


class PatternCache:
    """The A-unit :class:`Pattern` of each distinct S-state, computed once.

    The A-units are a fixed function of the S-units (given the wiring and ``theta``),
    and a training set has few distinct settled images: the machine looks each one up
    instead of summing 512 A-units per presentation. A change of ``theta`` empties the
    cache; so does reaching ``limit`` entries (noisy photocells make every S-state new).
A primed S-state's :class:`Pattern` is made when it is first asked for (a fleet's
machine that runs in segments asks for none), and the outputs of the states primed
last are kept whole for :meth:`lookup`.

    >>> from markone.hardware.params import MarkIParams
    >>> p = MarkIParams(retina_shape=(2, 2), n_a_units=3, n_excitatory=1, n_inhibitory=1)
    >>> cache = PatternCache(wire(p, seed=0))
    >>> s = np.array([True, False, True, True])
    >>> cache.get(s, theta=1) is cache.get(s.copy(), theta=1), len(cache)
    (True, 1)
    >>> cache.prime(np.array([s, ~s, s]), theta=1); len(cache)
    2
    >>> bool((cache.get(~s, theta=1).a == fire(cache.wiring, ~s, 1)).all())
    True
    >>> cache.lookup(np.array([~s, s]), theta=1).tolist() == fire(
    ...     cache.wiring, np.array([~s, s]), 1).tolist()
    True
    >>> cache.lookup(np.array([[True, True, True, True]]), theta=1) is None   # not cached
    True
    """

    def __init__(self, wiring: Wiring, limit: int = 4096) -> None:
        self.wiring = wiring
        self.limit = limit
        self._theta: int | None = None
        #: each S-state's Pattern, or its outputs (a row) until one is asked for
        self._patterns: dict[bytes, Pattern | np.ndarray] = {}
        #: ``(theta, states, outputs)`` of the states :meth:`prime` had last, whole
        self._primed: tuple[int, np.ndarray, np.ndarray] | None = None
        #: ``(states, outputs)`` primed with their net inputs and not yet entered in
        #: the cache: entered (:meth:`_admit`) before anything reads or changes it,
        #: so a fleet's machine, which only looks its figures up, never pays for it
        self._pending: tuple[np.ndarray, np.ndarray] | None = None
        #: the CSR of the active A-units of the states primed last (:meth:`active`)
        self._active: tuple[np.ndarray, np.ndarray] | None = None

    def __len__(self):
        self._admit()
        return len(self._patterns)

    def prime(self, states: np.ndarray, theta: int, *,
              outputs: np.ndarray | None = None,
              active: tuple[np.ndarray, np.ndarray] | None = None) -> None:
        """Compute the patterns of many S-states ``(n, n_s)`` in one pass (those not
        cached yet, as many as fit); ``outputs``, the states' A-unit outputs at
        ``theta`` ((n, n_a) uint8, as :func:`fire` gives them) when the caller has
        them already (calibration computes them, :func:`calibration`), saves
        computing them again: they are then kept whole for :meth:`lookup` and enter
        the cache when it is next read (the same entries as entered now), and
        ``active``, their CSR when the caller found it too, is :meth:`active`'s."""
        self._admit()
        if theta != self._theta:
            self._patterns.clear()
            self._theta = theta
        states = np.asarray(states, dtype=bool)
        if outputs is None:
            self._enter(states, lambda rows: fire(self.wiring, states[rows], theta))
            return
        self._primed = (theta, states.copy(), outputs)
        self._pending, self._active = (self._primed[1], outputs), active

    def _admit(self) -> None:
        """Enter the states primed with their net inputs (:meth:`prime`) in the
        cache, if they wait: their rows of the outputs kept whole, picked (if at
        all), as :func:`fire` gives them."""
        if self._pending is not None:
            (states, fired), self._pending = self._pending, None
            self._enter(states, lambda rows: fired if len(rows) == len(fired)
                        else fired[rows])

    def _enter(self, states, outputs_of):
        """Cache the distinct states of ``states`` not cached yet (as many as fit),
        their outputs ``outputs_of(rows)`` (the rows of their first occurrences)."""
        keys: dict[bytes, int] = {}
        for i, key in enumerate(_keys(states)):
            keys.setdefault(key, i)
        todo = [(k, i) for k, i in keys.items() if k not in self._patterns]
        todo = todo[:max(self.limit - len(self._patterns), 0)]
        if todo:
            patterns = outputs_of([i for _, i in todo])
            patterns.setflags(write=False)   # rows of one array, shared
            self._patterns.update(zip([key for key, _ in todo], patterns))

    def patterns(self, states: np.ndarray, theta: int) -> list[Pattern]:
        """The :class:`Pattern` of each S-state of ``states`` ``(n, n_s)``, in order
        (:meth:`get` of each)."""
        self._admit()
        states = np.asarray(states, dtype=bool)
        if theta != self._theta:
            return [self.get(s, theta) for s in states]
        found = [self._found(key) for key in _keys(states)]
        return [self.get(s, theta) if pattern is None else pattern
                for s, pattern in zip(states, found)]

    def _found(self, key: bytes) -> Pattern | None:
        """The cached :class:`Pattern` of the S-state of bytes ``key`` (made now if
        only its outputs were primed), or None."""
        pattern = self._patterns.get(key)
        if isinstance(pattern, np.ndarray):
            pattern = self._patterns[key] = Pattern(pattern)
        return pattern

    def lookup(self, states: np.ndarray, theta: int) -> np.ndarray | None:
        """The A-unit outputs ``(n, n_a)`` (uint8) of S-states ``(n, n_s)`` when every
        one is cached for ``theta`` (the figures a machine trained on), else None:
        the same outputs as :func:`fire`, without summing the A-units again."""
        if theta != self._theta or not len(states):
            return None
        states = np.asarray(states, dtype=bool)
        if self._primed_last(states, theta):   # a fleet's figures
            return self._primed[2].copy()   # type: ignore[index]
        self._admit()
        rows = []
        for key in _keys(states):
            pattern = self._patterns.get(key)
            if pattern is None:
                return None
            rows.append(pattern if isinstance(pattern, np.ndarray) else pattern.a)
        return np.array(rows)

    def active(self, states: np.ndarray, theta: int
               ) -> tuple[np.ndarray, np.ndarray] | None:
        """``(ptr, idx)``, the CSR of the active A-units of S-states ``states``
        ``(n, n_s)`` (:func:`_active_csr` of their outputs) when they are the states
        primed last with ``theta`` (a fleet machine's figures, for its training
        session and its accuracy): computed once, shared, read only. Else None."""
        if theta != self._theta or not len(states) or \
                not self._primed_last(np.asarray(states, dtype=bool), theta):
            return None
        if self._active is None:
            self._active = _active_csr(self._primed[2])   # type: ignore[index]
        return self._active

    def _primed_last(self, states, theta):
        """Whether the bool ``states`` are the states primed last, with ``theta``."""
        primed = self._primed
        return primed is not None and primed[0] == theta and \
            primed[1].shape == states.shape and np.array_equal(primed[1], states)

    def get(self, s: np.ndarray, theta: int) -> Pattern:
        """The :class:`Pattern` of S-state ``s`` (bool or 0/1, ``(n_s,)``)."""
        self._admit()
        if theta != self._theta:
            self._patterns.clear()
            self._theta = theta
        s = np.asarray(s)
        key = (s if s.dtype == bool else s.astype(bool)).tobytes()
        pattern = self._found(key)
        if pattern is None:
            if len(self._patterns) >= self.limit:
                self._patterns.clear()
            pattern = self._patterns[key] = Pattern(fire(self.wiring, s, theta))
        return pattern


def _keys(states):
    """``[s.tobytes() for s in states]`` of bool S-states ``(n, n_s)``, in one call:
    each row viewed as one opaque ``n_s``-byte value."""
    rows = np.ascontiguousarray(states)
    if not rows.size:
        return [b""] * len(rows)
    return rows.view(np.dtype((np.void, rows.shape[1]))).ravel().tolist()


def _active_csr(A):
    """``(ptr, idx)``: the CSR of the True entries of the bool ``(n, m)`` array ``A``,
    row by row, ascending (as ``np.nonzero``), by the compiled :func:`_active_units`,
    compiled for C order only (a Fortran-ordered ``A``, e.g. from a transposed
    product, is copied: less than a second compile, issue 37)."""
    A = np.ascontiguousarray(A, dtype=np.bool_)
    ptr = np.zeros(len(A) + 1, dtype=np.int64)
    idx = np.empty(np.count_nonzero(A) + 1, dtype=np.int64)
    compiled(_active_units)(A, ptr, idx)
    return ptr, idx[:-1]


@kernel()
def _active_units(A, pat_ptr, pat_idx):
    """Fill the CSR ``pat_ptr``/``pat_idx`` (``pat_ptr[0]`` is 0) of the bool ``A``:
    row ``i`` lists the columns where ``A[i]`` is True, ascending (``np.nonzero(A)``,
    row by row). ``pat_idx`` has room for one more than the True entries: every
    column is written and kept only when True (no branch to mispredict: a third of
    the time of branching on each entry of a fleet machine's 104 x 512 patterns)."""
    n = 0
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            pat_idx[n] = j
            n += A[i, j]
        pat_ptr[i + 1] = n


def calibrate_theta(wiring: Wiring, s: np.ndarray, target_rate: Sequence[float],
                    n_excitatory: int, n_inhibitory: int) -> int:
    """The integer threshold whose mean firing rate on S-states ``s`` is in
    ``target_rate`` (closest to its middle), or else nearest to that range.

    >>> from markone.hardware.params import MarkIParams
    >>> p = MarkIParams(retina_shape=(1, 4), n_a_units=4, n_excitatory=2, n_inhibitory=0)
    >>> w = Wiring(np.array([[0, 1], [1, 2], [2, 3], [3, 0]]), np.zeros((4, 0), int), 4)
    >>> s = np.array([[1, 0, 0, 0], [1, 1, 1, 1]])
    >>> calibrate_theta(w, s, (0.05, 0.6), 2, 0)   # theta=2 fires on 4 of 8
    2
    """
    return theta_for(net_input(wiring, s), target_rate, n_excitatory, n_inhibitory)


def theta_for(net: np.ndarray, target_rate: Sequence[float], n_excitatory: int,
              n_inhibitory: int) -> int:
    """:func:`calibrate_theta` from the S-states' :func:`net_input` ``net`` (for a
    caller that needs the net input itself too: it is summed once).

    >>> theta_for(np.array([[1, 1, 0, 2], [2, 2, 2, 2]]), (0.05, 0.6), 2, 0)
    2
    """
    # how many outputs reach each net input v: at_least[v + n_inhibitory], so that
    # each rate is the count over the total, as np.mean(net >= theta) divides them
    counts = _level_counts(net, -n_inhibitory, n_excitatory + n_inhibitory + 1)
    return _best_theta(counts[::-1].cumsum()[::-1], net.size, target_rate,
                       n_excitatory, n_inhibitory)


def _best_theta(at_least, size, target_rate, n_excitatory, n_inhibitory):
    """The threshold of :func:`theta_for`, given ``at_least[v + n_inhibitory]``, how
    many of the ``size`` net inputs reach each level ``v``."""
    lo, hi = target_rate
    mid = (lo + hi) / 2
    best = -n_inhibitory + 1
    best_key: tuple[float, float] | None = None
    for theta in range(-n_inhibitory + 1, n_excitatory + 1):
        rate = float(at_least[theta + n_inhibitory] / size)
        outside = max(lo - rate, rate - hi, 0.0)
        key = (outside, abs(rate - mid))
        if best_key is None or key < best_key:
            best, best_key = theta, key
    return best


class Calibration(NamedTuple):
    """What calibrating ``theta="auto"`` on S-states finds (:func:`calibration`):
    the threshold ``theta``, the states' A-unit ``outputs`` at it ((n, n_a) uint8,
    as :func:`fire` gives them) and their CSR ``active`` (``(ptr, idx)``, as
    :func:`_active_csr` finds it), or None when not found."""

    theta: int
    outputs: np.ndarray
    active: tuple[np.ndarray, np.ndarray] | None


#: The most connections per A-unit whose net input on 8-bit S-states the compiled
#: calibration sums in int16 (255 times this stays below 2**15).
_INT16_INPUTS = 128


def calibration(wiring: Wiring, s: np.ndarray, target_rate: Sequence[float],
                n_excitatory: int, n_inhibitory: int) -> Calibration:
    """:func:`calibrate_theta` of S-states ``s`` ``(n, n_s)``, with their A-unit
    outputs at the threshold and the CSR of the active ones: what a machine's
    training session needs of its figures, found without keeping the net input.

    Compiled (once the process's plain work is spent,
    :data:`~markone.hardware.trial.PLAIN`), on 0/1 states, this is two passes:
    :func:`_net_levels` sums every net input in int16, figure-minor, and counts
    the levels; :func:`_fire_active` then reads the outputs and their CSR off the
    summed inputs. The net inputs are small integers, so the threshold and the
    outputs are those of :func:`net_input`, :func:`theta_for` and :func:`fire`,
    which give them on other states (and while the plain work lasts).

    >>> w = Wiring(np.array([[0, 1], [1, 2], [2, 3], [3, 0]]), np.zeros((4, 0), int), 4)
    >>> found = calibration(w, np.array([[1, 0, 0, 0], [1, 1, 1, 1]]), (0.05, 0.6), 2, 0)
    >>> found.theta, found.outputs.tolist()
    (2, [[0, 0, 0, 0], [1, 1, 1, 1]])
    """
    s = np.asarray(s)
    n_a, k = wiring.inputs.shape
    low, levels = -n_inhibitory, n_excitatory + n_inhibitory + 1
    found = None
    units = trials_of(len(s) * n_a * k) if s.ndim == 2 else 0   # as net_input's
    if s.ndim == 2 and len(s) and s.dtype in (np.uint8, np.bool_) and \
            k <= _INT16_INPUTS and not PLAIN.covers(units):
        found = _calibrated(PLAIN.kernel(_net_levels, units), wiring,
                            np.ascontiguousarray(s).view(np.uint8), low, levels,
                            target_rate, n_excitatory, n_inhibitory)
    if found is None:   # as theta_for and fire find them
        net = net_input(wiring, s)
        theta = theta_for(net, target_rate, n_excitatory, n_inhibitory)
        found = Calibration(theta, (net >= theta).view(np.uint8), None)
    return found


def _calibrated(net_levels, wiring, s, low, levels, target_rate, n_excitatory,
                n_inhibitory):
    """:func:`calibration` of the uint8 S-states ``s`` by the compiled
    ``net_levels`` (:func:`_net_levels`); None when a net input lies outside the
    ``levels`` from ``low`` (states that are not 0/1)."""
    n, n_a = len(s), wiring.inputs.shape[0]
    net = np.empty((n_a, n), dtype=np.int16)
    counts = np.zeros(levels, dtype=np.int64)
    if not net_levels(s, wiring.inputs, wiring.signs,
                      np.empty((s.shape[1], n), dtype=np.int16), net, counts, low):
        return None
    at_least = counts[::-1].cumsum()[::-1]
    theta = _best_theta(at_least, n * n_a, target_rate, n_excitatory, n_inhibitory)
    outputs = np.empty((n, n_a), dtype=np.uint8)
    ptr = np.zeros(n + 1, dtype=np.int64)
    idx = np.empty(int(at_least[theta - low]) + 1, dtype=np.int64)
    compiled(_fire_active)(net, theta, outputs, ptr, idx)
    return Calibration(theta, outputs, (ptr, idx[:-1]))


@kernel()
def _net_levels(s, inputs, signs, states, net, counts, low):
    """``net[a, i]`` = ``sum_k s[i, inputs[a, k]] * signs[k]``, the net input of
    A-unit ``a`` on S-state ``i`` (figure-minor, in int16: the inner loop runs over
    independent figures, 16 to a vector), the states transposed into ``states``
    first; ``counts[v - low]`` counts the net inputs of each level ``v``. Returns
    False (``counts`` then partial) when one lies outside ``[low, low +
    counts.size)``."""
    n, n_s = s.shape
    for i in range(n):
        for c in range(n_s):
            states[c, i] = s[i, c]
    inside = True
    for a in range(inputs.shape[0]):
        row = net[a]
        for i in range(n):
            row[i] = 0
        for k in range(inputs.shape[1]):
            cells = states[inputs[a, k]]
            if signs[k] > 0:
                for i in range(n):
                    row[i] += cells[i]
            else:
                for i in range(n):
                    row[i] -= cells[i]
        for i in range(n):
            v = np.int64(row[i]) - low
            if v < 0 or v >= counts.size:
                inside = False
            else:
                counts[v] += 1
    return inside


@kernel()
def _fire_active(net, theta, outputs, ptr, idx):
    """``outputs[i, a]`` = ``net[a, i] >= theta`` of the figure-minor net inputs
    ``net`` ``(n_a, n)``, and the CSR ``ptr``/``idx`` of the ones, row by row,
    ascending (``ptr[0]`` is 0; ``idx`` has room for one more: every column is
    written and kept only when it fires, as :func:`_active_units` does)."""
    n_a, n = net.shape
    m = 0
    for i in range(n):
        for a in range(n_a):
            on = net[a, i] >= theta
            outputs[i, a] = on
            idx[m] = a
            m += on
        ptr[i + 1] = m


def _level_counts(net, low, levels):
    """``np.bincount((net - low).ravel(), minlength=levels)``: how many entries of
    ``net`` equal each level ``low, low + 1, ...``. Once the process's plain work is
    spent (:data:`~markone.hardware.trial.PLAIN`), one compiled pass over ``net``
    (:func:`_count_levels`; bincount takes 0.14 ms for a fleet machine's 104 x 512
    net inputs), with the same counts; bincount itself when a value lies outside
    ``levels`` (as it always did: a longer histogram, or its error below ``low``)."""
    flat = np.ascontiguousarray(net).ravel()
    if PLAIN.left or flat.dtype != np.int64:
        return np.bincount(flat - low, minlength=levels)
    counts = np.zeros(levels, dtype=np.int64)
    if compiled(_count_levels)(flat, low, counts):
        return counts
    return np.bincount(flat - low, minlength=levels)


@kernel()
def _count_levels(values, low, counts):
    """``counts[v - low] += 1`` for each ``v`` of ``values``; False (``counts`` then
    partial) as soon as one lies outside ``[low, low + counts.size)``."""
    for v in values:
        k = v - low
        if k < 0 or k >= counts.size:
            return False
        counts[k] += 1
    return True


def connection_matrix(wiring: Wiring) -> np.ndarray:
    """``(n_s, n_a)`` matrix of +1 (excitatory) / -1 (inhibitory) connections: maps
    A-unit weights back onto the retina (``C @ w``)."""
    n_a = wiring.excitatory.shape[0]
    C = np.zeros((wiring.n_s, n_a), dtype=np.int64)
    cols = np.arange(n_a)
    np.add.at(C, (wiring.excitatory, cols[:, None]), 1)
    np.add.at(C, (wiring.inhibitory, cols[:, None]), -1)
    return C
