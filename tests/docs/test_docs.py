"""The documentation cannot rot: commands parse, links resolve, the site is complete.

The ``>>>`` examples of README.md and docs/ run as doctests (``--doctest-glob=*.md``);
this module checks the rest:

* every ``markone ...`` command shown in a shell block of the README or the docs, and
  every example in the CLI's own ``--help`` texts, parses with the real parser
  (:func:`markone.cli.build_parser`), so documented commands cannot drift;
* every ``python`` block is a doctest (otherwise nothing would run it);
* every relative link and image of the README and the docs points to a file that
  exists (pages of the site must stay inside ``docs/``);
* the navigation of ``mkdocs.yml`` lists every page, and only pages that exist;
* the CLI reference, generated at build time by ``docs/hooks.py``, covers every
  command.

``mkdocs build --strict`` itself runs in CI (``.ci/run``) and here with ``-m slow``.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from markone.cli import build_parser
from _examples import FENCE, SHELL, doc_examples, fenced_blocks, shell_commands
from _examples import help_examples as command_examples
from _paths import ROOT

DOCS = ROOT / "docs"
PAGES = sorted(DOCS.rglob("*.md"))
MARKDOWN = [ROOT / "README.md", *PAGES]

LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(\s*<?(?P<target>[^)\s>]+)>?"
                  r"(?:\s+\"[^\"]*\")?\s*\)")
HTML_LINK = re.compile(r"<(?:img|a|source)\b[^>]*?\b(?:src|href)=\"(?P<target>[^\"]+)\"")


def _load_hooks():
    spec = importlib.util.spec_from_file_location("markone_docs_hooks", DOCS / "hooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


HOOKS = _load_hooks()


def _rel(path):
    return path.relative_to(ROOT).as_posix()


def parse_error(parser, argv):
    """None when ``markone ARGV`` parses; else argparse's message."""
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            parser.parse_args(argv)
    except SystemExit as exc:
        if exc.code not in (0, None):
            return err.getvalue().strip() or f"exit status {exc.code}"
    return None


def documented_commands():
    """``(where, argv)`` for every ``markone`` command of the README and the docs."""
    return [(line.where, argv) for example in doc_examples() for line in example.lines
            for argv in shell_commands(line.text)]


def help_examples():
    """``(command, argv)`` for every example in the ``--help`` epilogs of the CLI."""
    return [(example.where.strip("`").removesuffix(" --help"), argv)
            for example in command_examples() for line in example.lines
            for argv in shell_commands(line.text)]


def relative_links(path):
    """``(line, target)`` of every relative link and image of a Markdown file."""
    text = path.read_text(encoding="utf-8")
    # blank out code blocks and inline code, keeping line numbers
    text = FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    text = re.sub(r"`[^`\n]*`", "``", text)
    for regex in (LINK, HTML_LINK):
        for m in regex.finditer(text):
            target = m.group("target")
            if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I) or target.startswith("#"):
                continue  # a URL (http:, mailto:, ...) or an anchor on the page
            yield text.count("\n", 0, m.start()) + 1, target.split("#")[0].split("?")[0]


def nav_files(nav):
    """Every page listed in an ``mkdocs.yml`` nav (nested lists and dicts)."""
    if isinstance(nav, str):
        return [] if re.match(r"^[a-z]+://", nav) else [nav]
    if isinstance(nav, dict):
        return [f for v in nav.values() for f in nav_files(v)]
    return [f for item in nav for f in nav_files(item)]


# --- commands ------------------------------------------------------------------------


DOC_COMMANDS = documented_commands()
HELP_EXAMPLES = [(f"`{command} --help`", argv) for command, argv in help_examples()]


def test_the_docs_and_the_help_show_commands():
    # the README's quick start and the top-level help at least; guards the extraction
    assert ["demo"] in [argv for _, argv in DOC_COMMANDS]
    assert ["demo"] in [argv for _, argv in HELP_EXAMPLES]


@pytest.mark.parametrize(("where", "argv"), DOC_COMMANDS + HELP_EXAMPLES,
                         ids=[f"{w}:{' '.join(a)}" for w, a in DOC_COMMANDS + HELP_EXAMPLES])
def test_shown_command_parses(where, argv):
    error = parse_error(build_parser(), argv)
    assert error is None, (f"{where}: the command `markone {shlex.join(argv)}` does not "
                           f"parse with the current CLI:\n{error}\nFix the text or the parser.")


def test_shell_commands_extraction():
    body = """\
pip install . && markone demo --out d   # the tour
CI=1 markone sim run novikoff \\
    --workers 2 | tee log
== some output markone train x
"""
    assert shell_commands(body) == [["demo", "--out", "d"],
                                    ["sim", "run", "novikoff", "--workers", "2"]]
    console = "$ markone --version\nmarkone 0.1.0\n$ markone demo\n"
    assert shell_commands(console) == [["--version"], ["demo"]]


def test_parse_error_reports_argparse_message():
    assert parse_error(build_parser(), ["demo", "--no-such-flag"]) is not None
    assert parse_error(build_parser(), ["--help"]) is None


@pytest.mark.parametrize("path", MARKDOWN, ids=_rel)
def test_python_blocks_are_doctests(path):
    # a ```python block without >>> would never run: the docs could rot unseen
    for lang, body, line in fenced_blocks(path.read_text(encoding="utf-8")):
        if lang in {"python", "py", "pycon"}:
            assert ">>>" in body, (f"{_rel(path)}:{line}: a python block without >>> is "
                                   "not run by the test suite; write it as a doctest")


# --- links ---------------------------------------------------------------------------


@pytest.mark.parametrize("path", MARKDOWN, ids=_rel)
def test_relative_links_resolve(path):
    generated = {(DOCS / g).resolve() for g in HOOKS.GENERATED + HOOKS.GENERATED_FILES}
    broken, outside = [], []
    for line, target in relative_links(path):
        if not target:
            continue
        resolved = (path.parent / target).resolve()
        if not (resolved.exists() or resolved in generated):
            broken.append(f"{_rel(path)}:{line}: {target}")
        elif path.is_relative_to(DOCS) and not resolved.is_relative_to(DOCS):
            outside.append(f"{_rel(path)}:{line}: {target}")
    assert not broken, "links to missing files:\n" + "\n".join(broken)
    assert not outside, ("links from the site to files outside docs/ (MkDocs cannot "
                         "publish them; link to the repository URL):\n" + "\n".join(outside))


@pytest.mark.parametrize("path", MARKDOWN, ids=_rel)
def test_images_have_alt_text(path):
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    bare = re.findall(r"!\[\s*\]\(([^)]*)\)", text)
    assert not bare, f"{_rel(path)}: images without alt text (say what they show): {bare}"


def test_relative_links_finds_links_and_skips_code(tmp_path):
    page = tmp_path / "p.md"
    page.write_text('[a](x.md#s) ![b](fig/y.png "t") [c](https://e.org) [d](#top)\n'
                    "`[e](code.md)`\n```\n[f](block.md)\n```\n<img src=\"z.png\">\n")
    assert list(relative_links(page)) == [(1, "x.md"), (1, "fig/y.png"), (6, "z.png")]


# --- the site ------------------------------------------------------------------------


def test_nav_lists_every_page_and_only_existing_ones():
    yaml = pytest.importorskip("yaml")
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    listed = nav_files(config["nav"])
    pages = {p.relative_to(DOCS).as_posix() for p in PAGES} | set(HOOKS.GENERATED)
    assert len(listed) == len(set(listed)), "a page is listed twice in the nav"
    assert not set(listed) - pages, f"nav entries without a page: {set(listed) - pages}"
    assert not pages - set(listed), (f"pages missing from the nav of mkdocs.yml: "
                                     f"{sorted(pages - set(listed))}")


def public_modules():
    """Dotted names of the public modules of markone, verify and sims (not the command
    line: ``markone.cli``, ``verify.cli``, ``sims.cli``)."""
    names = set()
    for package in ("markone", "verify", "sims"):
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            if not any(p.startswith("_") for p in parts) and parts[1:2] != ("cli",):
                names.add(".".join(parts))
    return names


def test_api_reference_documents_every_public_module_once():
    documented = [m.group(1) for page in sorted((DOCS / "api").glob("*.md"))
                  for m in re.finditer(r"^::: ([\w.]+)", page.read_text(encoding="utf-8"), re.M)]
    twice = {name for name in documented if documented.count(name) > 1}
    assert not twice, f"documented twice in docs/api: {sorted(twice)}"
    missing = public_modules() - set(documented)
    assert not missing, f"public modules missing from docs/api/*.md: {sorted(missing)}"


def test_cli_reference_covers_every_command():
    page = HOOKS.render_cli()
    commands = [" ".join(path) for path, _, _ in HOOKS.iter_commands(build_parser())]
    assert len(commands) > 1
    for name in commands:
        assert f"## `{name}`" in page, f"`{name}` is missing from the CLI reference"
    # the help texts are the parser's own, and every command shows an example
    assert page.count("example") >= len(commands)


def test_cli_reference_is_reproducible():
    assert HOOKS.render_cli() == HOOKS.render_cli(build_parser())


@pytest.mark.slow
def test_site_builds_strict(tmp_path):
    pytest.importorskip("mkdocs")
    pytest.importorskip("mkdocstrings")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet",
                           "--site-dir", str(tmp_path / "site")], cwd=ROOT,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "site" / "cli.html").exists()  # use_directory_urls: false
