"""``fleet_tables`` without a varied parameter: one row for the whole fleet, under a
header whose columns are named once each."""

from __future__ import annotations

from markone._figures import letters
from markone.hardware import MachineSpec, run_fleet
from markone.hardware.show import fleet_tables


def test_a_fleet_with_nothing_varied_names_each_column_once():
    images, labels = letters("AB", per_class=1, seed=0)
    fleet = run_fleet(MachineSpec.grid([0, 1]), images, labels, presentations=4)
    head, row = fleet_tables(fleet).splitlines()
    names = head.split("  ")
    names = [n.strip() for n in names if n.strip()]
    assert len(names) == len(set(names)), head
    assert names[:2] == ["fleet", "machines"]
    assert row.split()[:2] == ["all", "2"]


def test_a_mean_accuracy_short_of_all_right_is_never_printed_100():
    """Walk of issue 37: the fleet table printed its mean accuracy as ``.1f`` ("100.0%"),
    which claims no error when one figure in more than 2,000 was misread; it now says
    it as every message does (``percent``: 99.96%)."""
    import dataclasses

    images, labels = letters("AB", per_class=1, seed=0)
    fleet = run_fleet(MachineSpec.grid([0, 1]), images, labels, presentations=4)
    fleet = [dataclasses.replace(fleet[0], accuracy=0.9992), fleet[1]]
    assert all(f.accuracy == 1.0 for f in fleet[1:])
    row = fleet_tables(fleet).splitlines()[1]
    assert row.split()[2] == "99.96%"
