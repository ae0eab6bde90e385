"""Leaves a grandchild behind that ignores SIGTERM (with 'hold', keeps stdout open;
with 'setsid', leaves the process group for a session of its own), then exits at
once."""

if __name__ == "__main__":   # imported by pytest's doctest collection: nothing runs
    import os, signal, sys, time
    sys.stdin.read()
    if os.fork() == 0:              # the child forks the grandchild and exits
        if os.fork() == 0:
            if "setsid" in sys.argv[1:]:
                os.setsid()
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            if "hold" not in sys.argv[1:]:
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, 1)
                os.dup2(devnull, 2)
            with open(os.environ["HOSTILE_PIDS"], "a") as f:
                f.write(f"{os.getpid()}\n")
            time.sleep(3600)
        os._exit(0)
    os.wait()
    time.sleep(0.2)                # the grandchild has written its pid
    print('{"w": [0], "mistakes": 0}')
