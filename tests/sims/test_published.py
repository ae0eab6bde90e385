"""The published-numbers experiment's contract: every claim named with ``published``
and ``interval``, its citations in the bibliography, its intervals exact, its sweep
resumable; and the page that shows it, generated from its results."""

import json
import re

import numpy as np
import pytest
from scipy.stats import binom, binomtest

import sims.published as pub
from markone._internal.sources import SOURCES, cited_keys
from markone.datasets import shapes
from sims._stats import median_interval
from sims.runner import run_experiment
from _paths import ROOT

#: The smallest sweep that runs every claim (few letters, few A-units, few figures).
TINY = pub.TINY
PAGE = ROOT / "docs" / "history-published.md"
STORED = ROOT / "docs" / "figures" / "published-results.json"


@pytest.fixture(scope="module")
def sweep(tmp_path_factory):
    out = tmp_path_factory.mktemp("published")
    return run_experiment("published", out=out, seed=3, overrides=TINY, plot=False)


def test_every_published_number_has_its_keys(sweep):
    claims = sweep.results["claims"]
    assert sorted(claims) == sorted(c.key for c in pub.CLAIMS)
    for key, c in claims.items():
        assert {"published", "interval", "measured", "inside", "agrees", "why",
                "source", "status", "settings"} <= set(c), key
        low, high = c["interval"]
        assert 0 <= low <= c["measured"] <= high, key
        assert c["inside"] == (low <= c["published"] <= high), key


def test_citations_resolve_in_the_bibliography(sweep):
    for key, c in sweep.results["claims"].items():
        assert cited_keys(c["source"]), (key, c["source"])
        texts = [c["source"], c["why"], *(row["note"] for row in c["settings"])]
        for text in texts:
            assert all(k in SOURCES for k in cited_keys(text)), (key, text)
        for row in c["settings"]:
            assert row["provenance"] in ("documented", "assumed"), row
            if row["provenance"] == "documented":
                assert cited_keys(row["note"]), (key, row)


def test_the_secondary_figures_are_marked_unconfirmed(sweep):
    claims = sweep.results["claims"]
    for key in ("square_circle", "square_diamond", "e_f"):
        assert claims[key]["status"] == "secondary, unconfirmed"
        assert "WikipediaMarkI2026" in cited_keys(claims[key]["source"])
    # a setting changed from what the source states is no longer documented
    rows = {r["name"]: r for r in claims["square_circle"]["settings"]}
    assert rows["training images"]["value"] == TINY["shapes_train"]
    assert rows["training images"]["provenance"] == "assumed"
    assert "10000" in rows["training images"]["note"]


def test_intervals_are_exact(sweep):
    conf = sweep.results["confidence"]
    for key, c in sweep.results["claims"].items():
        if "values" in c:
            assert len(c["values"]) == TINY["runs"]
            assert c["measured"] == float(np.median(c["values"]))
            assert c["interval"] == list(map(float, median_interval(c["values"], conf)))
        else:
            ci = binomtest(c["successes"], c["trials"]).proportion_ci(conf, "exact")
            assert c["interval"] == pytest.approx([ci.low, ci.high], abs=1e-12), key
            assert c["measured"] == c["successes"] / c["trials"]


def test_counts_add_up_over_runs(sweep):
    c = sweep.results["claims"]
    assert c["navy_one_typeface"]["trials"] == TINY["runs"]
    figures = 2 * len(TINY["navy_chars"]) * TINY["navy_per_class"] * TINY["runs"]
    assert c["navy_second_typeface"]["trials"] == figures
    for key in ("square_circle", "square_diamond", "e_f"):
        assert c[key]["trials"] == TINY["test_figures"] * TINY["runs"]


def test_the_sweep_resumes_to_identical_results(sweep, tmp_path):
    log = sweep.results_path.parent / "tasks.jsonl"
    out = tmp_path / "published"
    out.mkdir()
    lines = log.read_text().splitlines(keepends=True)
    (out / "tasks.jsonl").write_text("".join(lines[:-2]))     # two tasks lost
    (out / "sweep.json").write_bytes((log.parent / "sweep.json").read_bytes())
    again = run_experiment("published", out=tmp_path, seed=3, overrides=TINY, plot=False)
    assert (again.n_run, again.n_reused) == (2, sweep.n_tasks - 2)
    assert again.results_path.read_bytes() == sweep.results_path.read_bytes()


@pytest.mark.parametrize("runs, confidence, need", [(5, 0.95, 6), (6, 0.99, 8)])
def test_too_few_runs_for_a_median_are_refused_before_any_task(runs, confidence, need):
    # the median interval of the cards needs 2**-runs <= (1 - confidence) / 2
    with pytest.raises(ValueError, match=rf"runs\(={runs}\) is too few.*--set runs={need}"):
        pub.tasks({**pub.DEFAULTS, "runs": runs, "confidence": confidence}, 0)
    assert len(pub.tasks({**pub.DEFAULTS, "runs": need, "confidence": confidence}, 0))


@pytest.mark.parametrize("n", range(6, 40))
def test_median_interval_is_the_binomial_order_statistics(n):
    low, high = median_interval(range(n), 0.95)
    # l = low + 1 is the largest with P(B(n, 1/2) <= l - 1) <= 2.5%
    assert binom.cdf(low, n, 0.5) <= 0.025 < binom.cdf(low + 1, n, 0.5)
    assert high == n - 1 - low


def test_a_diamond_is_a_square_on_its_corner():
    # a diamond reaching 4.5 cells from the centre of a 9 x 9 retina: the cells with
    # |i| + |j| <= 4, 2*4*4 + 2*4 + 1 = 41 of them, one in the top row
    image = shapes(1, kinds=("diamond",), size=9, diameter=(4.5 * 2 ** 0.5,) * 2,
                   rotate=False, seed=0)[0][0]
    assert int(image.sum()) == 41
    assert image[0].tolist() == [0, 0, 0, 0, 1, 0, 0, 0, 0]


def _block(name):
    found = re.search(rf"<!-- {name}:start -->\n(.*?)\n<!-- {name}:end -->",
                      PAGE.read_text(encoding="utf-8"), re.S)
    assert found, f"{PAGE.name} lost its {name} markers"
    return found.group(1)


def test_the_page_is_generated_from_the_stored_results():
    stored = json.loads(STORED.read_text(encoding="utf-8"))
    assert _block("published-table") == pub.claims_page(stored)
    assert stored["config"] == pub.DEFAULTS and stored["seed"] == 0


@pytest.mark.slow
def test_the_stored_results_are_a_default_run():
    stored = json.loads(STORED.read_text(encoding="utf-8"))
    fresh = json.loads(json.dumps(pub.run(seed=0)))
    assert {k: v for k, v in stored.items() if k not in ("experiment", "config",
                                                         "seed")} == fresh
