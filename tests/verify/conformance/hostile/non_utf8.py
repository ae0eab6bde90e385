"""Bytes that are not UTF-8 on stdout and stderr."""

if __name__ == "__main__":   # imported by pytest's doctest collection: nothing runs
    import sys
    sys.stdin.read()
    sys.stderr.buffer.write(b"\xff\xfe error \xc3\x28\n")
    sys.stdout.buffer.write(b'{"w": [\xff\xfe], "mistakes": 0}')
