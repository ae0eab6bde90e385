"""A write killed with ``kill -9`` (no cleanup can run) leaves its hidden temporary
file ``.NAME.XXXXXXXX.tmp`` beside the file it was writing, never a half file under
the requested name. The next write of that name removes such leftovers, and only
those no live writer holds (issue 37)."""

import os
import signal
import subprocess
import sys

import pytest

from markone._internal.io import atomic_write

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="kill -9")

#: a writer of ``sys.argv[1]`` that stops for good once its data is in the temporary
#: file, before the rename: there, it can only be killed
_STALLED_WRITER = """
import os, signal, sys
from markone._internal.io import atomic_write

def stall(fd):
    print("written, not renamed", flush=True)
    signal.pause()

os.fsync = stall
atomic_write(sys.argv[1], "x" * 1_000_000)
"""


def _stalled_writer(target):
    proc = subprocess.Popen([sys.executable, "-c", _STALLED_WRITER, str(target)],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline() == "written, not renamed\n"
    return proc


def _temporaries(folder):
    return sorted(n for n in os.listdir(folder) if n.endswith(".tmp"))


def test_a_write_killed_mid_way_leaves_no_file_and_the_next_one_cleans_up(tmp_path):
    target = tmp_path / "run.json"
    writer = _stalled_writer(target)
    writer.send_signal(signal.SIGKILL)
    writer.wait()
    left = _temporaries(tmp_path)
    assert len(left) == 1 and left[0].startswith(".run.json.")   # the premise
    assert not target.exists()                # no half file under the requested name
    atomic_write(target, "{}")
    assert os.listdir(tmp_path) == ["run.json"] and target.read_text() == "{}"


def test_a_live_writers_temporary_file_is_left_alone(tmp_path):
    target = tmp_path / "run.json"
    writer = _stalled_writer(target)
    try:
        theirs = _temporaries(tmp_path)
        atomic_write(target, "{}")
        assert _temporaries(tmp_path) == theirs    # still being written: kept
    finally:
        writer.kill()
        writer.wait()
    assert target.read_text() == "{}"


def test_other_names_temporary_files_are_not_touched(tmp_path):
    other = tmp_path / ".run.json.old.k1ll3d_9.tmp"   # another file's, by its name
    other.write_text("half")
    mine = tmp_path / ".results.json.k1ll3d_9.tmp"
    mine.write_text("half")
    atomic_write(tmp_path / "run.json", "{}")
    assert sorted(os.listdir(tmp_path)) == sorted([other.name, mine.name, "run.json"])
