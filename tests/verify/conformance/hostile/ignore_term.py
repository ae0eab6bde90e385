"""Ignores SIGTERM and never answers: only SIGKILL stops it."""

if __name__ == "__main__":   # imported by pytest's doctest collection: nothing runs
    import os, signal, sys, time
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    with open(os.environ["HOSTILE_PIDS"], "a") as f:
        f.write(f"{os.getpid()}\n")
    sys.stdin.read()
    time.sleep(3600)
