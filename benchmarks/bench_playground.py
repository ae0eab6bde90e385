"""The playground's click-to-panel time in Chromium (issue 44; goal: at most 200 ms for
up to 200 points).

A console with the ``verify`` analyst serves ``/playground`` to headless Chromium
(Debian's, through Playwright, as the browser tests use it); the page gets ``--points``
random 2-D points (two decimals, two classes by a line; ``--flip`` of them on the
wrong side, so the data are not separable and the cycle search runs after each
panel), then ``--clicks`` real mouse clicks on the plane, each waited for to the end
(the cycle included). For each click the page measures the time from the click's
request to the panel drawn (``window.markonePlayground.lastMs()``); the script also
times the server's part (``Playground.add_point`` in this process, the same data; wall
and CPU time) and prints median, 90th percentile and largest of each, with the CPU seconds of this
process and the machine's load.

    python benchmarks/bench_playground.py [--points 200] [--clicks 20] [--flip 0 3]
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from markone.console.playground import ANALYST, Playground  # noqa: E402
from markone.console.server import ConsoleServer  # noqa: E402
from markone.hardware import MarkI, MarkIParams  # noqa: E402
from markone.hardware.live import LiveSession  # noqa: E402


def table(n, flip, seed=0):
    """``n`` points of two classes split by a line, ``flip`` of them across it."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.uniform(-1, 1, (n, 2)), 2)
    y = np.where(X[:, 0] + 0.4 * X[:, 1] > 0.05, "b", "a")
    y[:flip] = np.where(y[:flip] == "a", "b", "a")
    return "x,y,class\n" + "".join(f"{a},{b},{c}\n" for (a, b), c in zip(X, y))


def stats(ms):
    ms = np.sort(np.asarray(ms))
    return (f"median {np.median(ms):7.1f} ms, 90th percentile "
            f"{ms[int(0.9 * (len(ms) - 1))]:7.1f} ms, largest {ms[-1]:7.1f} ms")


def browser_clicks(server, text, clicks, seed=1):
    """The page's click-to-panel times over ``clicks`` mouse clicks."""
    from playwright.sync_api import sync_playwright
    from _browser import launch

    rng = np.random.default_rng(seed)
    times = []
    with sync_playwright() as pw:
        browser = launch(pw)
        page = browser.new_context(bypass_csp=True, viewport={
            "width": 1400, "height": 1000}).new_page()
        page.goto(server.url + "playground")
        page.fill("#csv", text)
        page.click("#use-csv")
        page.wait_for_function("!window.markonePlayground.busy()", timeout=120_000)
        box = page.locator("#plane").bounding_box()
        for k in range(clicks):
            page.check(f"input[name=cls][value='{k % 2}']")
            fx, fy = rng.uniform(0.1, 0.9, 2)
            page.mouse.click(box["x"] + fx * box["width"], box["y"] + fy * box["height"])
            page.wait_for_function("!window.markonePlayground.busy()", timeout=120_000)
            times.append(page.evaluate("window.markonePlayground.lastMs()"))
        browser.close()
    return times


def server_clicks(text, clicks, seed=1):
    """The server's own time per click (Playground.add_point), same data."""
    ground = Playground(MarkIParams(), seed=0, analyst=ANALYST)
    ground.load_csv(text)
    rng = np.random.default_rng(seed)
    times, cpu = [], []
    for k in range(clicks):
        x = [f"{v:.2f}" for v in rng.uniform(-1, 1, 2)]
        t0, c0 = time.perf_counter(), time.process_time()
        ground.add_point({"x": x, "label": k % 2})
        times.append(1000 * (time.perf_counter() - t0))
        cpu.append(1000 * (time.process_time() - c0))
    return times, cpu


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--points", type=int, default=200)
    parser.add_argument("--clicks", type=int, default=20)
    parser.add_argument("--flip", type=int, nargs="+", default=[0, 3])
    args = parser.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; "
          f"{args.points} points, {args.clicks} clicks each")
    for flip in args.flip:
        text = table(args.points, flip)
        cpu0 = resource.getrusage(resource.RUSAGE_SELF)
        with ConsoleServer(LiveSession(MarkI(seed=0)), tempfile.mkdtemp() + "/r.json",
                           analyst=ANALYST) as server:
            threading.Thread(target=server.serve_forever, daemon=True).start()
            page = browser_clicks(server, text, args.clicks)
        cpu1 = resource.getrusage(resource.RUSAGE_SELF)
        served, served_cpu = server_clicks(text, args.clicks)
        kind = "separable" if flip == 0 else f"{flip} points across (not separable)"
        cpu = cpu1.ru_utime + cpu1.ru_stime - cpu0.ru_utime - cpu0.ru_stime
        print(f"{kind}:\n  click to panel in Chromium: {stats(page)}\n"
              f"  server (add_point):         {stats(served)}\n"
              f"  its CPU time (all threads): {stats(served_cpu)}\n"
              f"  server CPU over the clicks, cycle searches included: {cpu:.1f} s")


if __name__ == "__main__":
    main()
