"""Leaves a grandchild that no mark finds: the child setsid()s and forks it, the
grandchild replaces itself with a program run with an empty environment (no
MARKONE_CMD_RUN) that ignores SIGTERM, and the child exits, so the grandchild's parents
are gone; then the program answers and exits."""

if __name__ == "__main__":   # imported by pytest's doctest collection: nothing runs
    import os, sys, time
    sys.stdin.read()
    pids, r, w = os.environ["HOSTILE_PIDS"], *os.pipe()
    if os.fork() == 0:              # the child: a session of its own, then the fork
        os.setsid()
        if os.fork() == 0:
            os.close(r)
            devnull = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(devnull, fd)
            os.execve(sys.executable, [sys.executable, "-c", (
                "import os, signal, sys, time\n"
                "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
                "open(sys.argv[1], 'a').write(f'{os.getpid()}\\n')\n"
                "os.write(int(sys.argv[2]), b'x')\n"
                "time.sleep(3600)\n"), pids, str(w)], {})
        os._exit(0)
    os.close(w)
    os.wait()
    os.read(r, 1)                   # the grandchild has written its pid
    print('{"w": [0], "mistakes": 0}')
