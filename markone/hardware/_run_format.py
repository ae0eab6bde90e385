"""The name and version of the Mark I run file format, shared by the run
(:mod:`markone.hardware.run`, which writes and reads it) and its replay
(:mod:`markone.hardware.replay`, which checks it) without either importing the other.
"""

__all__ = ["FORMAT", "VERSION", "KNOBS_VERSION", "REWIRED_VERSION"]

FORMAT = "markone-machine-run"
#: Version 2 names the per-pass series ``mistakes_per_epoch``, ``errors_per_epoch`` and
#: ``end_s_per_epoch`` (version 1: ``epoch_mistakes``, ``epoch_errors``,
#: ``epoch_end_s``); :meth:`MachineRun.load` reads both. Version 3 adds
#: ``knob_changes``, the knobs turned during the run; a run with none is written as
#: version 2, which every older reader takes. Version 4 adds ``earlier``, the runs of
#: the machines a live session had before a knob fixed by the wiring rebuilt it, and a
#: knob change's ``rewired``; a run with neither is written as version 3 or 2.
VERSION = 4
#: The first version with ``knob_changes``.
KNOBS_VERSION = 3
#: The first version with ``earlier`` and rewired knob changes.
REWIRED_VERSION = 4
