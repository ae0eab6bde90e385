"""verify.panel: the analyst of the console playground's live panel (issue 44).

Its answers are the library's own (check_separable, max_margin, check_cycling, the
certificate document), made JSON-ready; the cycle search is limited by a count.
"""

import json
from fractions import Fraction

from verify.certificate import check_certificate_file
from verify.cycling import check_cycling
import verify.margin
from verify.margin import max_margin
from verify.panel import PanelAnalyst, analyst

XOR = ([[0, 0], [0, 1], [1, 0], [1, 1]], [-1, 1, 1, -1])
THIN = ([[0, 0], [Fraction(1, 1000), 1], [1, 0], [2, Fraction(1, 3)]], [-1, 1, -1, 1])


def test_the_panel_is_the_margin_and_bound_of_max_margin():
    X, y = THIN
    answer, m = analyst().panel(X, y), max_margin(X, y)
    assert answer["separable"] is True
    assert (answer["margin"]["lower"], answer["margin"]["upper"]) == m.interval
    assert answer["novikoff"] == m.bound and answer["bound_theorem"] == m.bound_theorem
    w = [Fraction(v) for v in answer["witness"]]
    assert all(s * (w[0] * a + w[1] * b + w[2]) > 0 for (a, b), s in zip(X, y))
    assert json.loads(json.dumps(answer, allow_nan=False)) == answer


def test_the_cycle_search_stops_at_its_count():
    X, y = [[3, 1], [1, 3], [2, 2], [-1, 0]], [1, 1, -1, -1]   # a long way round
    full = check_cycling(X, y)
    cut = PanelAnalyst().cycle(X, y, budget=2)
    assert not cut["complete"] and not cut["found"]
    answer = PanelAnalyst().cycle(X, y)
    assert answer["found"] == (full.complete and not full.converged)
    assert answer["period_updates"] == full.period_updates


def test_the_certificate_file_is_checked_by_the_kernel(tmp_path):
    for (X, y), separable in ((XOR, False), (THIN, True)):
        path = tmp_path / "cert.json"
        path.write_text(json.dumps(PanelAnalyst().certificate(X, y)))
        assert check_certificate_file(path).separable is separable   # raises if wrong


def test_the_panel_decides_separability_twice_at_most(monkeypatch):
    """The panel's verdict, then the margin's: max_margin decides its data once, not
    once for its bounds and once more for its not-separable answer."""
    calls = []
    real = verify.margin.check_separable
    monkeypatch.setattr(verify.margin, "check_separable",
                        lambda *a, **k: calls.append(1) or real(*a, **k))
    X = [["1/10", "0"], ["0", "1/10"], ["1/10", "1/10"], ["0", "0"], ["1/20", "1/20"]]
    answer = PanelAnalyst().panel(X, [1, 1, -1, -1, 1])
    assert answer["separable"] is False and len(calls) == 1
