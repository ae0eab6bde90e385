"""Floods stderr with short lines."""

if __name__ == "__main__":   # imported by pytest's doctest collection: nothing runs
    import sys
    sys.stdin.read()
    while True:
        sys.stderr.write("debug: still thinking\n" * 4096)
