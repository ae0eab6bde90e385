"""``markone demo`` end to end: the summary's numbers, the files, the index page."""

import contextlib
import functools
import io
import json
import re
from html.parser import HTMLParser

import pytest
from _browser import SCREENS, figure_display_problems

from markone.cli import main


class _Refs(HTMLParser):
    def __init__(self):
        super().__init__()
        self.refs = []

    def handle_starttag(self, tag, attrs):
        for k, v in attrs:
            if k in ("src", "href"):
                self.refs.append(v)


@pytest.fixture(scope="module", params=["small", pytest.param("full", marks=pytest.mark.slow)])
def demo(request, tmp_path_factory):
    """Run the demo once, as a user would: through the command line.

    Its Mark I section (the letters demo: training, four pictures and an animation
    of every presentation) is two thirds of the tour's time; in the default suite it
    learns 2 letters from 2 figures each instead of 4 from 5, through the same code
    (every section, figure, caption and link of the tour is still made and checked).
    The tour exactly as shipped runs with ``-m slow``."""
    out = tmp_path_factory.mktemp("demo") / "markone-demo"
    printed = io.StringIO()
    with pytest.MonkeyPatch.context() as mp:
        if request.param == "small":
            from markone.hardware import demo as machine_demo

            mp.setattr(machine_demo, "letters_demo", functools.partial(
                machine_demo.letters_demo, chars="AB", per_class=2))
        with contextlib.redirect_stdout(printed):
            assert main(["demo", "--out", str(out)]) == 0
    return out, json.loads((out / "summary.json").read_text()), printed.getvalue()


def test_demo_numbers_follow_theory(demo):
    out, s, text = demo
    assert s["core"]["mistakes"] > 0 and not s["core"]["hard_converged"]
    assert s["separability"] == {"xor_separable": False, "certificate_checked": True,
                                 "iris_separable": True}
    assert s["worst_case"]["tight"]
    assert s["xor"]["period_updates"] == 4 and s["xor"]["converged"] is False
    assert s["xor"]["epochs"] == 1000
    assert "XOR" in text and "Mark I" in text
    # every pass of XOR's cycle gets all four wrong: said so, not "at least 4" of 4
    assert "after 1000 passes it still got all 4 examples wrong in every pass." in text


def test_index_references_only_files_that_exist(demo):
    out, s, _ = demo
    page = (out / "index.html").read_text()
    parser = _Refs()
    parser.feed(page)
    assert parser.refs, "the index shows nothing"
    for ref in parser.refs:
        assert not re.match(r"[a-z]+://", ref), ref
        if ref.startswith("#"):  # a cited source: its entry under "Sources" on this page
            assert f'<li id="{ref[1:]}">' in page, ref
        else:
            assert (out / ref).is_file(), ref
    assert {"core_iris.png", "orthonormal.png", "xor_cycle.png", "replay.html"} <= set(parser.refs)
    assert {"#Navy1960", "#MinskyPapert1969"} <= set(parser.refs)  # the page cites
    assert not list(out.glob("*.tmp")) and not list(out.glob(".*.tmp"))


def test_demo_prints_a_summary(demo):
    out, s, printed = demo
    assert f"wrote {out / 'index.html'}" in printed
    assert "== The Mark I learning letters" in printed


def test_every_figure_is_drawn_for_a_projector(demo):
    """150 dpi or more, shown on the index page at its own size in pixels (so its
    10 pt text is about 21 px there, as large as the page's 20 px body text; issue
    29: it was 96/dpi of that, 13 px), with a caption that is a sentence, not a file
    name."""
    from PIL import Image

    out, _, _ = demo
    page = (out / "index.html").read_text()
    figures = sorted(out.glob("*.png")) + sorted(out.glob("*.gif"))
    assert len(figures) >= 8
    for path in figures:
        with Image.open(path) as im:
            dpi = im.info.get("dpi", (0, 0))[0] if path.suffix == ".png" else 150
            assert round(dpi) >= 150 and im.size[0] >= 450, (path.name, dpi, im.size)
        if path.suffix == ".png":
            tag = re.search(rf'<img src="{re.escape(path.name)}" width="(\d+)" '
                            rf'alt="([^"]+)"', page)
            assert tag, path.name
            assert int(tag.group(1)) == im.size[0]
            assert path.name not in tag.group(2) and len(tag.group(2).split()) >= 6


def test_sigterm_during_the_demo_leaves_nothing_behind(tmp_path):
    # a real SIGTERM (kill, a CI timeout) while the demo writes into its hidden staging
    # folder: the command removes it and ends with 143 = 128 + SIGTERM (issue 31)
    import signal
    import subprocess
    import sys
    import time

    from markone.cli._errors import EXIT_TERMINATED

    proc = subprocess.Popen([sys.executable, "-m", "markone", "demo", "--out", "demo"],
                            cwd=tmp_path, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    try:
        for _ in range(1200):                 # poll for the staging folder (<= 2 min)
            if any(p.name.endswith(".staging") for p in tmp_path.iterdir()):
                break
            assert proc.poll() is None, proc.stderr.read().decode()
            time.sleep(0.1)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=120) == EXIT_TERMINATED
    finally:
        proc.kill()
    assert "terminated (SIGTERM)" in proc.stderr.read().decode()
    assert list(tmp_path.iterdir()) == []


@pytest.mark.browser
@pytest.mark.parametrize(("viewport", "text_share"), SCREENS)
def test_the_page_shows_figures_whole_and_readable(demo, browser, viewport, text_share):
    """Measured in headless Chromium on a room's screen (1920 x 1080) and a laptop's
    (1366 x 768): nothing scrolls sideways, no figure is cut off (issue 37: the iris
    figure, 1560 px, was cut off at 1366 px), and every figure's smallest text shows
    at least as large as the body text in a room (issue 29: 0.64 of it before, 13 px
    text against 20 px) and three quarters of it on a laptop."""
    out, _, _ = demo
    page = browser.new_page(viewport=viewport)
    page.goto((out / "index.html").as_uri(), wait_until="load")
    assert page.evaluate("document.images.length") >= 8
    assert figure_display_problems(page, text_share=text_share) == []
    page.close()


def test_a_weak_result_on_new_figures_is_explained_from_the_run(demo):
    # issue 37: "misread 8 of 20" new figures, with no word on why. The reason printed
    # is derived from this run's numbers and cites the bibliography.
    from markone.hardware.demo import generalisation_note

    _, s, printed = demo
    m = s["machine"]
    n, right = m["n_figures"], round(m["test_accuracy"] * m["n_figures"])
    note = generalisation_note(m)
    assert (note != "") == (right < n and m["train_accuracy"] > m["test_accuracy"])
    assert " ".join(note.split()) in " ".join(printed.split())
    if note:
        assert f"from only {n // len(m['chars'])} placed figures" in note


@pytest.mark.parametrize(("train", "test", "said"), [
    (1.0, 0.6, "It read all 20 training figures right, but"),
    (0.9, 0.6, "It read 18 of its 20 training figures right, but"),
    (1.0, 1.0, None), (0.5, 0.5, None), (0.5, 0.9, None)])
def test_generalisation_note_says_what_was_measured(train, test, said):
    from markone._internal.sources import cited_keys
    from markone.hardware.demo import generalisation_note

    note = generalisation_note({"n_figures": 20, "chars": "ABCD", "train_accuracy": train,
                                "test_accuracy": test})
    if said is None:
        assert note == ""
    else:
        assert note.startswith(" " + said) and "from only 5 placed figures" in note
        assert cited_keys(note) == ["Bishop2006"]


def test_getting_started_describes_what_the_demo_prints(demo):
    # the page said the tour prints each response unit's mistakes and the end stops'
    # blocked moves; it prints neither (`markone machine demo letters` does)
    from _paths import ROOT

    _, _, printed = demo
    page = (ROOT / "docs" / "getting-started.md").read_text(encoding="utf-8")
    tour = page[page.index("**The Mark I learning letters**"):page.index("3. **")]
    tour = " ".join(tour.split())
    claims = {"accuracy on the training figures": r"training figure",
              "placed afresh": r"placed afresh", "would have taken": r"would have taken",
              "mistakes of each response unit, how many": r"\bR1 \d",
              "how many weight moves the end stops blocked": r"end stops? blocked"}
    printed = " ".join(printed.split())
    for claim, shown in claims.items():
        if claim in tour:
            assert re.search(shown, printed), f"getting-started.md: the tour prints {claim!r}?"


def test_the_page_names_the_published_numbers_page(demo):
    """The Mark I section points to the page of every published number, by the title
    and file the documentation's navigation gives it."""
    from sims.cli.demo import PUBLISHED_PAGE
    from _paths import ROOT

    out, _, _ = demo
    title, name = PUBLISHED_PAGE
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert f'"{title}": {name}' in nav
    assert (ROOT / "docs" / name).exists()
    page = (out / "index.html").read_text(encoding="utf-8")
    assert f"&quot;{title}&quot;" in page or f'"{title}"' in page
    assert f"docs/{name}" in page
