"""Build the Coq development and its extracted checker, outside the source tree.

:func:`build` copies the sources (``_CoqProject``, the ``.v`` files, ``main.ml``) into a
build folder, compiles the theories with ``coqc``, :data:`COQC_JOBS` at a time, each
once the theories it requires are compiled (:func:`theory_requires`; the last one,
``Extraction.v``, writes ``checker.ml``), and links the OCaml command
``markone_coq_check`` with Zarith. The default folder is a cache named by the
sources' hash (``$XDG_CACHE_HOME/markone/coq-<hash>``), so a second call costs nothing;
nothing is ever written next to the sources.

:func:`missing_tools` says what is not installed (Debian: ``coq``,
``libcoq-mathcomp-*``, ``libcoq-mathcomp-algebra-tactics``, ``ocaml-nox``,
``libzarith-ocaml-dev``; ``.ci/run`` installs them). :func:`print_assumptions` runs
``Print Assumptions`` on theorems of a build.

Every command of both runs with :data:`COQC_GC` (:func:`coqc_environment`): without
it, Coq gives OCaml a 256 MB minor heap, which a file that loads mathcomp fills, so
each ``coqc`` held about half a GB; with a 16 MB one and more space overhead for the
major heap the largest holds a third of a GB, for about the same CPU (issue 37).
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from pathlib import Path

from markone._internal.progress import slow_step
from verify.errors import CoqUnavailable

__all__ = ["SOURCE_DIR", "COQC_GC", "COQC_JOBS", "CoqBuild", "build", "coqc_environment",
           "missing_tools", "print_assumptions", "project_files", "required_libraries",
           "theory_requires", "without_comments"]

#: The folder of the Coq sources (this package).
SOURCE_DIR = Path(__file__).resolve().parent

#: OCaml's GC settings for ``coqc``: a 2 M-word (16 MB) minor heap instead of the 32
#: M words (256 MB) Coq sets when ``OCAMLRUNPARAM`` is unset; a space overhead of 200
#: (Coq: 120) keeps the major collector's extra CPU small.
COQC_GC = "s=2M,o=200"

#: How many ``coqc`` a build runs at once: two, a third of a GB each at most. Most
#: theories need only ``Perceptron.v`` or one or two others (and ``Checker.v``'s family
#: needs none of them), so two run side by side for most of the build: 15 s instead of 24 s on two idle
#: cores, for the same CPU.
COQC_JOBS = 2

#: The OCaml front end linked with the extracted ``checker.ml``.
_MAIN = "main.ml"
_EXECUTABLE = "markone_coq_check"
_INSTALL = ("apt-get install coq libcoq-mathcomp-ssreflect libcoq-mathcomp-algebra "
            "libcoq-mathcomp-field libcoq-mathcomp-algebra-tactics ocaml-nox "
            "libzarith-ocaml-dev")


@dataclasses.dataclass(frozen=True)
class CoqBuild:
    """A compiled development: its folder, the ``coqc`` arguments of ``_CoqProject``
    and the extracted checker's executable."""

    directory: Path
    coq_args: tuple[str, ...]
    executable: Path


def project_files() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``(coqc arguments, .v files in build order)`` of ``_CoqProject``.

    >>> args, files = project_files()
    >>> args[:3], files[0], files[-1]
    (('-R', '.', 'Markone'), 'Perceptron.v', 'Extraction.v')
    """
    args: list[str] = []
    files: list[str] = []
    for line in (SOURCE_DIR / "_CoqProject").read_text().splitlines():
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        if words[0] == "-arg":
            args.extend(words[1::2])
        elif words[0].startswith("-"):
            args.extend(words)
        else:
            files.extend(words)
    return tuple(args), tuple(files)


def missing_tools() -> str | None:
    """What is missing to build the development (a sentence), or None.

    Looks for ``coqc``, mathcomp and its ``ring`` tactic, ``ocamlfind`` and Zarith.
    """
    if shutil.which("coqc") is None:
        return f"coqc is not installed ({_INSTALL})"
    where = Path(subprocess.run(["coqc", "-where"], capture_output=True, text=True,
                                check=False).stdout.strip())
    for lib in ("ssreflect", "algebra", "algebra_tactics"):
        if not (where / "user-contrib" / "mathcomp" / lib).is_dir():
            return f"mathcomp's {lib} is not installed ({_INSTALL})"
    if shutil.which("ocamlfind") is None:
        return f"ocamlfind (OCaml) is not installed ({_INSTALL})"
    found = subprocess.run(["ocamlfind", "query", "zarith"], capture_output=True,
                           check=False)
    if found.returncode or not list(Path(found.stdout.decode().strip() or ".")
                                    .glob("zarith.cmxa")):
        return f"Zarith for OCaml is not installed ({_INSTALL})"
    return None


def _sources() -> list[Path]:
    return [SOURCE_DIR / "_CoqProject", *(SOURCE_DIR / f for f in project_files()[1]),
            SOURCE_DIR / _MAIN]


def _default_directory() -> Path:
    digest = hashlib.sha256()
    for path in _sources():
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "markone" / f"coq-{digest.hexdigest()[:16]}"


def coqc_environment() -> dict[str, str]:
    """The environment of every ``coqc`` run here: ours, with ``OCAMLRUNPARAM`` set to
    :data:`COQC_GC` unless the user has set one (theirs is kept, as Coq itself does).

    >>> coqc_environment()["OCAMLRUNPARAM"] == (os.environ.get("OCAMLRUNPARAM") or COQC_GC)
    True
    """
    env = dict(os.environ)
    env["OCAMLRUNPARAM"] = env.get("OCAMLRUNPARAM") or COQC_GC
    return env


def _run(command: list[str], cwd: Path) -> None:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False,
                          env=coqc_environment())
    if done.returncode:
        raise CoqUnavailable(f"{' '.join(command[:2])} ... failed in {cwd} (exit "
                             f"{done.returncode}): {(done.stderr or done.stdout)[-2000:]}")


def build(directory: str | os.PathLike[str] | None = None, *,
          jobs: int = COQC_JOBS) -> CoqBuild:
    """Compile the theories and link the extracted checker; return the :class:`CoqBuild`.

    Parameters
    ----------
    directory : path, optional
        Where to build (created). Default: a cache folder named by the sources' hash,
        reused when it holds a finished build.
    jobs : int
        How many ``coqc`` run at once (default :data:`COQC_JOBS`); 1 compiles the
        theories one after the other, in ``_CoqProject``'s order.

    Raises
    ------
    CoqUnavailable
        When a tool is missing (:func:`missing_tools`) or a step fails (with its output).
    ValueError
        When ``jobs`` is not a whole number of at least 1.
    """
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"jobs must be a whole number of at least 1, not {jobs!r}")
    args, files = project_files()
    target = Path(directory) if directory is not None else _default_directory()
    executable = target / _EXECUTABLE
    if directory is None and executable.is_file():
        return CoqBuild(target, args, executable)
    reason = missing_tools()
    if reason is not None:
        raise CoqUnavailable(reason)
    target.parent.mkdir(parents=True, exist_ok=True)
    # build in a fresh folder next to the target, then move it in: never half a build
    work = Path(tempfile.mkdtemp(prefix=".coq-build-", dir=target.parent))
    try:
        with slow_step(f"building the Coq checker (once: kept in {target})"):
            _compile(args, files, work, jobs)
        if target.exists():
            shutil.rmtree(target)
        work.rename(target)
    finally:
        if work.exists():
            shutil.rmtree(work)
    return CoqBuild(target, args, executable)


def _compile(args, files, work, jobs):
    """Compile the theories in ``work``, ``jobs`` at a time, and link the extracted
    checker there."""
    for path in _sources():
        shutil.copy2(path, work / path.name)
    requires = theory_requires({name: (work / name).read_text() for name in files})
    run_in_order(files, requires, lambda name: _run(["coqc", *args, name], work), jobs)
    _run(["ocamlfind", "ocamlopt", "-package", "zarith", "-linkpkg", "-w", "-a",
          "checker.mli", "checker.ml", _MAIN, "-o", _EXECUTABLE], work)


_COMMENT = re.compile(r"\(\*(?:(?!\(\*|\*\)).)*\*\)", re.S)  # innermost first
_REQUIRE = re.compile(r"(?:From\s+(\S+)\s+)?Require\s+(?:Import\s+|Export\s+)?([^.]+)\.")


def without_comments(text: str) -> str:
    """A Coq source with each comment (they nest) replaced by a space.

    >>> without_comments("Lemma a. (* old (* older *) *) Qed.")
    'Lemma a.   Qed.'
    """
    while True:
        bare = _COMMENT.sub(" ", text)
        if bare == text:
            return text
        text = bare


def required_libraries(text: str) -> list[str]:
    """The libraries a Coq source requires, as dotted names, in order: ``From
    mathcomp Require Import ssralg.`` gives ``mathcomp.ssralg``, a bare ``Require
    Import QArith.`` gives ``QArith``; what comments say is skipped.

    >>> required_libraries("From Markone Require Import Perceptron Span. "
    ...                    "(* Require Old. (* nested *) *) Require Import QArith.")
    ['Markone.Perceptron', 'Markone.Span', 'QArith']
    """
    return [f"{prefix}.{name}" if prefix else name
            for prefix, names in _REQUIRE.findall(without_comments(text))
            for name in names.split()]


def theory_requires(sources: Mapping[str, str]) -> dict[str, frozenset[str]]:
    """For each theory of ``sources`` (file name -> text), the files of this
    development (``From Markone Require ...``) it requires.

    >>> theory_requires({"A.v": "Require Import QArith.",
    ...                  "B.v": "From Markone Require Import A."})
    {'A.v': frozenset(), 'B.v': frozenset({'A.v'})}
    """
    return {name: frozenset(f"{library.split('.', 1)[1]}.v"
                            for library in required_libraries(text)
                            if library.startswith("Markone."))
            for name, text in sources.items()}


def run_in_order(names: Sequence[str], requires: Mapping[str, frozenset[str]],
                 run: Callable[[str], object], jobs: int) -> None:
    """Call ``run(name)`` for each of ``names``, at most ``jobs`` at once, each once
    every name it ``requires`` has returned; ready names start in the order given.
    The first exception raised by a ``run`` is raised once the running ones end; no
    name starts after it.

    >>> done = []
    >>> run_in_order(["A", "B", "C"], {"A": frozenset(), "B": frozenset({"A"}),
    ...                                "C": frozenset({"A"})}, done.append, jobs=2)
    >>> done[0]
    'A'

    Raises
    ------
    CoqUnavailable
        When some name requires one that is not among ``names`` (or that requires it
        back): it could never start.
    """
    waiting, finished = list(names), set[str]()
    with ThreadPoolExecutor(jobs) as pool:
        running: dict[Future[object], str] = {}
        while waiting or running:
            for name in [n for n in waiting if requires[n] <= finished]:
                if len(running) == jobs:
                    break
                waiting.remove(name)
                running[pool.submit(run, name)] = name
            if not running:
                stuck = {name: sorted(requires[name] - finished) for name in waiting}
                raise CoqUnavailable(f"these theories require ones that are never "
                                     f"compiled (missing from _CoqProject, or a cycle): "
                                     f"{stuck}")
            ended, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in ended:
                name = running.pop(future)
                error = future.exception()
                if error is not None:
                    waiting.clear()
                    wait(running)
                    raise error
                finished.add(name)


def print_assumptions(built: CoqBuild, theorems: dict[str, str]) -> dict[str, list[str]]:
    """The axioms each theorem rests on, by ``Print Assumptions`` (empty: none).

    ``theorems`` maps a theorem's name to the module that states it (``"Novikoff"``).
    One ``Print Assumptions`` first asks about a definition that names them all (the
    dependencies they share are walked once: a quarter of the cost of asking each);
    when it is closed under the global context, so is each of them (their axioms are
    among its). Otherwise each theorem is asked on its own.
    """
    if not theorems:
        return {}
    together = "(" + ", ".join(f"@{module}.{name}" for name, module in
                               theorems.items()) + ")"
    found = _ask(built, theorems, [f"Definition markone_theorems := {together}.",
                                   "Print Assumptions markone_theorems."], ["all"])
    if found["all"] == []:
        return {name: [] for name in theorems}
    return _ask(built, theorems, [f"Print Assumptions {module}.{name}."
                                  for name, module in theorems.items()], list(theorems))


def _ask(built, theorems, commands, names):
    """Run ``commands`` after requiring the theorems' modules; parse one answer of
    ``Print Assumptions`` for each of ``names``."""
    lines = [f"From Markone Require {module}." for module in sorted(set(theorems.values()))]
    # a file of its own: processes that share one build (the test workers) ask at once
    with tempfile.NamedTemporaryFile("w", dir=built.directory, prefix="PrintAssumptions_",
                                     suffix=".v", delete=False) as file:
        file.write("\n".join(lines + commands) + "\n")
    probe = Path(file.name)
    try:
        done = subprocess.run(["coqc", *built.coq_args, probe.name], cwd=built.directory,
                              capture_output=True, text=True, check=False,
                              env=coqc_environment())
    finally:
        for output in built.directory.glob(f"{probe.stem}.*"):
            output.unlink(missing_ok=True)
        built.directory.joinpath(f".{probe.stem}.aux").unlink(missing_ok=True)
    if done.returncode:
        raise CoqUnavailable(f"Print Assumptions failed: {done.stderr[-2000:]}")
    return _parse_assumptions(done.stdout, names)


def _parse_assumptions(output: str, names: list[str]) -> dict[str, list[str]]:
    """Split ``Print Assumptions`` output, one answer per theorem in order: "Closed
    under the global context" (no axiom) or "Axioms:" and lines ``name : type``."""
    answers: list[list[str]] = []
    current: list[str] | None = None
    for line in output.splitlines():
        if line.startswith("Closed under the global context"):
            answers.append([])
            current = None
        elif line.startswith("Axioms:"):
            current = []
            answers.append(current)
        elif current is not None and line and not line[0].isspace() and " : " in line:
            current.append(line.split(" : ", 1)[0].strip())
    if len(answers) != len(names):
        raise CoqUnavailable(f"Print Assumptions gave {len(answers)} answers for "
                             f"{len(names)} theorems: {output[-2000:]}")
    return dict(zip(names, answers))
