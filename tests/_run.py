"""What the processes of one run of the suite share (under pytest-xdist, its workers):
a folder and locks in it, so that a costly thing (the Coq build) is made once per run,
by one worker at a time, and the others wait for it and reuse it."""

import contextlib
import fcntl
import os


def run_folder(tmp_path_factory):
    """The temporary folder of this run: under xdist, the parent of each worker's own
    base folder (``pytest-N`` of ``pytest-N/popen-gw0``), shared by all of them; else
    this process's base folder."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@contextlib.contextmanager
def run_lock(folder, name):
    """Hold the lock ``name`` in ``folder`` (a :func:`run_folder`): the processes of
    the run that ask for it take turns."""
    with open(folder / f"{name}.lock", "a") as file:
        fcntl.flock(file, fcntl.LOCK_EX)  # released when the file closes
        yield
