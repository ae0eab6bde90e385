"""Starts an answer and never ends it: megabytes of numbers on stdout."""

if __name__ == "__main__":   # imported by pytest's doctest collection: nothing runs
    import sys
    sys.stdin.read()
    out = sys.stdout.buffer
    out.write(b'{"w": [')
    while True:
        out.write(b"0, " * 65536)
