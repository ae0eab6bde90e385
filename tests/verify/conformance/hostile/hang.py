"""Reads the problem, then never answers."""

if __name__ == "__main__":   # imported by pytest's doctest collection: nothing runs
    import sys, time
    sys.stdin.read()
    time.sleep(3600)
