"""Exits before reading its stdin."""

if __name__ == "__main__":   # imported by pytest's doctest collection: nothing runs
    import sys
    sys.exit(0)
