"""Reads the problem, then never answers (its pid written to the file that
``HOSTILE_PIDS`` names, when set: one line per run)."""

if __name__ == "__main__":   # imported by pytest's doctest collection: nothing runs
    import os, sys, time
    if os.environ.get("HOSTILE_PIDS"):
        with open(os.environ["HOSTILE_PIDS"], "a") as f:
            f.write(f"{os.getpid()}\n")
    sys.stdin.read()
    time.sleep(3600)
