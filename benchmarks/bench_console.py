"""Cost of a click in the live console (``markone machine console``) against the
length of the session.

Target (issue #44): a click costs the same at 5,000 figures as at 50, within 20 %,
and at most 50 ms of server time. Printed, for a session of 50 and one of 5,000
distinct figures (each presented and reinforced): the median server time of a
click (present a new figure with the trainer on: the machine's work, the answer
made and encoded as JSON, as ``POST /api/present?since=N`` does; CPU seconds of
this process, so that a busy machine slows both alike), the ratio of the two, and
the bytes of each answer and of a full state (a page loading).

Run: ``python benchmarks/bench_console.py [--clicks K]``.
"""

import argparse
import json
import os
import statistics
import tempfile
import time

import numpy as np

from markone.console.server import ConsoleServer
from markone.hardware import MarkI
from markone.hardware.live import LiveSession

__all__ = ["main", "session_of", "click_costs"]

SIZES = (50, 5000)
TARGET_MS = 50.0
TOLERANCE = 0.20


def _figure(rng):
    return (rng.random(400) < 0.15).astype(float)


def session_of(n, seed=0):
    """A console with ``n`` distinct random figures presented and reinforced."""
    rng = np.random.default_rng(seed)
    session = LiveSession(MarkI(seed=seed))
    for k in range(n):
        session.present(_figure(rng), "AB"[k % 2])
        session.reinforce()
    return ConsoleServer(session, os.path.join(tempfile.mkdtemp(), "run.json")), rng


def click_costs(server, rng, clicks):
    """CPU milliseconds of each of ``clicks`` clicks, and the last answer's bytes."""
    costs, size = [], 0
    for k in range(clicks):
        body = {"image": _figure(rng).tolist(), "label": "AB"[k % 2], "reinforce": True}
        since = len(server.session.run().log) if k == 0 else since + 1
        t0 = time.process_time()
        size = len(json.dumps(server.call("/api/present", "POST", body, since),
                              allow_nan=False))
        costs.append(1000 * (time.process_time() - t0))
    return costs, size


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clicks", type=int, default=200)
    args = ap.parse_args(argv)
    print(f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    servers = {n: session_of(n) for n in SIZES}
    for server, rng in servers.values():   # warm both up: first calls compile
        click_costs(server, rng, 20)
    costs = {n: [] for n in SIZES}
    sizes = {}
    for _ in range(4):   # interleaved, so that load changes hit both alike
        for n, (server, rng) in servers.items():
            got, sizes[n] = click_costs(server, rng, args.clicks // 4)
            costs[n] += got
    medians = {n: statistics.median(costs[n]) for n in SIZES}
    for n, (server, _) in servers.items():
        full = len(json.dumps(server.state(), allow_nan=False))
        print(f"{n:>5} figures: a click {medians[n]:.2f} ms of server CPU (median of "
              f"{len(costs[n])}), answer {sizes[n]:,} bytes; full state {full:,} bytes")
        server.close()
    small, large = medians[SIZES[0]], medians[SIZES[-1]]
    ratio = large / small
    print(f"ratio {SIZES[-1]:,} / {SIZES[0]} figures: {ratio:.2f} (goal within "
          f"{1 - TOLERANCE:.2f}..{1 + TOLERANCE:.2f}); slowest median "
          f"{max(small, large):.2f} ms (goal <= {TARGET_MS:g} ms)")
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
