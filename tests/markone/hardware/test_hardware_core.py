"""The ideal Mark I is the core perceptron, bit for bit (issue 5).

In the ideal limit each R-unit's weights and mistakes must equal
``markone.train(A, code[:, k], intercept=False, max_epochs=E)`` on the machine's own
A-unit outputs: the machine realises the core's rule, it does not re-implement it.
"""

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import markone
from markone.datasets import letters, shapes
from markone.hardware import MarkI, MarkIParams

SMALL = dict(retina_shape=(6, 6), n_a_units=40, n_excitatory=3, n_inhibitory=2,
             n_r_units=3)


def core(A, y, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", markone.ConvergenceWarning)
        return markone.train(A, y, intercept=False, **kw)


def assert_machine_is_core(machine, run, images, labels, epochs):
    """Compare every R-unit with the core; return how many were compared. An R-unit
    blind to some figure (no active A-unit in its source set) is skipped: the core
    rejects zero rows without an intercept (the machine's behaviour on them is
    tested in test_blind_r_unit_never_converges)."""
    A = machine.a_features(images)
    code = machine.code(labels)
    mask = run.weight_mask
    compared = 0
    for k in range(machine.params.n_r_units):
        cols = np.arange(A.shape[1]) if mask is None else np.flatnonzero(mask[k])
        if not A[:, cols].any(axis=1).all():
            continue
        compared += 1
        ref = core(A[:, cols], code[:, k], max_epochs=epochs)
        np.testing.assert_array_equal(run.weights[k, cols], ref.w)
        assert run.mistakes[k] == ref.mistakes
        assert run.reinforcements[k] == ref.mistakes
        if mask is not None:
            assert not run.weights[k, ~mask[k]].any()
    return compared


@pytest.mark.parametrize("topology", ["full", "source_sets"])
def test_ideal_machine_equals_core_on_letters(topology):
    images, labels = letters("ABCDE", per_class=4, seed=1)
    machine = MarkI(MarkIParams.ideal(topology=topology), seed=3)
    run = machine.train(images, labels, max_epochs=15)
    assert run.mistakes.sum() > 0
    assert assert_machine_is_core(machine, run, images, labels, 15) == 8


def test_ideal_machine_stops_when_every_r_unit_had_a_clean_pass():
    images, labels = letters("ABC", per_class=3, seed=0)
    machine = MarkI(MarkIParams.ideal(), seed=0)
    run = machine.train(images, labels, max_epochs=50)
    A, code = machine.a_features(images), machine.code(labels)
    refs = [core(A, code[:, k], max_epochs=50) for k in range(8)]
    assert run.converged and all(r.converged for r in refs)
    assert run.epochs == max(r.epochs for r in refs)
    assert run.mistakes_per_epoch[-1] == 0


def test_ideal_stream_of_presentations_equals_core_order():
    images, labels = shapes(7, seed=2)
    machine = MarkI(MarkIParams.ideal(class_code="one_hot"), seed=5)
    run = machine.train(images, labels, presentations=17)
    A, code = machine.a_features(images), machine.code(labels)
    stream = np.arange(17) % 7
    for k in range(8):
        ref = core(A, code[:, k], order=stream, max_epochs=1)
        np.testing.assert_array_equal(run.weights[k], ref.w)
        assert run.mistakes[k] == ref.mistakes


def test_learn_one_equals_train_one_figure_at_a_time():
    images, labels = letters("AB", per_class=3, seed=4)
    batch = MarkI(MarkIParams.ideal(), seed=1)
    run = batch.train(images, labels, presentations=6)
    one = MarkI(MarkIParams.ideal(), seed=1)
    one.calibrate(images)
    for image, label in zip(images, labels):
        one.learn_one(image, label)
    np.testing.assert_array_equal(one.weights, run.weights)


@given(seed=st.integers(0, 2**16), n=st.integers(1, 8), n_classes=st.integers(1, 5),
       epochs=st.integers(1, 6), topology=st.sampled_from(["full", "source_sets"]),
       data=st.data())
def test_ideal_machine_equals_core_hypo(seed, n, n_classes, epochs, topology, data):
    rng = np.random.default_rng(seed)
    images = (rng.random((n, 6, 6)) < data.draw(st.floats(0.1, 0.9))).astype(np.uint8)
    labels = rng.integers(0, n_classes, n)
    params = MarkIParams.ideal(topology=topology, **SMALL)
    machine = MarkI(params, seed=seed)
    run = machine.train(images, labels, max_epochs=epochs)
    assert_machine_is_core(machine, run, images, labels, epochs)


def test_blind_r_unit_never_converges():
    """A blank figure activates no A-unit: its score is 0, a mistake every time, and
    no motor can fix it (the core refuses such data without an intercept)."""
    images = np.zeros((2, 20, 20), dtype=np.uint8)
    images[0, 5:15, 5:15] = 1
    machine = MarkI(MarkIParams.ideal(), seed=0)
    run = machine.train(images, ["ink", "blank"], max_epochs=6)
    assert not run.converged
    assert run.epochs == 6 and run.errors_per_epoch[-1] >= 1
    blank_target = machine.code(["blank"])[0]
    # every R-unit errs on the blank figure in each of the 6 passes
    assert (run.mistakes >= 6).all()
    assert machine.a_features(images)[1].sum() == 0 and blank_target.shape == (8,)


@given(seed=st.integers(0, 2**16), n=st.integers(1, 6))
def test_default_physics_decisions_come_from_the_core_hypo(seed, n):
    """With default physics (end stops, steps, motors) the decisions still follow
    the core's rule: every logged reinforcement is exactly a core mistake."""
    rng = np.random.default_rng(seed)
    images = (rng.random((n, 6, 6)) < 0.5).astype(np.uint8)
    labels = rng.integers(0, 3, n)
    machine = MarkI(MarkIParams(weight_range=(-2, 2), **SMALL), seed=seed)
    run = machine.train(images, labels, max_epochs=4, log=True)
    for step, rec in enumerate(run.log):
        before = run.weights_initial if step == 0 else run.weights_at(step - 1)
        a = np.zeros(machine.params.n_a_units)
        a[list(rec.active_a)] = 1
        scores = before @ a
        np.testing.assert_array_equal(rec.scores, scores)
        expected = markone.online.is_mistake(scores, np.array(rec.target))
        assert list(rec.reinforced) == expected.tolist()


@given(seed=st.integers(0, 2**16), epochs=st.integers(1, 4))
def test_shuffled_ideal_machine_equals_core_on_its_stream_hypo(seed, epochs):
    """With order="shuffle" the logged order of figures is one online stream; the core
    replaying that stream once gives the same weights and mistakes."""
    rng = np.random.default_rng(seed)
    images = (rng.random((6, 6, 6)) < 0.6).astype(np.uint8)
    labels = rng.integers(0, 4, 6)
    machine = MarkI(MarkIParams.ideal(**SMALL), seed=seed)
    run = machine.train(images, labels, max_epochs=epochs, order="shuffle", log=True)
    stream = [rec.figure for rec in run.log]
    A, code = machine.a_features(images), machine.code(labels)
    for k in range(3):
        if not A.any(axis=1).all():
            break
        ref = core(A, code[:, k], order=stream, max_epochs=1)
        np.testing.assert_array_equal(run.weights[k], ref.w)
        assert run.mistakes[k] == ref.mistakes


@given(seed=st.integers(0, 2**16), shuffle_seed=st.integers(0, 2**16),
       epochs=st.integers(1, 5))
def test_seeded_shuffle_is_the_cores_shuffle_hypo(seed, shuffle_seed, epochs):
    """``MarkI.train(order="shuffle", seed=s)`` draws the passes as
    ``markone.train(order="shuffle", seed=s)`` does: the ideal machine's R-units equal
    the core trained with the same ``order`` and ``seed``, with no log to replay."""
    rng = np.random.default_rng(seed)
    images = (rng.random((7, 6, 6)) < 0.6).astype(np.uint8)
    labels = rng.integers(0, 4, 7)
    machine = MarkI(MarkIParams.ideal(**SMALL), seed=seed)
    run = machine.train(images, labels, max_epochs=epochs, order="shuffle",
                        seed=shuffle_seed)
    A, code = machine.a_features(images), machine.code(labels)
    if not A.any(axis=1).all():   # a blind figure: the core refuses zero rows
        return
    for k in range(3):
        ref = core(A, code[:, k], max_epochs=epochs, order="shuffle", seed=shuffle_seed)
        np.testing.assert_array_equal(run.weights[k], ref.w)
        assert run.mistakes[k] == ref.mistakes


def test_shuffle_seed_changes_only_the_order():
    """The same machine with shuffle seeds 1, 1, 2: equal runs for equal seeds, and the
    explicit seed leaves the machine's own generator (photocell noise) alone."""
    images, labels = letters("ABCDEF", per_class=2, seed=0)
    machine = MarkI(MarkIParams(photocell_noise_sd=0.1), seed=0)
    orders = [[rec.figure for rec in machine.train(images, labels, max_epochs=2,
                                                   order="shuffle", seed=s,
                                                   log=True).log] for s in (1, 1, 2)]
    assert orders[0] == orders[1] != orders[2]
    given_order = machine.train(images, labels, max_epochs=1, log=True)
    seeded_given = machine.train(images, labels, max_epochs=1, seed=5, log=True)
    assert given_order.log == seeded_given.log   # seed= only seeds shuffles


def test_shuffle_is_seeded_and_changes_the_order():
    images, labels = letters("ABCDEF", per_class=2, seed=0)
    orders = [[rec.figure for rec in MarkI(seed=s).train(images, labels, max_epochs=2,
                                                         order="shuffle", log=True).log]
              for s in (1, 1, 2)]
    assert orders[0] == orders[1] != orders[2]
    assert orders[0][:12] != list(range(12)) and sorted(orders[0][:12]) == list(range(12))
