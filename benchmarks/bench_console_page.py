"""Cost of a click in the live console's page (``markone machine console``), in
headless Chromium, against the length of the session.

Target (issue #44, item 4): a click costs the same at 5,000 figures as at 50, within
20 %. ``bench_console.py`` measures the server's part; this measures the whole click
as a person sees it: from the page sending ``POST /api/present`` (a new figure, the
trainer on) to the page updated with the answer (the run merged, checked, replayed
and drawn), with the page's own part (``markoneConsole.update``, when the page has
it) apart. Two pages, one per session of 50 and 5,000 distinct figures (made by
``bench_console.session_of``), clicked in turn so that load changes hit both alike.
Printed: the medians at each size and their ratio.

Run: ``python benchmarks/bench_console_page.py [--clicks K]`` (Debian's chromium and
playwright; never ``playwright install``).
"""

import argparse
import os
import statistics
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "benchmarks")]

from bench_console import SIZES, TOLERANCE, _figure, session_of  # noqa: E402

__all__ = ["main", "served", "open_page", "click", "measure"]

TIMED_CLICK = """async (cells) => {
  const L = window.markoneLive, mc = window.markoneConsole;
  let page = null;
  if (mc.update && !mc.update.timed) {
    const update = mc.update;
    mc.update = (...a) => { const t = performance.now(); const r = update(...a);
      mc.update.last = performance.now() - t; return r; };
    mc.update.timed = true;
  }
  L.setEasel(cells);
  const t0 = performance.now();
  await L.present();
  const total = performance.now() - t0;
  if (mc.update && mc.update.timed) page = mc.update.last;
  mc.pause();
  return [total, page];
}"""


def open_page(browser, server):
    """A page of ``server``'s console, loaded, the trainer on."""
    page = browser.new_context(bypass_csp=True, viewport={
        "width": 1400, "height": 1000}).new_page()
    page.goto(server.url)
    page.wait_for_function("window.markoneLive && !window.markoneLive.state().busy",
                           timeout=300_000)
    page.fill("#live-label", "A")
    page.check("#live-trainer")
    return page


def click(page, rng):
    """Milliseconds of one click: request to updated page, and the page's part."""
    return page.evaluate(TIMED_CLICK, _figure(rng).tolist())


def measure(servers, clicks):
    """Each size's click times, the sizes clicked in turn after a warm-up."""
    from playwright.sync_api import sync_playwright
    from _browser import launch

    times = {n: ([], []) for n in servers}
    with sync_playwright() as pw:
        browser = launch(pw)
        pages = {n: (open_page(browser, server), rng) for n, (server, rng) in servers.items()}
        for k in range(5 + clicks):
            for n, (page, rng) in pages.items():
                total, own = click(page, rng)
                if k >= 5:
                    times[n][0].append(total)
                    if own is not None:
                        times[n][1].append(own)
        browser.close()
    return times


def served(n):
    """``bench_console.session_of(n)``, its console serving in a thread."""
    server, rng = session_of(n)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, rng


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clicks", type=int, default=30)
    clicks = ap.parse_args(argv).clicks
    print(f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    servers = {n: served(n) for n in SIZES}
    times = measure(servers, clicks)
    medians = {}
    for n, (total, own) in times.items():
        medians[n] = statistics.median(total)
        part = f"; the page's part {statistics.median(own):.2f} ms" if own else ""
        print(f"{n:>5} figures: a click {medians[n]:.1f} ms from request to updated "
              f"page (median of {len(total)}){part}")
    for server, _ in servers.values():
        server.close()
    ratio = medians[SIZES[-1]] / medians[SIZES[0]]
    print(f"ratio {SIZES[-1]:,} / {SIZES[0]} figures: {ratio:.2f} (goal within "
          f"{1 - TOLERANCE:.2f}..{1 + TOLERANCE:.2f})")
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
