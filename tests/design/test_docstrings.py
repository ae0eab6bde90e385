"""Every public docstring agrees with its signature (issue 24).

Griffe, the parser behind the API pages (installed with the ``docs`` extra, which the
``test`` extra includes), reads every public function, class and method of markone,
verify and sims as ``mkdocs build --strict`` does (numpy style, with the site's own
extension from ``docs/hooks.py``). Any warning it gives fails here, in the ordinary
test run, not only in the strict docs build: a ``Parameters`` entry that the signature
lacks (a stale ``epochs``, or a sentence read as a parameter), an entry without a
type. And a ``Parameters`` section must name every parameter of the signature.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import textwrap

import griffe
import pytest
from _paths import ROOT

PACKAGES = ("markone", "verify", "sims")


@contextlib.contextmanager
def griffe_warnings():
    """Collect the messages Griffe logs (it warns through the ``griffe`` logger)."""
    messages: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record):
            messages.append(record.getMessage())

    log = logging.getLogger("griffe")
    handler, propagate = Collect(level=logging.WARNING), log.propagate
    log.addHandler(handler)
    log.propagate = False
    try:
        yield messages
    finally:
        log.removeHandler(handler)
        log.propagate = propagate


def public_objects(obj):
    """The public functions, classes and methods under ``obj`` (a Griffe module):
    names without a leading underscore, defined here (not imported), in public
    modules."""
    for name, member in obj.members.items():
        if name.startswith("_") or member.is_alias:
            continue
        if member.is_module:
            yield from public_objects(member)
        elif member.is_function or member.is_class:
            yield member
            if member.is_class:
                yield from (m for n, m in member.members.items()
                            if not n.startswith("_") and not m.is_alias
                            and m.is_function)


def signature_names(obj):
    """The parameters a caller passes (``__init__``'s for a class): no ``self`` or
    ``cls``, and no ``draw`` of a Hypothesis ``@composite`` strategy."""
    names = [p.name for p in obj.parameters if p.name not in ("self", "cls")]
    if obj.is_function and any(str(d.value).endswith("composite")
                               for d in obj.decorators):
        names = names[1:]
    return names


def documented_names(sections):
    """The names in the ``Parameters`` sections (``**kwargs`` read as ``kwargs``)."""
    return {p.name.lstrip("*") for s in sections
            if s.kind is griffe.DocstringSectionKind.parameters for p in s.value}


@functools.cache
def load(package, search_paths):
    """``package`` as griffe reads it for the site (numpy style, the site's extension),
    loaded once for the module's tests (a second load of each package was 1.7 s)."""
    extensions = griffe.load_extensions(f"{ROOT / 'docs' / 'hooks.py'}:MarkoneDocstrings")
    return griffe.load(package, search_paths=list(search_paths), docstring_parser="numpy",
                       extensions=extensions, resolve_aliases=False)


def docstring_problems(packages=PACKAGES, search_paths=(ROOT,)):
    """Every problem in the public docstrings of ``packages``, as sentences."""
    problems = []
    for package in packages:
        for obj in public_objects(load(package, tuple(map(str, search_paths)))):
            if obj.docstring is None:
                continue
            with griffe_warnings() as warned:
                sections = obj.docstring.parse("numpy", warn_unknown_params=True)
            problems += [f"{obj.path}: {w}" for w in warned]
            documented = documented_names(sections)
            missing = [n for n in signature_names(obj) if n not in documented]
            if documented and missing:
                problems.append(f"{obj.path}: the Parameters section does not name "
                                f"{', '.join(missing)}")
    return problems


def test_public_docstrings_match_their_signatures():
    assert docstring_problems() == []


STALE = '''
"""A package with the docstring faults issue 24 found."""


def train(images, *, max_epochs=None, **deprecated):
    """Train.

    Parameters
    ----------
    images : array
        The figures.
    max_epochs : int
        Most passes.
    epochs, shuffle
        Deprecated spellings.
    """


def separable_sets(n=2, coords=4):
    """Sets.

    Parameters
    ----------
    n : int
        Points.
    coords : int
        Range.

    Both labels always occur.
    """


class Machine:
    """A machine.

    Parameters
    ----------
    seed : int
        The seed.
    """

    def __init__(self, seed, rule):
        self.seed, self.rule = seed, rule
'''


def test_the_faults_of_issue_24_are_found(tmp_path):
    package = tmp_path / "stalepkg"
    package.mkdir()
    (package / "__init__.py").write_text(textwrap.dedent(STALE))
    found = docstring_problems(["stalepkg"], [tmp_path])
    for where, fault in [("train", "Parameter 'epochs' does not appear"),
                         ("train", "Parameter 'shuffle' does not appear"),
                         ("train", "the Parameters section does not name deprecated"),
                         ("separable_sets", "Parameter 'Both' does not appear"),
                         ("Machine", "the Parameters section does not name rule")]:
        assert any(p.startswith(f"stalepkg.{where}: ") and fault in p for p in found)


@pytest.mark.parametrize("package", PACKAGES)
def test_every_package_has_public_objects(package):
    # the walk reaches the packages' functions (not an empty scan that passes)
    assert sum(1 for _ in public_objects(load(package, (str(ROOT),)))) > 10
