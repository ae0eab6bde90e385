"""Writes terminal escape codes on stderr (clear the screen, set the title, ring the
bell, reverse the text), then exits 1."""

if __name__ == "__main__":   # imported by pytest's doctest collection: nothing runs
    import sys
    sys.stdin.read()
    sys.stderr.write("\x1b[2J\x1b[H\x1b]0;pwned\x07 \u202egnirts\r\nsecond\x9b1m\n")
    sys.exit(1)
