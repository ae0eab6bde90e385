"""Forks children that sleep for an hour, answers nonsense and exits."""

if __name__ == "__main__":   # imported by pytest's doctest collection: nothing runs
    import os, sys, time
    sys.stdin.read()
    for _ in range(3):
        pid = os.fork()
        if pid == 0:
            time.sleep(3600)
            os._exit(0)
        with open(os.environ["HOSTILE_PIDS"], "a") as f:
            f.write(f"{pid}\n")
    print('{"w": [0], "mistakes": 0}')
