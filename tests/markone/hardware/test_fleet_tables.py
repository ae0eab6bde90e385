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
