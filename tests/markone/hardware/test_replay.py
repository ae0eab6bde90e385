"""Tests of markone.hardware.replay (no browser): the page is self-contained, embeds
the run exactly, and refuses bad runs with clear errors and no output file."""

import copy
import json
import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from markone import online
from markone._internal.io import to_jsonable, write_json
from markone._internal.validation import as_generator
from markone.datasets import letters
from markone.hardware import MachineRun, MarkI, MarkIParams
from markone.hardware.replay import (
    RUN_FORMAT, RUN_VERSION, check_run, render_replay_html, write_replay_html,
)


def machine_run(presentations=30, *, seed=0, **params):
    """A real run: the emulated Mark I learning four letters, with its log."""
    images, labels = letters("ABCD", per_class=3, seed=seed)
    return MarkI(MarkIParams(**params), seed=seed).train(
        images, labels, presentations=presentations, log=True)


def as_json(obj):
    return json.loads(json.dumps(to_jsonable(obj)))


def make_run(n_presentations=20, *, seed=0, n_a=512, n_r=8, shape=(20, 20), n_classes=3,
             w_max=3, step_s=0.2, source_sets=False):
    """A Mark-I-like run in the machine-run JSON format, built with markone.online.

    Returns ``(run, weights)`` where ``weights[t]`` is the (n_r, n_a) weight matrix the
    generator held after presentation t: an oracle independent of the "changes" log.
    """
    rng = as_generator(seed)
    n_pix = shape[0] * shape[1]
    figures = (rng.random((2 * n_classes, n_pix)) < 0.3).astype(int)
    figure_label = [k % n_classes for k in range(len(figures))]
    exc, inh = rng.integers(0, n_pix, (2, n_a, 5))
    bits = int(np.ceil(np.log2(max(n_classes, 2))))
    codes = np.array([[1 if (c >> (r % bits)) & 1 else -1 for r in range(n_r)]
                      for c in range(n_classes)])
    mask = np.ones((n_r, n_a), dtype=int)
    if source_sets:
        mask = (np.arange(n_a)[None, :] // (n_a // n_r) == np.arange(n_r)[:, None]).astype(int)
    W = np.zeros((n_r, n_a), dtype=int)
    t, presentations, history = 0.0, [], []
    for _ in range(n_presentations):
        f = int(rng.integers(len(figures)))
        x = figures[f]
        a = (x[exc].sum(1) - x[inh].sum(1) >= 1).astype(int)
        scores = online.score(W * mask, a)
        target = codes[figure_label[f]]
        reinforced = online.is_mistake(scores, target)
        wanted = W + online.increment(a[None, :], target[:, None]) * reinforced[:, None] * mask
        new = np.clip(wanted, -w_max, w_max)
        moved = np.argwhere(new != W)
        motor_s = step_s * float(np.abs(new - W).max())
        response = online.predict_sign(scores)
        dist = (codes != response).sum(1)  # nearest code; ties: best agreement
        decoded = int(np.where(dist == dist.min(), codes @ scores, -np.inf).argmax())
        end = t + 0.15 + motor_s
        presentations.append({
            "t_s": t, "end_t_s": end, "figure": f, "label": figure_label[f],
            "active_a": np.flatnonzero(a).tolist(), "scores": scores.astype(float).tolist(),
            "response": response.tolist(), "target": target.tolist(),
            "reinforced": reinforced.tolist(),
            "changes": [[int(r), int(c), int(new[r, c])] for r, c in moved],
            "saturated": int((wanted != new).sum()), "motor_s": motor_s,
            "figure_correct": decoded == figure_label[f],
        })
        W = new
        history.append(W.copy())
        t = end + 0.05
    run = {
        "format": RUN_FORMAT, "version": RUN_VERSION, "markone_version": "0.1.0",
        "params": {"w_max": w_max, "motor_step_s": step_s}, "seed": seed,
        "retina_shape": list(shape), "n_a_units": n_a, "n_r_units": n_r,
        "topology": "source_sets" if source_sets else "full",
        "weight_mask": mask.tolist() if source_sets else None,
        "class_code": "binary", "classes": [chr(ord("A") + c) for c in range(n_classes)],
        "codes": codes.tolist(),
        "wiring": {"excitatory": exc.tolist(), "inhibitory": inh.tolist()},
        "figures": figures.tolist(), "weights_initial": np.zeros((n_r, n_a), int).tolist(),
        "weights_final": W.tolist(), "sim_time_s": t, "presentations": presentations,
    }
    return run, history


def embedded_run(html):
    """The run JSON embedded in a replay page."""
    m = re.search(r'<script type="application/json" id="markone-run">(.*?)</script>', html, re.S)
    assert m is not None, "the page has no embedded run"
    return json.loads(m.group(1))


@pytest.fixture(scope="module")
def run():
    return make_run(12, seed=1, n_a=64, n_r=4, shape=(6, 6))[0]


def test_generator_changes_replay_to_its_own_weights():
    # the fixture's "changes" log rebuilds the weights it held (guards the fixture)
    run, history = make_run(15, seed=3, n_a=64, n_r=4, shape=(6, 6), w_max=2)
    W = np.array(run["weights_initial"])
    for p, expected in zip(run["presentations"], history):
        for r, a, v in p["changes"]:
            W[r, a] = v
        np.testing.assert_array_equal(W, expected)
    assert sum(p["saturated"] for p in run["presentations"]) > 0  # end stops were hit
    assert not all(p["figure_correct"] for p in run["presentations"])


def test_page_is_self_contained(run, tmp_path):
    html = write_replay_html(run, tmp_path / "r.html").read_text()
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", html, re.I)
    assert "<link" not in html and "<script src" not in html
    assert "@import" not in html and "fetch(" not in html and "XMLHttpRequest" not in html
    assert "__MARKONE_" not in html.split('id="markone-run"')[0]  # placeholders filled
    assert html.count("<style>") == 1 and "window.markoneConsole" in html


def test_page_embeds_the_run_exactly(run, tmp_path):
    html = write_replay_html(run, tmp_path / "r.html").read_text()
    assert embedded_run(html) == run


def test_path_and_dict_give_the_same_page(run, tmp_path):
    path = write_json(tmp_path / "run.json", run)
    assert render_replay_html(path) == render_replay_html(str(path)) == render_replay_html(run)


def test_speed_is_embedded(run):
    html = render_replay_html(run, speed=7.5)
    m = re.search(r'id="markone-options">(.*?)</script>', html)
    assert json.loads(m.group(1)) == {"speed": 7.5}


@given(st.lists(st.text(), min_size=1, max_size=3, unique=True))
def test_any_label_text_round_trips_through_the_page_hypo(labels):
    # labels may hold "</script>", "<!--" or placeholder names: the JSON must survive
    run, _ = make_run(2, seed=0, n_a=4, n_r=2, shape=(2, 2), n_classes=len(labels))
    run["classes"] = labels
    html = render_replay_html(run)
    assert embedded_run(html) == run
    assert html.lower().count("</script>") == 3  # run, options, console.js


def test_writes_atomically_into_new_folders(run, tmp_path):
    out = write_replay_html(run, tmp_path / "a" / "b" / "replay.html")
    assert out == tmp_path / "a" / "b" / "replay.html" and out.is_file()
    assert [p.name for p in out.parent.iterdir()] == ["replay.html"]


def _broken(run, edit):
    bad = copy.deepcopy(run)
    edit(bad)
    return bad


BAD_RUNS = {
    "format": (lambda r: r.update(format="markone-certificate"), "format 'markone-certificate'"),
    "newer version": (lambda r: r.update(version=RUN_VERSION + 1), "newer markone"),
    "no version": (lambda r: r.pop("version"), "no valid format version"),
    "missing field": (lambda r: r.pop("weights_initial"), "missing the field(s) weights_initial"),
    "missing presentation field": (lambda r: r["presentations"][3].pop("changes"),
                                   "presentations[3] is missing the field(s) changes"),
    "figure out of range": (lambda r: r["presentations"][0].update(figure=99),
                            'presentations[0]: "figure" is 99'),
    "weights shape": (lambda r: r["weights_initial"].pop(), "weights_initial must be 4 rows"),
    "change out of range": (lambda r: r["presentations"][1]["changes"].append([9, 0, 1]),
                            "presentations[1]: changes must be"),
    "count type": (lambda r: r.update(n_a_units="many"), "n_a_units must be a positive"),
    "wrong type": (lambda r: r["presentations"][0].update(active_a=5), "wrong type"),
}


@pytest.mark.parametrize("case", sorted(BAD_RUNS))
def test_bad_run_is_refused_and_nothing_written(run, tmp_path, case):
    edit, message = BAD_RUNS[case]
    out = tmp_path / "r.html"
    with pytest.raises(ValueError, match=re.escape(message)):
        write_replay_html(_broken(run, edit), out)
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_bad_arguments(run, tmp_path):
    with pytest.raises(ValueError, match=r"speed\(=0\)"):
        write_replay_html(run, tmp_path / "r.html", speed=0)
    with pytest.raises(TypeError, match="speed must be a number"):
        write_replay_html(run, tmp_path / "r.html", speed="fast")
    with pytest.raises(FileNotFoundError, match="no such run file"):
        write_replay_html(tmp_path / "missing.json", tmp_path / "r.html")
    with pytest.raises(TypeError, match="run_or_path must be a MachineRun"):
        write_replay_html([1, 2], tmp_path / "r.html")
    (tmp_path / "junk.json").write_text("{not json")
    with pytest.raises(ValueError, match="not valid JSON"):
        write_replay_html(tmp_path / "junk.json", tmp_path / "r.html")
    with pytest.raises(TypeError, match="JSON object"):
        check_run([run])


def test_machine_run_object_file_and_loaded_run_give_the_same_page(tmp_path):
    run = machine_run(12)
    path = run.save(tmp_path / "run.json")
    html = render_replay_html(run)
    assert embedded_run(html) == as_json(run.to_dict())
    assert render_replay_html(path) == html
    assert render_replay_html(MachineRun.load(path)) == html


def test_run_without_log_is_refused(tmp_path):
    images, labels = letters("AB", per_class=2, seed=0)
    run = MarkI(MarkIParams(), seed=0).train(images, labels, presentations=3)
    with pytest.raises(ValueError, match=r"no presentations to replay.*log=True") as exc:
        write_replay_html(run, tmp_path / "r.html")
    assert not (tmp_path / "r.html").exists()
    # a whole run saved without its log is not "malformed" (the walk of issue 37)
    assert "recorded without its log" in str(exc.value)
    assert "malformed" not in str(exc.value)


def test_check_run_accepts_source_sets_and_returns_the_run():
    run, _ = make_run(3, seed=2, n_a=16, n_r=4, shape=(4, 4), source_sets=True)
    assert check_run(run) is run
