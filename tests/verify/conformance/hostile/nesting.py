"""An answer nested a million deep."""

if __name__ == "__main__":   # imported by pytest's doctest collection: nothing runs
    import sys
    sys.stdin.read()
    sys.stdout.write("[" * 1_000_000 + "]" * 1_000_000)
