"""A JSON integer of a million digits."""

if __name__ == "__main__":   # imported by pytest's doctest collection: nothing runs
    import sys
    sys.stdin.read()
    sys.stdout.write('{"w": [1, 0], "mistakes": 1' + "0" * 1_000_000 + "}")
