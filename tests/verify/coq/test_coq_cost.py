"""What each ``coqc`` of the Coq build loads, and its GC (issue 37: the suite's peak
memory). Every ``coqc`` held about half a GB: Coq's 256 MB minor heap, filled while
loading mathcomp, and all of mathcomp and the ``ring`` tactic loaded by every file
through ``Perceptron.v``. No Coq needed: the sources are read, ``coqc`` is faked."""

import importlib
import re
import subprocess

import pytest

from verify.coq.build import SOURCE_DIR, project_files, required_libraries, without_comments

coq = importlib.import_module("verify.coq.build")   # the module, not the function

#: Coq's own minor heap (``coqc`` sets it when ``OCAMLRUNPARAM`` is unset), in words.
COQ_MINOR_HEAP_WORDS = 32 * 2**20


def source(name):
    """The text of ``name`` without its comments (which may name a library)."""
    return without_comments((SOURCE_DIR / name).read_text())


def required(name):
    """The libraries a file requires: ``From mathcomp Require Import ssralg`` gives
    ``mathcomp.ssralg``; a bare ``Require Import QArith`` gives ``QArith``."""
    return required_libraries((SOURCE_DIR / name).read_text())


FILES = project_files()[1]
#: The files of the mathcomp proofs (the others use Coq's rationals, and its ``ring``).
MATHCOMP_FILES = [name for name in FILES
                  if "Markone.Perceptron" in required(name) or name == "Perceptron.v"]


def test_required_reads_the_require_lines():
    assert required("Perceptron.v")[:2] == ["mathcomp.ssreflect", "mathcomp.ssrfun"]
    assert "Markone.Checker" in required("Extraction.v")
    assert "QArith" in required("Checker.v")


@pytest.mark.parametrize("name", FILES)
def test_no_file_requires_the_whole_of_mathcomp(name):
    """``all_ssreflect``/``all_algebra`` load every theory of the package (polynomials,
    vector spaces, intervals, ...): each file names the ones it uses."""
    whole = [lib for lib in required(name) if re.fullmatch(r"mathcomp\.all_\w+", lib)]
    assert not whole, f"{name} requires {whole}: require the theories it uses"


def test_the_mathcomp_files_are_the_theories_of_the_perceptron():
    assert {"Perceptron.v", "Gordan.v", "BlockLevin.v"} <= set(MATHCOMP_FILES)
    assert not {"Checker.v", "Tolerance.v", "Extraction.v"} & set(MATHCOMP_FILES)


@pytest.mark.parametrize("name", MATHCOMP_FILES)
def test_a_file_requires_the_ring_tactic_only_when_it_uses_it(name):
    """``ring`` loads Coq-Elpi, zify, ZArith and the integers: the files that use
    ``ring`` or ``field`` require it themselves, the others do not load it."""
    uses = re.search(r"(?<![\w.])(?:ring|field)\s*(?:[.;)\]|]|$)", source(name), re.M)
    requires = any(lib.startswith("mathcomp.algebra_tactics") for lib in required(name))
    assert requires == bool(uses), (name, "requires" if requires else "uses", "ring")


def test_perceptron_v_which_every_theory_imports_requires_no_tactic_library():
    """Gordan.v, Orthonormal.v and Cycling.v import only ``Perceptron.v``: what it
    requires, they load. It requires mathcomp's theories and no tactic library."""
    libraries = required("Perceptron.v")
    assert all(lib.startswith("mathcomp.") for lib in libraries), libraries
    assert not {"mathcomp.zify", "mathcomp.algebra_tactics.ring"} & set(libraries)


def parsed(gc):
    """``OCAMLRUNPARAM``'s fields: ``"s=2M,o=200"`` is ``{"s": 2097152, "o": 200}``."""
    scale = {"k": 2**10, "M": 2**20, "G": 2**30}
    fields = dict(part.split("=", 1) for part in gc.split(",") if "=" in part)
    return {key: int(value[:-1]) * scale[value[-1]] if value[-1] in scale else int(value)
            for key, value in fields.items()}


def test_parsed_reads_ocamlrunparam():
    assert parsed("s=2M,o=200") == {"s": 2 * 2**20, "o": 200}
    assert parsed("s=256k") == {"s": 256 * 2**10}


def test_the_gc_setting_is_a_small_minor_heap():
    """Coq's 32 M-word minor heap is 256 MB of every ``coqc``; ours an eighth of it at
    most."""
    assert parsed(coq.COQC_GC)["s"] <= COQ_MINOR_HEAP_WORDS // 8


@pytest.fixture
def fake_coqc(monkeypatch):
    """Record the environment of each command instead of running it; ``Print
    Assumptions`` answers that every theorem is closed."""
    runs = []

    def run(argv, cwd=None, env=None, **kwargs):
        runs.append((argv[0], env))
        return subprocess.CompletedProcess(argv, 0, "Closed under the global context\n", "")

    monkeypatch.setattr(coq, "missing_tools", lambda: None)
    monkeypatch.setattr(coq.subprocess, "run", run)
    return runs


def coqc_settings(runs):
    return [(env or {}).get("OCAMLRUNPARAM") for command, env in runs if command == "coqc"]


def test_every_coqc_of_the_build_and_of_print_assumptions_has_the_gc_setting(
        tmp_path, fake_coqc, monkeypatch):
    monkeypatch.delenv("OCAMLRUNPARAM", raising=False)
    built = coq.build(tmp_path / "build")
    assert coq.print_assumptions(built, {"novikoff": "Novikoff"}) == {"novikoff": []}
    settings = coqc_settings(fake_coqc)
    assert len(settings) == len(FILES) + 1
    assert set(settings) == {coq.COQC_GC}


def test_a_gc_setting_of_the_user_is_kept(tmp_path, fake_coqc, monkeypatch):
    """As Coq does: it sets its own GC only when ``OCAMLRUNPARAM`` is unset."""
    monkeypatch.setenv("OCAMLRUNPARAM", "v=0x400")
    coq.build(tmp_path / "build")
    assert set(coqc_settings(fake_coqc)) == {"v=0x400"}
