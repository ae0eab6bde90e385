"""Every knob and every fault of the Mark I from the command line: ``--set NAME=VALUE``
for each field of MarkIParams (validated as the class validates it), the fault rates
and the fault-plan file (``--faults``) for each kind of fault, on every command that
builds machines."""

from __future__ import annotations

import dataclasses
import functools
import json
import shlex

import pytest

from markone.cli import build_parser, main
from markone.cli.machine_options import (FAULT_RATES, fault_request, machine_params,
                                          parse_setting)
from markone.hardware import MachineRun, MarkI, MarkIParams
from markone.hardware import faults as faults_module
from markone.hardware.faults import (FAULT_KINDS, AUnitStuck, CutWire, FaultPlan,
                                     MotorStopped, NoisySum, PhotocellStuck,
                                     PotentiometerDrift, faults_for)
from _paths import ROOT

#: A valid value other than the default for every MarkIParams field, as typed.
NON_DEFAULT = {
    "retina_shape": ("[16, 16]", (16, 16)), "s_threshold": ("0.4", 0.4),
    "photocell_rise_s": ("0.01", 0.01), "photocell_decay_s": ("0.3", 0.3),
    "settle_tolerance": ("0.1", 0.1), "photocell_noise_sd": ("0.2", 0.2),
    "exposure_s": ("0.05", 0.05), "n_a_units": ("256", 256),
    "n_excitatory": ("4", 4), "n_inhibitory": ("3", 3), "max_fanout": ("30", 30),
    "theta": ("2", 2), "theta_target_rate": ("[0.1, 0.3]", (0.1, 0.3)),
    "n_r_units": ("6", 6), "topology": ("source_sets", "source_sets"),
    "class_code": ("one_hot", "one_hot"), "weight_range": ("None", None),
    "quantize": ("false", False), "increment_steps": ("2", 2),
    "motor_step_s": ("0.5", 0.5), "logic_s": ("0.1", 0.1), "rule": ("gamma", "gamma"),
    "step_dtod": ("0.1", 0.1), "step_std": ("0.2", 0.2), "up_down": ("-0.1", -0.1),
    "drift_rate": ("0.01", 0.01), "sticky_steps": ("1.5", 1.5),
    "sticky_prob": ("0.05", 0.05),
}

#: Every command that builds machines, with the arguments it needs.
COMMANDS = (["machine", "train"], ["machine", "fleet"], ["machine", "demo", "letters"],
            ["machine", "params"], ["machine", "navy"], ["verify", "machine", "letters"])
FAULT_COMMANDS = [c for c in COMMANDS if c[-1] not in ("params", "navy")]


@functools.cache
def parser():
    """The ``markone`` parser, built once: the field-by-command test parses 168 command
    lines, and building the parser (every subcommand) is most of that time."""
    return build_parser()


def parse(argv):
    return parser().parse_args(argv)


def listed_params(capsys):
    assert main(["machine", "params"]) == 0
    table = capsys.readouterr().out.split("\n\n")[0]  # the counts follow a blank line
    return [row.split()[0] for row in table.splitlines()[1:]]


def test_machine_params_lists_every_field_and_each_is_settable(capsys):
    fields = [f.name for f in dataclasses.fields(MarkIParams)]
    assert listed_params(capsys) == fields
    assert sorted(NON_DEFAULT) == sorted(fields)   # a new field needs its row here
    for name, (text, value) in NON_DEFAULT.items():
        assert getattr(MarkIParams(), name) != value, name
        for command in COMMANDS:
            got = machine_params(parse([*command, "--set", f"{name}={text}"]))
            assert getattr(got, name) == value, (command, name)


def test_set_validates_as_markiparams_and_combines():
    args = parse(["machine", "train", "--ideal", "--set", "motor_step_s=0.5",
                  "--set", "weight_range=[-3, 3]", "--topology", "source_sets"])
    assert machine_params(args) == MarkIParams.ideal(
        motor_step_s=0.5, weight_range=(-3, 3), topology="source_sets")


@pytest.mark.parametrize("argv, message", [
    ("--set motr_step_s=1", "--set motr_step_s: not a machine parameter; did you mean "
     "motor_step_s? `markone machine params` lists them."),
    ("--set weight_range=5", "--set: weight_range(=5) must be (lo, hi) motor steps or "
     "None."),
    ("--set theta=x", "--set: theta must be an integer or 'auto', got 'x'."),
    ("--set motor_step_s=-1", "--set: motor_step_s(=-1) must be a finite number >= 0."),
    # nan and inf are read as numbers and refused as 1e400 is, not as words
    ("--set motor_step_s=nan", "--set: motor_step_s(=nan) must be a finite number >= 0."),
    ("--set motor_step_s=-inf", "--set: motor_step_s(=-inf) must be a finite number >= 0."),
    ("--set quantize=yes", "--set: quantize must be True or False, got 'yes'."),
    ("--set motor_step_s", "--set 'motor_step_s' must be NAME=VALUE, e.g. --set "
     "motor_step_s=0.5 or --set 'weight_range=[-3, 3]'."),
    ("--set topology=full --topology source_sets",
     "--set topology is given twice (also by --topology); give it once."),
])
def test_bad_settings_are_refused_naming_the_parameter(argv, message, capsys):
    assert main(["machine", "params", *shlex.split(argv)]) == 2
    assert capsys.readouterr().err == f"markone machine params: error: {message}\n"


def test_values_are_json_python_literals_or_words():
    assert parse_setting("retina_shape=(10, 12)") == ("retina_shape", (10, 12))
    assert parse_setting("exposure_s=null") == ("exposure_s", None)
    assert parse_setting("rule=gamma") == ("rule", "gamma")
    assert parse_setting("theta='auto'") == ("theta", "auto")


def test_every_fault_kind_has_a_rate_option():
    machine = MarkI(seed=0)
    for name, (kind, *_rest) in FAULT_RATES.items():
        flag = {"drift_sd": "--drift", "noise_sd": "--sum-noise"}.get(
            name, "--" + name.replace("_", "-"))
        for command in FAULT_COMMANDS:
            plan = faults_for(machine, fault_request(parse([*command, flag, "0.5"])))
            assert plan.kinds() == (kind,), (command, flag)
    assert sorted(k for k, *_ in FAULT_RATES.values()) == sorted(FAULT_KINDS)


def test_rates_are_drawn_from_the_seed_and_scheduled():
    args = parse(["machine", "train", "--cut-wires", "0.1", "--faults-at", "3",
                  "--seed", "4"])
    machine = MarkI(seed=4)
    assert faults_for(machine, fault_request(args)) == faults_module.random_faults(
        machine, cut_wires=0.1, at_s=3.0, seed=4)


ONE_OF_EACH = FaultPlan((PhotocellStuck(42, 1), CutWire(3, 17), AUnitStuck(5, 1),
                         MotorStopped(2, 9, at_s=4.0), PotentiometerDrift(0.5),
                         NoisySum(0.25)), seed=7)


def test_every_fault_kind_comes_from_a_plan_file(tmp_path):
    assert {type(f) for f in ONE_OF_EACH.faults} == set(FAULT_KINDS.values())
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(ONE_OF_EACH.to_dict()))
    for command in FAULT_COMMANDS:
        assert fault_request(parse([*command, "--faults", str(path)])) == ONE_OF_EACH


def test_every_fault_kind_is_in_the_fault_tables():
    docs = (ROOT / "docs" / "breaking-the-machine.md").read_text()
    for kind in FAULT_KINDS:
        assert f"``{kind}(" in faults_module.__doc__, kind
        assert f"| `{kind}(" in docs, kind


@pytest.mark.parametrize("content, message", [
    ("xx", "is not valid JSON"),
    ('{"faults": [{"kind": "Fire"}]}', "faults[0]: kind 'Fire' is not a fault; expected "
     "one of PhotocellStuck, CutWire"),
    ('{"faults": [{"kind": "CutWire", "a_unit": 3}]}', "faults[0]: CutWire has the "
     "fields ['a_unit', 's_unit', 'at_s'] (required: ['a_unit', 's_unit']), got "
     "['a_unit']."),
    ('{"faults": [{"kind": "NoisySum", "sd": -1}]}', "faults[0]: NoisySum: sd(=-1) must "
     "be a finite number > 0."),
    ('{"faults": [], "when": 3}', "a fault plan has the keys 'faults' and 'seed', not "
     "['when']."),
    ('[1]', 'a fault plan must be {"faults": ['),
    ('{"faults": [{"kind": "CutWire", "a_unit": 3, "s_unit": 9999}]}',
     "faults[0]: CutWire: no wire runs from S-unit 10000 to A-unit 4 (s_unit=9999, "
     "a_unit=3)"),
    # the walk of issue 37: "a_unit(=512) is out of range for this machine (0..511)",
    # in the file's numbering only, and without the fault it came from
    ('{"faults": [{"kind": "AUnitStuck", "a_unit": 1}, {"kind": "AUnitStuck", '
     '"a_unit": 512}]}', "faults[1]: AUnitStuck: a_unit=512 names A-unit 513, but this "
     "machine has A-units 1..512 (a_unit 0..511)."),
    ('{"faults": [{"kind": "MotorStopped", "r_unit": 8, "a_unit": 0}]}',
     "faults[0]: MotorStopped: r_unit=8 names R9, but this machine has R1..R8 "
     "(r_unit 0..7)."),
    ('{"faults": [{"kind": "PhotocellStuck", "cell": 400, "value": 1}]}',
     "faults[0]: PhotocellStuck: cell=400 names photocell 401, but this machine has "
     "photocells 1..400 (cell 0..399)."),
])
def test_bad_plan_files_are_refused(content, message, tmp_path, capsys):
    path = tmp_path / "plan.json"
    path.write_text(content)
    assert main(["machine", "train", "--chars", "AB", "--faults", str(path)]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_plan_file_and_rates_exclude_each_other(tmp_path, capsys):
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(FaultPlan().to_dict()))
    assert main(["machine", "train", "--faults", str(path), "--cut-wires", "0.1"]) == 2
    assert "--faults and --cut-wires exclude each other" in capsys.readouterr().err
    assert main(["machine", "train", "--faults-at", "2"]) == 2
    assert "--faults-at needs faults to schedule" in capsys.readouterr().err


def test_train_runs_the_damaged_machine_and_saves_its_faults(tmp_path, capsys):
    path = tmp_path / "plan.json"
    plan = FaultPlan((AUnitStuck(3, 1), PhotocellStuck(42, 1)))
    path.write_text(json.dumps(plan.to_dict()))
    out = tmp_path / "run.json"
    assert main(["machine", "train", "--chars", "AB", "--per-class", "2",
                 "--faults", str(path), "--set", "motor_step_s=0.5",
                 "--out", str(out)]) == 0
    assert capsys.readouterr().out.startswith(
        "faults: A-unit 4 stuck on; photocell 43 stuck lit\n")   # named from 1
    run = MachineRun.load(out)
    assert run.faults == plan and run.params.motor_step_s == 0.5


def test_a_saved_run_task_refuses_settings(tmp_path, capsys):
    run = tmp_path / "run.json"
    assert main(["machine", "train", "--chars", "AB", "--per-class", "1", "--log",
                 "--out", str(run)]) == 0
    capsys.readouterr()
    assert main(["verify", "machine", str(run), "--set", "motor_step_s=1"]) == 2
    assert "carries its machine's parameters" in capsys.readouterr().err


def test_weight_range_is_set_once_on_verify_machine(capsys):
    assert main(["verify", "machine", "letters", "--weight-range", "3",
                 "--set", "weight_range=[-2, 2]"]) == 2
    assert "--weight-range and --set weight_range=... both set the end stops" in \
        capsys.readouterr().err


def test_a_fleet_says_how_its_machines_are_broken(capsys):
    assert main(["machine", "fleet", "--machines", "1", "--presentations", "4",
                 "--chars", "AB", "--dead-a-units", "0.5", "--seed", "3"]) == 0
    assert capsys.readouterr().out.splitlines()[1] == (
        "faults on every machine: dead_a_units=0.5 (drawn on each machine from --seed 3)")


def test_the_fault_plan_of_the_help_breaks_a_default_machine(tmp_path, capsys):
    # `machine train --help` shows this plan; its wire must exist on the plugboard of
    # the default --seed (it named one that did not: exit 2, "no wire runs from ...")
    from markone.cli.machine_options import FAULT_FILE_EXAMPLE

    plan = tmp_path / "plan.json"
    plan.write_text(FAULT_FILE_EXAMPLE)
    status = main(["machine", "train", "--chars", "AB", "--per-class", "1",
                   "--max-epochs", "1", "--faults", str(plan)])
    out = capsys.readouterr()
    assert status in (0, 1), out.err
    assert "wire (S-unit 39, A-unit 4) cut" in out.out   # s_unit 38, a_unit 3
    with pytest.raises(SystemExit):
        main(["machine", "train", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    assert " ".join(FAULT_FILE_EXAMPLE.split()) in shown   # the plan tested is the one shown


@pytest.mark.parametrize("argv, said", [
    (["--vary", "motor_step_s=[0.5]", "--set", "motor_step_s=1"],
     "--set motor_step_s and --vary motor_step_s both set motor_step_s"),
    (["--vary", 'topology=["full"]', "--topology", "source_sets"],
     "--topology and --vary topology both set topology"),
    (["--vary", "motor_step_s=[0.5, 0.5]"], "--vary motor_step_s lists 0.5 twice"),
    (["--vary", "weight_range=[null, [-2, 2], null]"],
     "--vary weight_range lists null twice")])
def test_a_fleet_setting_given_twice_is_refused_not_overridden(argv, said, capsys):
    """The walk of issue 37: `--vary 'motor_step_s=[0.5]' --set motor_step_s=1` ran
    every machine at 0.5 without a word of the 1, and a value listed twice ran its
    machines twice in one row."""
    assert main(["machine", "fleet", "--machines", "1", "--presentations", "2",
                 "--chars", "AB", *argv]) == 2
    assert said in capsys.readouterr().err
