"""The Mark I Perceptron: retina, plugboard, A-units, R-units, motors and trainer on
one SimPy clock.

One trial (one figure shown) is: the retina settles (or the exposure ends), the A/R
logic takes ``logic_s``, the trainer decides from the R-units' scores with the core's
online rule, and the motors of the reinforced R-units turn in parallel. That is at
most three SimPy events per figure, whatever the number of potentiometers; a run of
figures that nothing else on the clock can see is computed ahead and waited for with
one timeout (:mod:`markone.hardware.segments`; ``MarkI(segments=False)`` turns that
off), bit for bit the same. Both run the steps of one trial kernel,
:mod:`markone.hardware.trial`.

Examples
--------
>>> from markone._figures import letters
>>> images, labels = letters("AB", per_class=3, seed=0)
>>> machine = MarkI(seed=0)
>>> run = machine.train(images, labels, max_epochs=20)
>>> run.converged, machine.score(images, labels)
(True, 1.0)
>>> machine.a_features(images).shape
(6, 512)
>>> machine
MarkI(seed=0, topology='full', theta=2, classes=['A', 'B'], now_s=...)
"""

from __future__ import annotations

import functools
import numbers
from typing import Any, NamedTuple

import numpy as np
import simpy

from markone import online
from markone._internal.checks import check_order, epoch_indices
from markone._internal.jit import compiled, uncompiled
from markone._internal.progress import progress_bar
from markone._internal.typing import ArrayLike, Order, Seed
from markone._internal.validation import (as_generator, check_consistent_length,
                                          check_int_at_least, check_label_values,
                                          check_matrix, child_seeds)
from markone.hardware import plugboard
from markone.hardware.motors import Motors
from markone.hardware.devices import Devices
from markone.hardware.params import RETUNABLE, MarkIParams
from markone.hardware.retina import Retina
from markone.hardware.run import (MachineRun, Presentation, PresentationLog,
                                   collector_paused, record)
from markone.hardware.runits import RUnits
from markone.hardware.plugboard import _active_csr
from markone.hardware.segments import PassPlan, Segments, _decode_unique, _nearest
from markone.hardware.trainer import Trainer
from markone.hardware.trial import PLAIN, physics_of, score_figures, score_rows, trials_of

__all__ = ["MarkI", "class_codes", "nearest_class", "machine_seeds"]

#: Passes over the training set when neither ``max_epochs`` nor ``presentations`` is
#: given.
DEFAULT_EPOCHS = 100


def class_codes(n_classes: int, n_r_units: int, code: str = "binary") -> np.ndarray:
    """The +/-1 targets of the R-units for each class: ``(n_classes, n_r_units)``.

    ``"binary"``: R-unit ``r`` answers +1 when bit ``r`` of the class index is set
    (up to ``2**n_r_units`` classes). ``"one_hot"``: R-unit ``i`` answers +1 for class
    ``i`` only (up to ``n_r_units`` classes).

    >>> class_codes(3, 2).tolist()
    [[-1, -1], [1, -1], [-1, 1]]
    >>> class_codes(2, 3, "one_hot").tolist()
    [[1, -1, -1], [-1, 1, -1]]
    """
    cap = 2 ** n_r_units if code == "binary" else n_r_units
    if n_classes > cap:
        raise ValueError(
            f"labels have {n_classes} classes but class_code={code!r} over "
            f"{n_r_units} R-unit{'s' if n_r_units != 1 else ''} represents at most {cap}; "
            "use fewer classes, more R-units (n_r_units)"
            + (" or class_code='binary'." if code == "one_hot" else ".")
        )
    idx = np.arange(n_classes)
    if code == "binary":
        bits = (idx[:, None] >> np.arange(n_r_units)) & 1
    else:
        bits = (idx[:, None] == np.arange(n_r_units)).astype(np.int64)
    return (2 * bits - 1).astype(np.int64)


def nearest_class(responses: np.ndarray, scores: np.ndarray,
                  codes: np.ndarray) -> np.ndarray:
    """Index of the code in ``codes`` nearest (Hamming) to each response; ties go to
    the code that agrees best with the scores (then to the first). How the machine
    reads its R-units' answer as a class.

    >>> codes = np.array([[1, -1, -1], [-1, 1, -1]])
    >>> int(nearest_class(np.array([1, 1, -1]), np.array([2.0, 0.5, -1.0]), codes))
    0
    """
    dist = (responses[..., None, :] != codes).sum(-1)
    agree = scores @ codes.T
    near = dist == dist.min(axis=-1, keepdims=True)
    return np.where(near, agree, -np.inf).argmax(axis=-1)


class MarkI:
    """The Mark I Perceptron emulated as a discrete-event machine.

    Parameters
    ----------
    params : MarkIParams, optional
        The physics (default: ``MarkIParams()``; ``MarkIParams.ideal()`` removes it).
    seed : None, int or numpy.random.Generator
        Draws the plugboard wiring, the source sets, the photocell noise, stochastic
        rounding and shuffles.
    segments : bool
        Let :meth:`train` compute runs of figures that nothing else on the clock can
        see in one compiled loop and wait for each run with one SimPy timeout
        (:mod:`markone.hardware.segments`; default True). False runs every figure as
        its own SimPy process, one event per phase: the reference the segments are
        tested against, bit for bit the same results, about ten times slower. Also an
        attribute, which may be changed between sessions.

    Attributes
    ----------
    wiring : plugboard.Wiring
    theta : int or None
        The A-unit threshold (None until ``theta="auto"`` is calibrated).
    classes_ : ndarray or None
        Class labels known to the machine; class ``i`` has code ``codes_[i]``.
    now_s : float
        The machine clock.

    Notes
    -----
    The R-units' decisions and increments come from :mod:`markone.online`. With
    ``MarkIParams.ideal()`` R-unit ``k`` after ``train(images, labels, max_epochs=E,
    order=order, seed=s)`` equals ``markone.train(A, code[:, k], intercept=False,
    max_epochs=E, order=order, seed=s)`` on ``A = machine.a_features(images)`` and
    ``code = machine.code(labels)``: weights and mistakes, bit for bit (for
    ``order="shuffle"`` with an explicit ``seed``; without one the shuffles come from
    the machine's own seeded generator).
    """

    theta: int | None
    classes_: np.ndarray | None
    #: a markone.hardware.faults damage model, or None (a healthy machine)
    faults: Any

    def __init__(self, params: MarkIParams | None = None, seed: Seed = None, *,
                 segments: bool = True) -> None:
        if not isinstance(segments, (bool, np.bool_)):
            raise TypeError(f"segments must be True or False, got {segments!r}.")
        #: whether train() may run figures in compiled segments (see above)
        self.segments = bool(segments)
        if params is None:
            params = MarkIParams()
        if not isinstance(params, MarkIParams):
            raise TypeError(
                f"params must be a MarkIParams, got {type(params).__name__}; build one "
                "with MarkIParams(...) or MarkIParams.ideal()."
            )
        self.params = params
        self.seed: int | None = int(seed) if isinstance(seed, numbers.Integral) else None
        wiring_seed, runit_seed, self._physics_seed = machine_seeds(seed)
        self._assemble(plugboard.wire(params, wiring_seed), runit_seed)
        self.reset()

    @classmethod
    def _to_train(cls, params: MarkIParams, seed: int) -> MarkI:
        """``MarkI(params, seed)`` for a caller that trains it at once from scratch
        (a fleet): its clock, retina and weights are not set up here, since
        :meth:`train` (without ``warm_start``) sets them up anew, the same way."""
        self = cls.__new__(cls)
        self.segments, self.params, self.seed = True, params, int(seed)
        wiring_seed, runit_seed, self._physics_seed = machine_seeds(seed)
        self._assemble(plugboard.wire(params, wiring_seed), runit_seed)
        return self

    @classmethod
    def _wired(cls, params: MarkIParams, seed: int, wiring: plugboard.Wiring) -> MarkI:
        """``MarkI(params, seed)`` given the wiring it draws (``plugboard.wire(params,
        machine_seeds(seed)[0])``, e.g. drawn for a fleet by
        :func:`~markone.hardware.plugboard.wire_many`)."""
        self = cls.__new__(cls)
        self.segments, self.params, self.seed = True, params, int(seed)
        _, runit_seed, self._physics_seed = machine_seeds(seed)
        self._assemble(wiring, runit_seed)
        self.reset()
        return self

    def _training_set(self, images, labels):
        """``images`` and ``labels`` checked as :meth:`train` checks them, with the
        classes a fresh machine of these params finds on them (this machine's own
        classes are left as they were)."""
        X = self._images(images)
        check_label_values(labels, name="labels")
        labels = np.asarray(labels)
        check_consistent_length(X, labels, names=("images", "labels"))
        kept = self.classes_, self._index
        self.classes_, self._index = None, {}
        try:
            label_idx = self._label_indices(labels, grow=True)
            return TrainingSet(X, labels, self.classes_, self._index, label_idx)
        finally:
            self.classes_, self._index = kept

    def _assemble(self, wiring, runit_seed):
        """The parts of a new machine around its ``wiring`` (:meth:`reset` then sets
        up its clock, retina and weights)."""
        params = self.params
        self.wiring = wiring
        self._patterns = plugboard.PatternCache(self.wiring)
        #: (n_classes, response bytes) -> nearest class indices
        self._nearest: dict[tuple[int, bytes], np.ndarray] = {}
        self.runits = RUnits(params, runit_seed)
        self.theta = None if params.theta == "auto" else int(params.theta)
        self.classes_ = None
        self._index: dict[Any, int] = {}
        self._codes: np.ndarray | None = None
        #: hardware faults attached by :func:`markone.hardware.faults.apply_faults`
        self.faults = None

    def __repr__(self):
        classes = None if self.classes_ is None else self.classes_.tolist()
        return (f"MarkI(seed={self.seed}, topology={self.params.topology!r}, "
                f"theta={self.theta}, classes={classes}, now_s={self.now_s:.1f})")

    # ------------------------------------------------------------------ state
    def reset(self) -> None:
        """Zero every weight, darken the retina and restart the clock at 0 s."""
        self.env = simpy.Environment()
        rng = as_generator(self._physics_seed)
        self._rng = rng
        self.retina = Retina(self.env, self.params, rng)
        self.motors = Motors(self.env, self.params.motor_step_s)
        self.runits.weights[:] = 0.0
        self.runits.rng = rng
        if self.runits.devices is not None:
            self.runits.devices.last_s = 0.0
        if self.faults is not None:
            self.faults.arm(self.env)

    def retune(self, name: str, value: Any) -> MarkIParams:
        """Turn the knob ``name`` (a field of :data:`~markone.hardware.params.RETUNABLE`)
        to ``value`` now, between two figures: the weights, the clock, the retina's
        light and the wiring stay; the next figure meets the new setting. Returns
        the new parameters (validated as ``params.replace`` does).

        >>> machine = MarkI(seed=0)
        >>> machine.retune("motor_step_s", 0.5).motor_step_s, machine.motors.motor_step_s
        (0.5, 0.5)
        >>> machine.retune("n_a_units", 256)
        Traceback (most recent call last):
        ...
        ValueError: n_a_units is fixed when the machine is wired; build a machine with it (markone machine console --set n_a_units=256).
        """
        if name not in RETUNABLE:
            if name not in MarkIParams.__dataclass_fields__:
                raise ValueError(f"{name!r} is not a parameter of the Mark I; "
                                 f"`markone machine params` lists them.")
            raise ValueError(f"{name} is fixed when the machine is wired; build a machine "
                             f"with it (markone machine console --set {name}={value}).")
        params = self.params.replace(**{name: value})
        if name == "theta" and params.theta == "auto":
            raise ValueError("theta can be turned to a threshold only (an integer), not "
                             "to 'auto' mid-run: the machine calibrated it already.")
        self.params = self.retina.params = self.runits.params = params
        self.retina.physics = physics_of(params)
        self.motors.motor_step_s = float(params.motor_step_s)
        if name == "theta":
            self.theta = int(params.theta)
        devices = self.runits.devices
        if devices is None and params.variation:
            devices = self.runits.devices = Devices.of(params, self.runits.rng)
            if devices is not None:      # params.variation: Devices.of makes them
                devices.last_s = self.env.now   # no creep before the knob was turned
        if devices is not None:
            devices.params = params
        return params

    @property
    def weights(self) -> np.ndarray:
        """A copy of the potentiometer settings, ``(n_r_units, n_a_units)``."""
        return self.runits.weights.copy()

    @property
    def now_s(self) -> float:
        """The machine clock in seconds."""
        return float(self.env.now)

    @property
    def codes_(self) -> np.ndarray | None:
        """The R-units' +/-1 target of each known class."""
        if self.classes_ is None:
            return None
        if self._codes is None or len(self._codes) != len(self.classes_):
            self._codes = class_codes(len(self.classes_), self.params.n_r_units,
                                      self.params.class_code)
        return self._codes

    # ------------------------------------------------------------------ inputs
    def _images(self, images, name="images"):
        """Flat float64 light levels ``(n, n_s)`` after checking shape and range."""
        rows, cols = self.params.retina_shape
        arr = np.asarray(images)
        if arr.dtype == bool:
            arr = arr.astype(np.uint8)
        if arr.ndim == 3 and arr.shape[1:] == (rows, cols):
            arr = arr.reshape(len(arr), rows * cols)
        elif not (arr.ndim == 2 and arr.shape[1] == rows * cols):
            raise ValueError(
                f"{name} must have shape (n, {rows}, {cols}) or (n, {rows * cols}) for a "
                f"{rows}x{cols} retina, got shape {arr.shape}; render figures with "
                f"size={rows} or build the machine with MarkIParams(retina_shape=...)."
            )
        arr = check_matrix(arr, name=name)
        lo, hi = float(arr.min()), float(arr.max())
        if lo < 0 or hi > 1:
            raise ValueError(
                f"{name} must be light levels in [0, 1] (0 dark, 1 full light), got "
                f"values in [{lo:g}, {hi:g}]; divide 8-bit images by 255."
            )
        return arr

    def _image(self, image):
        rows, cols = self.params.retina_shape
        arr = np.asarray(image)
        if arr.shape not in ((rows, cols), (rows * cols,)):
            raise ValueError(
                f"image must have shape ({rows}, {cols}) or ({rows * cols},), got "
                f"{arr.shape}; pass one figure (use train/predict for many)."
            )
        return self._images(arr.reshape(1, -1), name="image")[0]

    def _label_indices(self, labels, *, grow):
        check_label_values(labels, name="labels")
        labels = np.asarray(labels)
        if labels.ndim != 1:
            raise ValueError(f"labels must be 1-D, got shape {labels.shape}.")
        distinct = np.unique(labels).tolist()
        if grow:
            new = [v for v in distinct if v not in self._index]
            if new:
                known = [] if self.classes_ is None else self.classes_.tolist()
                class_codes(len(known) + len(new), self.params.n_r_units,
                            self.params.class_code)  # raises when too many
                self.classes_ = np.array(known + new)
                self._index = {v: i for i, v in enumerate(self.classes_.tolist())}
        unknown = [v for v in distinct if v not in self._index]
        if unknown:
            raise ValueError(
                f"labels {unknown[:5]} are not among the machine's classes "
                f"{self.classes_.tolist() if self.classes_ is not None else []}."
            )
        return np.array([self._index[v] for v in labels.tolist()], dtype=np.int64)

    # ------------------------------------------------------------------ features
    def calibrate(self, images: ArrayLike) -> int:
        """Set ``theta`` so that 5-20% (``theta_target_rate``) of A-units fire on
        ``images``; return it."""
        self._calibrate(self.retina.settled(self._images(images)))
        assert self.theta is not None
        return self.theta

    def _calibrate(self, settled):
        """Set ``theta`` from the ``settled`` S-states; return the
        :class:`~markone.hardware.plugboard.Calibration` (their A-unit outputs at it)."""
        p = self.params
        found = plugboard.calibration(self.wiring, settled, p.theta_target_rate,
                                      p.n_excitatory, p.n_inhibitory)
        self.theta = found.theta
        return found

    def a_features(self, images: ArrayLike) -> np.ndarray:
        """A-unit outputs ``(n, n_a_units)`` (uint8 0/1) for settled, noise-free
        figures (with the hardware faults that have happened by now). An uncalibrated
        ``theta="auto"`` is calibrated on ``images`` first."""
        return self._features(self._images(images))

    def silent_r_units(self, images: ArrayLike) -> np.ndarray:
        """``(n, n_r_units)`` bool: True where no A-unit wired to the R-unit fires on
        the settled figure (:meth:`a_features`), so that its sum is exactly 0 whatever
        its weights.

        Training counts a sum of 0 as a mistake, and reinforcing it moves none of the
        R-unit's weights (none of its inputs is active): on a machine that reads each
        figure as settled, without noise, no pass over such a figure is mistake-free.
        With ``topology="source_sets"`` each R-unit has 64 of the 512 A-units, and a
        figure may fire none of them; with ``"full"`` only a figure that fires no
        A-unit at all is silent.

        Examples
        --------
        >>> m = MarkI(MarkIParams(retina_shape=(1, 2), n_a_units=2, n_excitatory=1,
        ...                       n_inhibitory=0, max_fanout=1, theta=1, n_r_units=2,
        ...                       topology="source_sets"), seed=0)
        >>> m.silent_r_units([[1, 0], [1, 1]]).tolist()   # R2 has A-unit 2 only
        [[False, True], [False, False]]
        """
        fired = self.a_features(images).astype(np.int64)
        mask = self.runits.mask
        wired = (np.ones((self.params.n_r_units, fired.shape[1]), np.int64)
                 if mask is None else mask.astype(np.int64))
        return fired @ wired.T == 0

    def _features(self, X):
        """:meth:`a_features` of figures ``X`` checked by :meth:`_images`."""
        theta = self.calibrate(X) if self.theta is None else self.theta
        settled = self.retina.settled(X)
        if self.faults is not None:   # the faults that have happened by now
            return self.faults.a_units(self.faults.s_units(settled), theta)
        cached = self._patterns.lookup(settled, theta)   # the figures trained on
        return plugboard.fire(self.wiring, settled, theta) if cached is None else cached

    def code(self, labels: ArrayLike) -> np.ndarray:
        """The +/-1 target of each R-unit for each label: ``(n, n_r_units)``.

        Uses the machine's classes once trained, else the sorted distinct labels.

        >>> MarkI(MarkIParams(n_r_units=2), seed=0).code(["B", "A", "C"]).tolist()
        [[1, -1], [-1, -1], [-1, 1]]
        """
        if self.classes_ is None:
            check_label_values(labels, name="labels")
            classes, idx = np.unique(np.asarray(labels), return_inverse=True)
            return class_codes(len(classes), self.params.n_r_units,
                               self.params.class_code)[idx.ravel()]
        codes = self.codes_
        assert codes is not None   # classes are known
        return codes[self._label_indices(labels, grow=False)]

    def _decode(self, responses, scores):
        """Class index nearest (Hamming) to each response; ties go to the class whose
        code agrees best with the scores."""
        return nearest_class(responses, scores, self.codes_)

    def _decode_scores(self, scores):
        """:meth:`_decode` of the responses to ``scores`` (``(n, n_r_units)``), the
        nearest classes looked up in the class code's table (shared by the
        segments) in one call, :meth:`_decode` itself for the figures with a tie."""
        codes = np.ascontiguousarray(self.codes_, dtype=np.int64)
        near_ptr, near_idx = _nearest(codes)
        if not near_ptr.size:   # too many responses and classes to tabulate
            return self._decode(online.predict_sign(scores), scores)
        out = np.empty(len(scores), dtype=np.int64)
        PLAIN.kernel(_decode_unique)(scores, near_ptr, near_idx, out)
        ties = np.flatnonzero(out < 0)
        if ties.size:
            out[ties] = self._decode(online.predict_sign(scores[ties]), scores[ties])
        return out

    def _decode_one(self, response, scores):
        """:meth:`_decode` of one response, the Hamming search done once per
        distinct response (the scores are needed only to break a tie)."""
        key = (len(self.classes_), response.tobytes())
        near = self._nearest.get(key)
        if near is None:
            dist = (response != self.codes_).sum(-1)
            near = self._nearest[key] = np.flatnonzero(dist == dist.min())
        return int(near[0]) if len(near) == 1 else int(self._decode(response, scores))

    # ------------------------------------------------------------------ use
    def _check_trained(self):
        if self.classes_ is None or self.theta is None:
            raise ValueError(
                "the machine has not been trained; call train(images, labels) first."
            )

    def decision_function(self, images: ArrayLike) -> np.ndarray:
        """R-unit scores ``(n, n_r_units)`` for settled, noise-free figures: the
        trial kernel's sums (:func:`~markone.hardware.trial.score`), bit for bit
        the scores a training trial computes for the same weights and figure."""
        self._check_trained()
        return self._scores(self._images(images))

    def _scores(self, X):
        """:meth:`decision_function` of figures ``X`` checked by :meth:`_images`."""
        scores = np.empty((len(X), self.params.n_r_units))
        step = PLAIN.kernel(score_figures, trials_of(scores.size * self.params.n_a_units))
        if step is uncompiled(score_figures):   # plain: numpy's whole-array sums
            step(self.runits.weights, self._features(X), scores)
        else:   # compiled: found in one pass without a branch per entry, same sums
            compiled(score_rows)(self.runits.weights, *self._active_features(X), scores)
        return scores

    def _active_features(self, X):
        """The CSR ``(ptr, idx)`` of the active A-units of :meth:`_features` of
        ``X``: the figures primed last (a fleet's, trained on) share theirs."""
        if self.faults is None and self.theta is not None:
            active = self._patterns.active(self.retina.settled(X), self.theta)
            if active is not None:
                return active
        return _active_csr(self._features(X) != 0)

    def predict(self, images: ArrayLike) -> np.ndarray:
        """Decoded class label of each figure (settled, noise-free; no machine time)."""
        self._check_trained()
        return self._predicted(self._images(images))

    def _predicted(self, X):
        """:meth:`predict` of figures ``X`` checked by :meth:`_images`."""
        assert self.classes_ is not None   # the caller checked it
        return self.classes_[self._decode_scores(self._scores(X))]

    def predict_one(self, image: ArrayLike) -> Any:
        """The decoded class label of one figure."""
        return self.predict(self._image(image)[None, :])[0]

    def score(self, images: ArrayLike, labels: ArrayLike) -> float:
        """Fraction of figures whose decoded class equals the label."""
        self._check_trained()
        return self._accuracy(self._images(images), labels)

    def _accuracy(self, X, labels):
        """:meth:`score` of figures ``X`` checked by :meth:`_images` (a fleet's
        figures, checked once for all its machines)."""
        return float(np.mean(self._predicted(X) == np.asarray(labels)))

    # ------------------------------------------------------------------ learning
    def _trainer(self, rule):
        return Trainer(self.params.rule if rule is None else rule,
                       eta=self.params.increment_steps, mask=self.runits.mask)

    def _new_stats(self):
        n_r = self.params.n_r_units
        return {"mistakes": np.zeros(n_r, np.int64),
                "reinforcements": np.zeros(n_r, np.int64),
                "saturated": np.zeros(n_r, np.int64), "shown": 0,
                "errors_per_epoch": [], "mistakes_per_epoch": [], "end_s_per_epoch": [],
                "converged": False}

    def _trial(self, x, target, label, figure, trainer, stats, log, exposure_s=None):
        """SimPy process of one figure: settle, logic, decision, motors.

        ``target`` is the R-units' +/-1 code of ``label`` (an int64 array); ``log`` a
        list to append the :class:`Presentation` to, or None. Returns ``(some R-unit
        made a mistake, the figure was read right)``.
        """
        PLAIN.spend(1)
        sensed = yield from self._sense(x, exposure_s)
        return (yield from self._respond(sensed, target, label, figure, trainer, stats,
                                         log))

    def _sense(self, x, exposure_s=None):
        """SimPy process of the first half of a trial: the retina settles, the A-units
        fire, the A/R logic runs. Returns ``(t0, settle_s, pattern, scores)``: when the
        figure went up, how long the photocells took, the A-unit pattern and the
        R-units' sums at the moment of the decision."""
        env = self.env
        t0 = env.now
        s = yield from self.retina.read(x, exposure_s)
        settle_s = env.now - t0
        faults = self.faults
        if faults is None:
            pattern = self._patterns.get(s, self.theta)
        else:   # hardware faults (markone.hardware.faults): S-, A-, R-units, motors
            pattern = plugboard.Pattern(faults.a_units(faults.s_units(s), self.theta))
        yield env.timeout(self.params.logic_s)
        if self.runits.devices is not None:   # the potentiometers' creep (drift_rate)
            self.runits.devices.creep(self.runits.weights, self.runits.mask, env.now)
        if faults is not None:
            faults.before_decision()
        scores = pattern.scores(self.runits.weights)
        if faults is not None:
            scores = faults.noise(scores)
        return t0, settle_s, pattern, scores

    def _respond(self, sensed, target, label, figure, trainer, stats, log):
        """SimPy process of the second half of a trial, after :meth:`_sense`: the
        trainer decides on the sums and the motors of the reinforced R-units turn."""
        env = self.env
        t0, settle_s, pattern, scores = sensed
        faults = self.faults
        # a faulty machine's patterns are not cached: no increments to keep for them
        mistakes, rows, delta = trainer.decide(scores, target, pattern.a,
                                               pattern if faults is None else None)
        wrong = bool(mistakes.any())   # the reinforced rows, unless every one is forced
        motor_s, blocked = 0.0, 0
        if rows.size:
            move = self.runits.plan(rows, delta, trainer.whole)
            if faults is not None:
                move = faults.motors(move)
            motor_s = yield from self.motors.turn(move.steps)
            self.runits.commit(move)
            if trainer.rule == "forced":   # every R-unit, every figure
                stats["reinforcements"] += 1
            else:                           # rows are the R-units that erred
                stats["reinforcements"] += mistakes
            if move.blocked.any():
                stats["saturated"][rows] += move.blocked
                blocked = int(move.blocked.sum())
        if wrong:
            stats["mistakes"] += mistakes
            response = online.predict_sign(scores)
            correct = self._decode_one(response, scores) == int(label)
        else:   # every R-unit's sign is its target: the figure's own code, decoded
            response, correct = target, True
        stats["shown"] += 1
        if log is None:
            return wrong, correct
        if rows.size:
            i, j = (move.new != move.old).nonzero()
            changes = tuple(zip(move.rows[i].tolist(), j.tolist(),
                                move.new[i, j].tolist()))
            reinforced = tuple(np.isin(np.arange(len(scores)), rows).tolist())
        else:
            changes, reinforced = (), (False,) * len(scores)
        log.append(record(
            t_s=float(t0), end_t_s=float(env.now), figure=int(figure), label=int(label),
            active_a=pattern.active, scores=tuple(scores.tolist()),
            response=tuple(response.tolist()), target=tuple(target.tolist()),
            reinforced=reinforced, changes=changes, saturated=blocked,
            motor_s=float(motor_s), figure_correct=correct, settle_s=float(settle_s)))
        return wrong, correct

    def _session(self, X, targets, label_idx, passes, stop_when_clean, trainer,
                 stats, log, build_segments=None):
        """SimPy process of a training session: the passes, figure after figure,
        each run of figures that :mod:`~markone.hardware.segments` can compute ahead
        waited for with one timeout, any other figure as its own :meth:`_trial`.
        ``build_segments()`` makes the session's segments (or None) once the
        process's plain trials are spent (:data:`markone.hardware.trial.PLAIN`):
        until then every figure is a plain :meth:`_trial`, bit for bit the same."""
        backoff = skip = 0
        segments = None
        for order in passes:
            errors = mistaken = 0
            pos, n = 0, len(order)
            while pos < n:
                if segments is None and build_segments is not None and not PLAIN.left:
                    segments, build_segments = build_segments(), None
                if segments is not None and skip == 0:
                    end, counts, t_end = segments.run(order, pos, targets, label_idx)
                    if end > pos:
                        yield self.env.timeout(t_end - self.env.now)
                        errors += int(counts[0])
                        mistaken += int(counts[1])
                        pos, backoff = end, 0
                        continue
                    backoff = min(2 * backoff, 64) or 1   # figures it could not run
                    skip = backoff
                i = order[pos]
                wrong, correct = yield from self._trial(
                    X[i], targets[i], label_idx[i], i, trainer, stats, log)
                mistaken += wrong
                errors += not correct
                pos += 1
                skip = max(skip - 1, 0)
            stats["errors_per_epoch"].append(errors)
            stats["mistakes_per_epoch"].append(mistaken)
            stats["end_s_per_epoch"].append(float(self.env.now))
            if stop_when_clean and mistaken == 0:
                stats["converged"] = True
                return
        stats["converged"] = bool(stats["mistakes_per_epoch"]) and \
            stats["mistakes_per_epoch"][-1] == 0

    def _passes(self, n, max_epochs, presentations, order, rng):
        """Presentation orders, one array per pass (:func:`markone._internal.checks.epoch_indices`,
        as the core draws them): the figures as given, a seeded shuffle, or the
        explicit ``order`` every pass; cut to ``presentations`` figures in all."""
        left = presentations
        for _ in range(max_epochs if presentations is None else presentations):
            this = epoch_indices(order, n, rng)
            if left is not None:
                this, left = this[:left], left - min(left, len(this))
                if this.size == 0:
                    return
            yield this

    def train(self, images: ArrayLike, labels: ArrayLike, *, max_epochs: int | None = None,
              presentations: int | None = None, rule: str | None = None,
              order: Order = "given", seed: Seed = None, log: bool = False,
              warm_start: bool = False, progress: bool | None = False) -> MachineRun:
        """Show the figures, pass after pass, and learn from the trainer.

        The passes follow :func:`markone.train`'s vocabulary: at most ``max_epochs``
        passes in ``order``, stopping after the first pass without a mistake.

        Parameters
        ----------
        images : array (n, rows, cols) or (n, rows*cols)
            Light levels in [0, 1] (0/1 figures from :mod:`markone.datasets`).
        labels : array (n,)
            Class labels; at most ``2**n_r_units`` classes (binary code) or
            ``n_r_units`` (one-hot).
        max_epochs : int, optional
            Most passes over the set (default 100); training stops after the first
            pass in which no R-unit made a mistake.
        presentations : int, optional
            Show exactly this many figures instead (cycling through the passes), with
            no early stop. Not together with ``max_epochs``.
        rule : {"error_correction", "forced", "gamma"}, optional
            Reinforcement rule; default ``params.rule``.
        order : "given", "shuffle" or sequence of int
            Presentation order per pass, as in :func:`markone.train`: the figures as
            given, a fresh seeded permutation each pass, or an explicit stream of
            example indices shown in every pass (repeats allowed, examples may be left
            out). :func:`verify.machine.check_machine` reports its adversarial
            streams in this form.
        seed : None, int or numpy.random.Generator
            For ``order="shuffle"``: seeds the permutations alone, as
            ``markone.train(..., order="shuffle", seed=seed)`` draws them. None: they
            come from the machine's own generator (seeded by ``MarkI(seed=...)``,
            shared with the photocell noise).
        log : bool
            Keep one :class:`Presentation` record per figure (memory grows with the
            number of presentations; without it memory is O(weights)).
        warm_start : bool
            Continue from the current weights, clock, classes and threshold instead of
            a fresh start (zero weights, clock at 0, ``theta="auto"`` calibrated on
            these images).
        progress : bool or None
            Show a progress bar of the passes (tqdm; ``None``: only when stderr is a
            terminal). Off by default.

        Returns
        -------
        MachineRun
        """
        s = self._begin(images, labels, max_epochs, presentations, rule, order, seed,
                        log, warm_start)
        build_segments = functools.partial(
            Segments.for_session, self, s.X, s.trainer, s.stats, s.records, s.n_total,
            s.plan)
        with progress_bar(s.n_passes, "Mark I passes", enabled=progress) as bar:
            session = self.env.process(self._session(
                s.X, s.codes[s.label_idx], s.label_idx, _ticking(s.passes, bar),
                presentations is None, s.trainer, s.stats, s.records, build_segments))
            with collector_paused(log):
                self.env.run(until=session)
        return self._result(s.trainer, s.codes, s.w0, float(self.env.now - s.start),
                            s.stats, self.retina.settled(s.X) if log else None,
                            s.records)

    def _begin(self, images, labels, max_epochs, presentations, rule, order, seed, log,
               warm_start):
        """Check :meth:`train`'s arguments and start its session: a :class:`_Session`
        (the session's passes are drawn as they are taken). ``images`` may be the
        :class:`TrainingSet` of a fleet (``labels`` then None): its figures and
        labels were checked once for all the fleet's machines of these params."""
        known = images if isinstance(images, TrainingSet) else None
        if known is None:
            X = self._images(images)
            check_label_values(labels, name="labels")   # before NumPy: [1, "a"] text
            labels = np.asarray(labels)
            check_consistent_length(X, labels, names=("images", "labels"))
        else:
            X, labels = known.X, known.labels
        max_epochs = _check_length(max_epochs, presentations)
        order = check_order(order, len(X))
        rng = None if seed is None else as_generator(seed)
        trainer = self._trainer(rule)
        label_idx = self._prepare(X, labels, warm_start, known)
        codes = self.codes_
        assert codes is not None and self.theta is not None   # the labels' classes
        return _Session(
            X, label_idx, codes, trainer, self._new_stats(),
            PresentationLog() if log else None, self.env.now, self.weights,
            self._passes(len(X), max_epochs, presentations, order,
                         self._rng if rng is None else rng),
            max_epochs if presentations is None else -(-presentations // len(X)),
            max_epochs * len(X) if presentations is None else presentations,
            PassPlan(not (isinstance(order, str) and order == "shuffle"),
                     presentations, max_epochs))

    def _prepare(self, X, labels, warm_start, known=None):
        """Start a session on ``X``: a fresh machine unless ``warm_start``, ``theta``
        calibrated when it must be, the patterns primed; returns the labels' class
        indices (new classes added; a fresh machine given the :class:`TrainingSet`
        ``known`` takes its classes and indices, the ones it would find)."""
        if not warm_start:
            self.classes_, self._index = None, {}
            self.reset()
        settled, found = self.retina.settled(X), None
        if self.theta is None or (not warm_start and self.params.theta == "auto"):
            found = self._calibrate(settled)
        assert self.theta is not None
        if self.faults is None:   # the settled figures' patterns, in one pass
            self._patterns.prime(settled, self.theta,
                                 outputs=None if found is None else found.outputs,
                                 active=None if found is None else found.active)
        if known is not None and not warm_start:
            self.classes_, self._index = known.classes, dict(known.class_index)
            return known.label_idx.copy()
        return self._label_indices(labels, grow=True)

    def _result(self, trainer, codes, w0, sim_time_s, stats, figures, records):
        """The :class:`MachineRun` a session leaves."""
        assert self.classes_ is not None
        return MachineRun(
            params=self.params, seed=self.seed, theta=self.theta, rule=trainer.rule,
            classes=tuple(self.classes_.tolist()), codes=codes,
            weight_mask=self.runits.mask, excitatory=self.wiring.excitatory,
            inhibitory=self.wiring.inhibitory, weights_initial=w0, weights=self.weights,
            sim_time_s=sim_time_s, n_presentations=stats["shown"],
            epochs=len(stats["errors_per_epoch"]), converged=stats["converged"],
            mistakes=stats["mistakes"], reinforcements=stats["reinforcements"],
            saturated=stats["saturated"],
            errors_per_epoch=tuple(stats["errors_per_epoch"]),
            mistakes_per_epoch=tuple(stats["mistakes_per_epoch"]),
            end_s_per_epoch=tuple(stats["end_s_per_epoch"]),
            figures=figures, log=records,
            faults=None if self.faults is None else self.faults.plan)

    def learn_one(self, image: ArrayLike, label: Any, *, rule: str | None = None,
                  exposure_s: float | None = None) -> Presentation:
        """Show one figure and let the trainer reinforce; return its
        :class:`Presentation`. A new label becomes a new class (if the code allows).

        ``theta="auto"`` must be calibrated first (:meth:`calibrate` or :meth:`train`).
        """
        x = self._image(image)
        if self.theta is None:
            raise ValueError(
                "theta='auto' is not calibrated yet; call calibrate(images) on typical "
                "figures (or train) first, or set MarkIParams(theta=...)."
            )
        trainer = self._trainer(rule)
        label_idx = self._label_indices(np.asarray([label]), grow=True)[0]
        records: list[Presentation] = []
        codes = self.codes_
        assert codes is not None   # the label's class is known now
        trial = self.env.process(self._trial(x, codes[label_idx], label_idx, 0,
                                             trainer, self._new_stats(), records,
                                             exposure_s))
        self.env.run(until=trial)
        return records[0]


class TrainingSet(NamedTuple):
    """A fleet's figures and labels checked once for all its machines of one
    :class:`MarkIParams` (:meth:`MarkI._training_set`): the checked figures ``X``,
    the ``labels`` as an array, and the ``classes``, their ``class_index`` and the
    labels' class indices ``label_idx`` that a fresh machine finds on them. Passed to
    :meth:`MarkI.train` in place of the images (with labels None), it spares each
    machine the checks and the search for classes; read it only."""

    X: np.ndarray
    labels: np.ndarray
    classes: np.ndarray
    class_index: dict
    label_idx: np.ndarray


class _Session(NamedTuple):
    """A training session as :meth:`MarkI._begin` starts it: the checked figures
    ``X``, their class indices and the class ``codes``, the ``trainer``, the
    ``stats`` and log ``records`` to fill, the clock and weights at the ``start``,
    the ``passes`` (their number, ``n_passes``), the most figures they show,
    ``n_total``, and how they follow each other, ``plan``."""

    X: np.ndarray
    label_idx: np.ndarray
    codes: np.ndarray
    trainer: Trainer
    stats: dict
    records: PresentationLog | None
    start: float
    w0: np.ndarray
    passes: Any
    n_passes: int
    n_total: int
    plan: PassPlan


def machine_seeds(seed: Seed) -> list[int]:
    """The seeds of ``MarkI(params, seed)``'s wiring, R-units and physics.

    >>> a, b = machine_seeds(0), machine_seeds(0)
    >>> a == b, len(a)
    (True, 3)
    """
    return child_seeds(seed if not isinstance(seed, np.random.Generator)
                       else int(seed.integers(2**63)), 3)


def _check_length(max_epochs, presentations):
    """The passes a session may make (``max_epochs``, default
    :data:`DEFAULT_EPOCHS`), after checking it against ``presentations``."""
    if max_epochs is not None and presentations is not None:
        raise ValueError("give max_epochs or presentations, not both.")
    if presentations is not None:
        check_int_at_least(presentations, "presentations", 1)
    return (DEFAULT_EPOCHS if max_epochs is None
            else check_int_at_least(max_epochs, "max_epochs", 1))


def _ticking(passes, bar):
    """The passes, moving ``bar`` one step as each one starts."""
    for this in passes:
        bar.update()
        yield this
