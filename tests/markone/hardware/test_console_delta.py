"""The live console page applies an answer in the work of what it changed (issue 44,
item 4), in a real headless Chromium: after a load, each answer (a figure presented,
reinforced, a fault) is checked and replayed from the presentations it brings only,
as many at 500 figures as at 50 (the page's own work counters,
``window.markoneConsole.work()``), and the page after such answers, the figure on
show replaced and a snapshot boundary crossed, equals the page loaded anew.
"""

import numpy as np
import pytest

from test_console_browser import live, new_page, serve, settled

pytestmark = pytest.mark.browser


def session_page(browser, tmp_path, n):
    """A console whose session already holds ``n`` presented, reinforced figures,
    and a page showing it."""
    server = serve(tmp_path / f"run{n}.json")
    rng = np.random.default_rng(n)
    for k in range(n):
        server.session.present((rng.random(400) < 0.15).astype(float), "AB"[k % 2])
        server.session.reinforce()
    page, errors = new_page(browser)
    page.goto(server.url)
    settled(page)
    assert live(page)["presentations"] == n
    return server, page, errors


def click(page, figure, label, trainer=True):
    """Present ``figure`` as ``label`` from the page, and wait for the answer."""
    page.evaluate("cells => window.markoneLive.setEasel(cells)", list(figure))
    page.fill("#live-label", label)
    page.set_checked("#live-trainer", trainer)
    page.click("#live-present")
    settled(page)


def work_of(page, act):
    """The page's work counters spent by ``act()``."""
    before = page.evaluate("window.markoneConsole.work()")
    act()
    after = page.evaluate("window.markoneConsole.work()")
    return {k: after[k] - before[k] for k in after}


def test_an_answer_costs_what_it_changed_not_the_session(browser, tmp_path):
    spent = {}
    for n in (50, 500):
        server, page, errors = session_page(browser, tmp_path, n)
        figure = np.zeros(400)
        figure[45:55] = 1
        spent[n] = [
            work_of(page, lambda: click(page, figure, "A")),
            work_of(page, lambda: click(page, 1 - figure, "B", trainer=False)),
            work_of(page, lambda: (page.click("#live-reinforce"), settled(page))),
        ]
        assert live(page)["presentations"] == n + 2 and not live(page)["pending"]
        page.close()
        server.close()
        assert errors == []
    # one new presentation each; the reinforce replaces the figure on show
    assert spent[50] == spent[500] == [
        {"checked": 1, "replayed": 1, "loads": 0, "updates": 1}] * 3


def test_many_incremental_answers_equal_the_page_loaded_anew(browser, tmp_path):
    server, page, errors = session_page(browser, tmp_path, 60)   # snapshots every 32
    rng = np.random.default_rng(1)
    for k in range(6):   # across presentation 64, with a figure left on show between
        click(page, (rng.random(400) < 0.2).astype(float), "ABC"[k % 3], trainer=k % 2 == 0)
        if k == 3:
            page.fill("#live-aunit", "7")
            page.click("#live-kill")
            settled(page)
    page.click("#live-reinforce")
    settled(page)
    assert page.evaluate("window.markoneConsole.work()")["loads"] == 1

    probe = ("steps => { const mc = window.markoneConsole, seen = [];"
             " for (const s of steps) { mc.jump(s); seen.push(mc.state()); }"
             " return [window.markoneLive.run(), seen]; }")
    steps = [-1, 0, 31, 32, 63, 64, 65]
    before = page.evaluate(probe, steps)
    page.reload()
    settled(page)
    after = page.evaluate(probe, steps)
    for got in (before, after):
        got[0].pop("weights_final")   # follows from the presentations' changes
    assert after == before
    assert len(after[0]["presentations"]) == 66 and after[0]["faults"]["faults"]
    page.close()
    server.close()
    assert errors == []
