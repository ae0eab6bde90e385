"""Start-up cost of a small question, against the floor ``import numpy, highspy``.

Each question runs in a new interpreter, ``--repeat`` times (best of, default 3); for
each the script prints the wall time, the CPU time (user + system) and the peak memory
(RSS) of the child, and their ratios to the floor ``python -c "import numpy,
highspy"`` measured in the same run:

* ``markone --help``, ``markone train tiny.csv``, ``markone verify separable
  tiny.csv``, ``markone verify margin tiny.csv`` (AND, 4 rows);
* ``python -c "import markone, verify"``;
* the first ``verify.check_separable`` in a new process on 1,000 x 20 integers in
  [-5, 5] with random labels (not separable: the LP decides).

The children run this checkout's modules byte-compiled, as an installed package's
are (``pip install`` writes their ``.pyc`` files, and the floor's numpy is installed
so): ``PYTHONPYCACHEPREFIX`` points at a temporary folder that ``compileall`` fills
first, whatever ``PYTHONDONTWRITEBYTECODE`` says. (Compiling a module's source on
every start costs more than the whole margin measured here.)

With ``--demo`` it also builds a fresh virtual environment (``python -m venv
--system-site-packages`` and ``pip install --no-deps`` of this checkout, with new
empty ``NUMBA_CACHE_DIR`` and ``XDG_CACHE_HOME`` folders, where the compiled kernels
are kept) and times the first (cold cache) and the second (warm) ``markone demo``
there (slow: a minute or two).

With ``--first-run`` it measures instead the main jobs after a fresh install (issue
38): ``machine train`` (6 letters x 8 figures), ``machine fleet --machines 200``,
``verify machine`` on 26 letters, ``adversary suite``, ``markone.train`` dense (30,000
x 60 floats, 4 passes) and sparse (30,000 x 1,000 CSR at 1 %, 4 passes) and ``demo``,
each twice in a fresh process: first with empty caches (``NUMBA_CACHE_DIR`` and
``XDG_CACHE_HOME``, where numba and the Coq checker keep what they build, point at a
new temporary folder), then again with what the first run left there; and the floor
``import numpy, simpy``. CPU time is ``resource.getrusage(RUSAGE_CHILDREN)`` (the
child and its own children, e.g. a fleet's workers), so a loaded machine changes it
little. Goals: every first run at most 2x the run again; ``machine train`` at most
3x the floor's CPU, warm, and 100 MB. ``--first-run --write-docs`` writes its table
into the ``bench_startup_first_run`` block of ``docs/start-up.md``.

With ``--constants`` it measures the costs that :data:`markone._loops.PLAIN_RUN`
is derived from, each in a new process (CPU time): one plain pass of 30,000 dense
rows of 60 and of 30,000 CSR rows of 1,000 at 1 % (per presentation), the compiled
pass with an empty numba cache (import and compile) and again (import and load);
the first and the second ``markone.train`` of 20,000 x 100 floats for 1,000 passes
in one process (the pass in the cache); and the compile seconds of each kernel that
the perceptron's pass and a compiled Mark I session need (numba's compile events);
``--constants --write-docs`` writes them into the ``bench_startup_constants`` block.

With ``--write-docs`` the results replace the measured block of
``docs/start-up.md`` (between its ``bench_startup`` markers), the load included: the
page's numbers are this script's output, never typed by hand.

Goals (issue 26): every small question <= 1.5x the floor and <= 120 MB; the first
``check_separable`` on 1,000 x 20 <= 0.5 s above the floor; the first demo <= 2x the
second. The machine's load is printed with the numbers: on a shared machine wall
times wait for a core, so read the CPU column and the ratios, and compare runs made
at similar loads.

Usage: ``python benchmarks/bench_startup.py [--repeat 3] [--demo] [--first-run
[--jobs WORD ...]] [--constants] [--write-docs]``.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _docblock import ROOT, write_block  # noqa: E402  (the shared docs-block writer)
DOCS = ROOT / "docs" / "start-up.md"
AND = "x1,x2,y\n0,0,-1\n0,1,-1\n1,0,-1\n1,1,1\n"
FIRST_CHECK = """
import numpy as np
import verify
rng = np.random.default_rng(0)
X = rng.integers(-5, 6, size=(1000, 20))
y = rng.choice([-1, 1], 1000)
verify.check_separable(X, y)
"""


#: ``markone.train`` on 30,000 x 60 floats (dense) and 30,000 x 1,000 CSR (sparse).
TRAIN_DENSE = ("import numpy as np, markone; rng = np.random.default_rng(0); "
               "X = rng.normal(size=(30000, 60)); y = np.where(X[:, 0] + 0.1 * X[:, 1] > 0, "
               "1, -1); markone.train(X, y, max_epochs=4)")
TRAIN_SPARSE = ("import numpy as np, scipy.sparse as sp, markone; "
                "X = sp.random(30000, 1000, density=0.01, format='csr', random_state=0); "
                "y = np.where(np.arange(30000) % 2, 1, -1); markone.train(X, y, max_epochs=4)")


def first_run_jobs(python, out):
    """Name -> argv of every main job of ``--first-run`` (writing under ``out``), the
    floor first."""
    m = [python, "-m", "markone"]
    return {
        "floor: import numpy, simpy": [python, "-c", "import numpy, simpy"],
        "machine train --chars AEIOUY --per-class 8": m + [
            "machine", "train", "--chars", "AEIOUY", "--per-class", "8"],
        "machine fleet --machines 200": m + ["machine", "fleet", "--machines", "200"],
        "verify machine letters, 26 letters": m + [
            "verify", "machine", "letters", "--chars", "ABCDEFGHIJKLMNOPQRSTUVWXYZ"],
        "adversary suite": m + ["adversary", "suite", "--out", f"{out}/suite"],
        "train dense, 30,000 x 60, 4 passes": [python, "-c", TRAIN_DENSE],
        "train sparse, 30,000 x 1,000, 4 passes": [python, "-c", TRAIN_SPARSE],
        "demo": m + ["demo", "--out", f"{out}/demo"],
    }


def cpu_of_children():
    """CPU seconds (user + system) of every child waited for so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def first_and_again(name, env, tmp):
    """Run job ``name`` twice in new processes sharing the caches under ``tmp``
    (empty before the first): ``[(wall, cpu, peak MB) first, (...) again]``."""
    runs = []
    for k in (1, 2):
        argv = first_run_jobs(sys.executable, f"{tmp}/out{k}")[name]
        before = cpu_of_children()
        wall, _, mb = run_child(argv, tmp, env)
        runs.append((wall, cpu_of_children() - before, mb))
    return runs


def first_run_table(only=None):
    """Every main job after a fresh install, then again (only the floor, machine
    train and the jobs whose names contain a word of ``only``, when given); the
    Markdown lines."""
    before = load()
    print(f"first runs ({before})")
    rows = {}
    with tempfile.TemporaryDirectory() as root:
        env = byte_compiled_env(Path(root, "pycache"))
        for name in first_run_jobs(sys.executable, root):
            if only and not name.startswith(("floor", "machine train")) and not any(
                    word in name for word in only):
                continue
            with tempfile.TemporaryDirectory(dir=root) as tmp:
                cache = Path(tmp, "cache")   # what numba and the Coq build keep
                job_env = dict(env, NUMBA_CACHE_DIR=str(cache / "numba"),
                               XDG_CACHE_HOME=str(cache))
                rows[name] = first_and_again(name, job_env, tmp)
            (w1, c1, m1), (w2, c2, m2) = rows[name]
            print(f"{name:42} first {c1:7.2f} s cpu ({w1:6.1f} wall, {m1:4.0f} MB)  "
                  f"again {c2:7.2f} s cpu ({w2:6.1f} wall, {m2:4.0f} MB)  "
                  f"first/again {c1 / c2:5.2f}", flush=True)
    return _first_run_lines(rows, before, load())


def _first_run_lines(rows, before, after):
    """The Markdown table of :func:`first_run_table`'s measurements."""
    floor = rows["floor: import numpy, simpy"][1][1]
    lines = [f"One run; before it {before}, after it {after}. CPU time of the job's "
             "process and its children:", "",
             "| job | first run (empty caches) | run again | first / again | "
             "again × floor | peak memory (again) |",
             "|---|---|---|---|---|---|"]
    for name, ((_, c1, _), (_, c2, m2)) in rows.items():
        label = f"floor: `{name[7:]}`" if name.startswith("floor") else f"`{name}`"
        lines.append(f"| {label} | {c1:.2f} s | {c2:.2f} s | {c1 / c2:.2f} | "
                     f"{c2 / floor:.1f} | {m2:.0f} MB |")
    train = rows["machine train --chars AEIOUY --per-class 8"][1]
    print(f"machine train again: {train[1] / floor:.2f}x the floor's CPU, "
          f"{train[2]:.0f} MB (goals <= 3x, <= 100 MB); {after}")
    return lines


#: A child that times one plain pass of the lean loop (dense 30,000 x 60 floats, or
#: 30,000 x 1,000 CSR at 1 %) and prints its CPU microseconds per presentation.
PLAIN_PASS = """
import sys, time, numpy as np, scipy.sparse as sp
from markone import _loops
rng = np.random.default_rng(0)
d = 60 if sys.argv[1] == "dense" else 1000
X = rng.normal(size=(30000, d)) if d == 60 else _loops.kernel_rows(
    sp.random(30000, d, density=0.01, format="csr", random_state=0))
y, idx = np.where(rng.normal(size=30000) > 0, 1.0, -1.0), np.arange(30000)
w, status = np.zeros(d + 1), np.zeros(2, dtype=np.int64)
start = time.process_time()
_loops.epoch_last_xy(X, y, 1.0, idx, 1.0, w, status)
print((time.process_time() - start) / 30000 * 1e6)
"""

#: A child that times getting the compiled pass (numba's import, then a compile or a
#: load from its cache) and one call on 4 rows; prints CPU seconds.
COMPILED_PASS = """
import time, numpy as np
from markone import _loops
from markone._internal.jit import compiled
X, y = np.ones((4, 60)), np.ones(4)
start = time.process_time()
compiled(_loops.epoch_last_xy)(X, y, 1.0, np.arange(4), 1.0, np.zeros(61),
                                 np.zeros(2, dtype=np.int64))
print(time.process_time() - start)
"""


#: A child that compiles (empty numba cache) what one job needs and prints, per
#: kernel, the CPU seconds numba spent compiling it alone and with the kernels it
#: calls (numba's "numba:compile" events, nested), as JSON: ``[total, {name: [alone,
#: with callees]}]``. ``machine``: a Mark I session on the compiled path (its plain
#: allowance spent first, as a fleet's); ``pass``: the perceptron's lean pass.
COMPILE_COSTS = """
import json, sys, time, numpy as np
from markone._internal import jit
import numba.core.event as event
jit.load_numba()
alone, whole, stack = {}, {}, []
class Timer(event.Listener):
    def on_start(self, ev):
        stack.append([ev.data["dispatcher"].py_func.__qualname__, time.process_time(), 0.0])
    def on_end(self, ev):
        name, start, inner = stack.pop()
        spent = time.process_time() - start
        alone[name] = alone.get(name, 0.0) + spent - inner
        whole[name] = whole.get(name, 0.0) + spent
        if stack:
            stack[-1][2] += spent
event.register("numba:compile", Timer())
start = time.process_time()
if sys.argv[1] == "machine":
    from markone.datasets import letters
    from markone.hardware import MarkI
    from markone.hardware.trial import PLAIN
    PLAIN.spend(PLAIN.left)
    images, labels = letters("AEIOUY", per_class=8, seed=0)
    MarkI(seed=0).train(images, labels, presentations=400)
else:
    from markone import _loops
    jit.compiled(_loops.epoch_last_xy)(np.ones((4, 60)), np.ones(4), 1.0, np.arange(4),
                                       1.0, np.zeros(61), np.zeros(2, dtype=np.int64))
print(json.dumps([time.process_time() - start,
                  {k: [alone[k], whole[k]] for k in alone}]))
"""

#: A child that times ``markone.train`` on 20,000 x 100 floats for the default 1,000
#: passes (20 million presentations: compiled), twice in one process; prints the CPU
#: seconds of the first and the second call.
TRAIN_TWICE = """
import time, warnings, numpy as np, markone
rng = np.random.default_rng(0)
X = rng.normal(size=(20000, 100))
y = np.where(X[:, 0] + rng.normal(size=20000) > 0, 1, -1)
warnings.simplefilter("ignore")
times = []
for _ in range(2):
    start = time.process_time()
    markone.train(X, y)
    times.append(time.process_time() - start)
print(*times)
"""

#: Kernels shown by name in the compile table (the rest are summed).
SHOWN_KERNELS = 12


def compile_costs(env, cwd):
    """The compile table's lines: each job's kernels compiled with an empty cache."""
    lines = ["| job, kernel | compile alone | with the kernels it calls |",
             "|---|---|---|"]
    for job, title in (("pass", "the perceptron's pass"),
                       ("machine", "a Mark I session, compiled (as a fleet's)")):
        with tempfile.TemporaryDirectory(dir=cwd) as cache:
            done = subprocess.run([sys.executable, "-c", COMPILE_COSTS, job], cwd=cwd,
                                  env=dict(env, NUMBA_CACHE_DIR=cache),
                                  capture_output=True, text=True, check=True)
        total, kernels = json.loads(done.stdout)
        lines.append(f"| **{title}**: in all (numba imported before) | "
                     f"{total:.2f} s | |")
        ranked = sorted(kernels.items(), key=lambda kv: -kv[1][0])
        for name, (alone, whole) in ranked[:SHOWN_KERNELS]:   # ol_np_empty.<locals>.impl
            short = name.replace(".<locals>.impl", "").split(".<locals>.")[-1]
            lines.append(f"| `{short}` | {alone:.2f} s | {whole:.2f} s |")
        rest = ranked[SHOWN_KERNELS:]
        if rest:
            lines.append(f"| {len(rest)} more | {sum(a for _, (a, _) in rest):.2f} s | |")
    return lines


def constants():
    """The costs behind :data:`markone._loops.PLAIN_RUN` (docs/start-up.md, "The
    constants"), each in a new process: a plain presentation (dense, CSR), and the
    compiled pass after a fresh install (compile) and again (load). The lines."""
    with tempfile.TemporaryDirectory() as root:
        env = dict(byte_compiled_env(Path(root, "pycache")),
                   NUMBA_CACHE_DIR=str(Path(root, "numba")))
        child = [sys.executable, "-c"]

        def out(argv):
            return float(subprocess.run(argv, cwd=root, env=env, capture_output=True,
                                        text=True, check=True).stdout)

        dense, csr = out(child + [PLAIN_PASS, "dense"]), out(child + [PLAIN_PASS, "csr"])
        compile_s, load_s = out(child + [COMPILED_PASS]), out(child + [COMPILED_PASS])
        first, second = (float(t) for t in subprocess.run(
            child + [TRAIN_TWICE], cwd=root, env=env, capture_output=True, text=True,
            check=True).stdout.split())
        kernels = compile_costs(env, root)
    from markone._loops import PLAIN_RUN
    plain = PLAIN_RUN * dense / 1e6
    return [f"Measured {load()}; CPU time, each in a new process:", "",
            "| cost | measured |", "|---|---|",
            f"| a plain presentation, dense row of 60 | {dense:.1f} µs |",
            f"| a plain presentation, CSR row of 1,000 at 1 % | {csr:.1f} µs |",
            f"| the compiled pass after a fresh install (import numba, compile) | "
            f"{compile_s:.2f} s |",
            f"| the compiled pass again (import numba, load from the cache) | "
            f"{load_s:.2f} s |",
            f"| a run of `PLAIN_RUN` = {PLAIN_RUN:,} dense presentations, plain | "
            f"{plain:.2f} s |",
            f"| a run past it, first / again: compile / load | "
            f"{compile_s / load_s:.2f} |",
            f"| `markone.train`, 20,000 x 100, 1,000 passes, cached pass: first call "
            f"in a process | {first:.2f} s |",
            f"| the same, second call | {second:.2f} s |",
            "", "Compiling with an empty cache, by numba's compile events (CPU; a "
            "kernel's own body alone, and with the kernels it calls):", "", *kernels]


def run_child(argv, cwd, env):
    """Wall seconds, CPU seconds and peak RSS (MB) of one child process.

    The CPU time and the peak RSS come from ``wait4`` on that child alone."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    err = proc.stderr.read().decode()
    proc.stderr.close()
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):   # 1: "not separable" is an answer
        raise RuntimeError(f"{argv} exited {proc.returncode}: {err[-500:]}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def best(argv, cwd, env, repeat):
    """The best of ``repeat`` runs, column by column."""
    runs = [run_child(argv, cwd, env) for _ in range(repeat)]
    return tuple(min(r[k] for r in runs) for k in range(3))


def load():
    one, five, _ = os.getloadavg()
    return f"load {one:.1f} (5 min: {five:.1f}) on {os.cpu_count()} cores"


def questions(python, markone):
    """Name -> argv of every timed question, the floor first."""
    return {
        "floor: import numpy, highspy": [python, "-c", "import numpy, highspy"],
        "markone --help": markone + ["--help"],
        "markone train tiny.csv": markone + ["train", "tiny.csv"],
        "markone verify separable tiny.csv": markone + ["verify", "separable", "tiny.csv"],
        "markone verify margin tiny.csv": markone + ["verify", "margin", "tiny.csv"],
        "import markone, verify": [python, "-c", "import markone, verify"],
        "first check_separable, 1000 x 20": [python, "-c", FIRST_CHECK],
    }


def byte_compiled_env(pycache):
    """The children's environment: this checkout, byte-compiled into ``pycache``."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONPYCACHEPREFIX=str(pycache))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    saved = sys.pycache_prefix
    sys.pycache_prefix = str(pycache)
    try:
        for package in ("markone", "verify"):
            compileall.compile_dir(ROOT / package, quiet=1)
    finally:
        sys.pycache_prefix = saved
    return env


def startup_table(repeat):
    """Time every question; return the Markdown rows of the table."""
    with tempfile.TemporaryDirectory() as tmp:
        env = byte_compiled_env(Path(tmp, "pycache"))
        Path(tmp, "tiny.csv").write_text(AND)
        rows = {}
        before = load()
        print(f"start-up, best of {repeat} ({before})")
        for name, argv in questions(sys.executable, [sys.executable, "-m", "markone"]).items():
            rows[name] = best(argv, tmp, env, repeat)
    floor_wall, floor_cpu, floor_mb = rows["floor: import numpy, highspy"]
    print(f"{'':36} {'wall s':>7} {'x floor':>8} {'cpu s':>7} {'x floor':>8} "
          f"{'peak MB':>8}")
    table = ["| question | wall × floor | CPU × floor | peak memory |", "|---|---|---|---|"]
    for name, (wall, cpu, mb) in rows.items():
        print(f"{name:36} {wall:7.3f} {wall / floor_wall:8.2f} {cpu:7.3f} "
              f"{cpu / floor_cpu:8.2f} {mb:8.1f}")
        if name.startswith("floor"):
            cells = f"1.00 ({wall:.2f} s) | 1.00 ({cpu:.2f} s)"
        elif name.startswith("first"):
            cells = (f"{wall / floor_wall:.2f} (+{wall - floor_wall:.2f} s) | "
                     f"{cpu / floor_cpu:.2f} (+{cpu - floor_cpu:.2f} s)")
        else:
            cells = f"{wall / floor_wall:.2f} | {cpu / floor_cpu:.2f}"
        table.append(f"| {_markdown(name)} | {cells} | {mb:.0f} MB |")
    wall, cpu, _ = rows["first check_separable, 1000 x 20"]
    after = load()
    print(f"first check_separable above the floor: {wall - floor_wall:.3f} s wall, "
          f"{cpu - floor_cpu:.3f} s cpu (goal <= 0.5 s); {after}")
    return [f"Best of {repeat}; before the run {before}, after it {after}:", ""] + table


def _markdown(name):
    """A question's name as the docs table shows it (commands in code spans)."""
    if name.startswith("floor: "):
        return f"floor: `{name[7:]}`"
    if name.startswith("first check_separable"):
        return "first `check_separable`, 1,000 × 20"
    return f"`{name}`"


def demo_pair():
    """First and second ``markone demo`` in a fresh virtual environment; return the
    Markdown lines that report them."""
    with tempfile.TemporaryDirectory() as tmp:
        venv = Path(tmp, "venv")
        subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)],
                       check=True)
        python = str(venv / "bin" / "python")
        subprocess.run([python, "-m", "pip", "install", "-q", "--no-deps", str(ROOT)],
                       check=True, cwd=tmp)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        # empty caches, as after a fresh install (markone keeps its compiled kernels
        # per user, where an earlier install of the same sources left them)
        env.update(NUMBA_CACHE_DIR=str(Path(tmp, "numba")),
                   XDG_CACHE_HOME=str(Path(tmp, "cache")))
        times, loads = [], []
        for k in (1, 2):
            times.append(run_child([python, "-m", "markone", "demo", "--out", f"demo{k}"],
                                   tmp, env))
            loads.append(load())
            print(f"demo run {k}: {times[-1][0]:.1f} s wall, {times[-1][1]:.1f} s cpu, "
                  f"{times[-1][2]:.0f} MB ({loads[-1]})")
    (wall1, cpu1, mb1), (wall2, cpu2, mb2) = times
    print(f"first demo / second: {wall1 / wall2:.2f}x wall, {cpu1 / cpu2:.2f}x cpu "
          "(goal <= 2x)")
    return ["| `markone demo` after a fresh install | wall | CPU | peak memory |",
            "|---|---|---|---|",
            f"| first (empty compile cache) | {wall1:.1f} s | {cpu1:.1f} s | {mb1:.0f} MB |",
            f"| second | {wall2:.1f} s | {cpu2:.1f} s | {mb2:.0f} MB |",
            f"| first / second | {wall1 / wall2:.2f} | {cpu1 / cpu2:.2f} | |",
            "", f"({loads[0]} after the first, {loads[1]} after the second.)"]


def write_docs(lines):
    """Replace the measured block of docs/start-up.md with ``lines``."""
    write_block(DOCS, "bench_startup", lines)
    print(f"wrote the results to {DOCS}")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--demo", action="store_true",
                   help="also time the first and second demo in a fresh venv (slow)")
    p.add_argument("--first-run", action="store_true",
                   help="time the main jobs with empty caches, then again (slow)")
    p.add_argument("--write-docs", action="store_true",
                   help="write the results into docs/start-up.md")
    p.add_argument("--jobs", nargs="+", metavar="WORD",
                   help="with --first-run: only the jobs whose names contain a WORD "
                        "(the floor and machine train always run)")
    p.add_argument("--constants", action="store_true",
                   help="measure the costs behind markone._loops.PLAIN_RUN")
    args = p.parse_args(argv)
    if args.constants:
        lines = constants()
        print("\n".join(lines))
        if args.write_docs:
            write_block(DOCS, "bench_startup_constants", lines)
        return
    if args.first_run:
        lines = first_run_table(args.jobs)
        if args.write_docs:
            write_block(DOCS, "bench_startup_first_run", lines)
            print(f"wrote the results to {DOCS}")
        return
    lines = startup_table(args.repeat)
    if args.demo:
        lines += ["", *demo_pair()]
    if args.write_docs:
        write_docs(lines)


if __name__ == "__main__":
    main()
