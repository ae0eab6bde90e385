"""A write killed with ``kill -9`` (no cleanup can run) leaves its hidden temporary
file ``.NAME.XXXXXXXX.tmp`` beside the file it was writing, never a half file under
the requested name. The next write of that name removes such leftovers, and only
those no live writer holds (issue 37)."""

import os
import signal
import subprocess
import sys

import pytest

from markone._internal.io import atomic_write, staged_output

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="kill -9")

#: a writer of ``sys.argv[1]`` that stops for good once its data is in the temporary
#: file, before the rename: there, it can only be killed
_STALLED_WRITER = """
import os, signal, sys
from markone._internal.io import atomic_write, staged_output

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


_STALLED_STAGING = """
import pathlib, signal, sys
from markone._internal.io import staged_output

with staged_output(sys.argv[1]) as stage:
    (pathlib.Path(stage) / "index.html").write_text("<p>half")
    print("staged, not moved in", flush=True)
    signal.pause()
"""


def test_a_staging_folder_killed_mid_way_is_removed_by_the_next_run(tmp_path):
    out = tmp_path / "demo"
    writer = subprocess.Popen([sys.executable, "-c", _STALLED_STAGING, str(out)],
                              stdout=subprocess.PIPE, text=True)
    assert writer.stdout.readline() == "staged, not moved in\n"
    live = os.listdir(tmp_path)
    with staged_output(out) as stage:              # while it lives: its folder stays
        (stage / "a.txt").write_text("a")
    assert sorted(os.listdir(tmp_path)) == sorted(live + ["demo"])
    writer.send_signal(signal.SIGKILL)
    writer.wait()
    with staged_output(out) as stage:              # once killed: removed
        (stage / "b.txt").write_text("b")
    assert os.listdir(tmp_path) == ["demo"]
    assert sorted(os.listdir(out)) == ["a.txt", "b.txt"]


def test_a_temporary_removed_before_its_writer_locked_it_is_made_again(tmp_path,
                                                                       monkeypatch):
    """Between making its temporary file and locking it, a writer's file looks
    abandoned to another process's next write, which may remove it: the writer then
    makes another, and its file is written all the same."""
    import markone._internal.io as io

    made = io.temporary_beside
    removed = []

    def made_then_removed(*args, **kwargs):
        fd, path = made(*args, **kwargs)
        if not removed:                   # the other process, at the worst moment
            removed.extend(io._remove_abandoned(tmp_path / "run.json"))
        return fd, path

    monkeypatch.setattr(io, "temporary_beside", made_then_removed)
    atomic_write(tmp_path / "run.json", "{}")
    assert len(removed) == 1
    assert os.listdir(tmp_path) == ["run.json"] and (tmp_path / "run.json").read_text() == "{}"
