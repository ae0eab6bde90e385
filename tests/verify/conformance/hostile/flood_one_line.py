"""One endless line on stderr, no newline ever."""

if __name__ == "__main__":   # imported by pytest's doctest collection: nothing runs
    import sys
    sys.stdin.read()
    while True:
        sys.stderr.write("x" * 65536)
