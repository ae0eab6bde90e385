"""Build-time helpers of the documentation site (loaded by ``mkdocs.yml``).

* The **CLI reference** (``cli.md``) is generated from the real parser,
  :func:`markone.cli.build_parser`, every time the site is built, so it cannot drift
  from the code: :func:`render_cli` writes it and the MkDocs hook :func:`on_files` adds
  it to the site. ``python docs/hooks.py`` prints the page.
* Every cited source key (``[Navy1960]``, see ``markone._internal.sources``) becomes a link to
  its entry on the sources page (:func:`on_page_markdown`, :func:`link_source_keys`).
* :class:`MarkoneDocstrings` is a small Griffe extension for the API reference
  (:func:`clean_docstring`): the docstrings are numpydoc with reST touches (Sphinx
  roles, simple tables, definition lists, bare doctests), and the API pages render
  them as Markdown, cleanly and with no warning under ``mkdocs build --strict``.

The tests use :func:`render_cli` and :func:`iter_commands`; MkDocs and Griffe are
imported only when the site is built.

>>> page = render_cli()
>>> page.splitlines()[0]
'# Command line reference'
>>> "## `markone sim run`" in page
True
"""

from __future__ import annotations

import argparse
import os
import re

__all__ = ["GENERATED", "GENERATED_FILES", "WIDTH", "SOURCES_PAGE", "render_cli", "iter_commands",
           "clean_docstring", "on_files", "on_page_markdown", "link_source_keys"]

#: Pages of the site that exist only at build time (path relative to ``docs/``).
GENERATED = ("cli.md",)

#: Other files that exist only at build time: the counterexample replays of
#: ``verify-machine.md`` (``docs/figures/make_verify_machine_replays.py``).
GENERATED_FILES = ("replays/end_stops_block.html", "replays/symmetric_stops_block.html",
                   "replays/short_exposure_blends.html")

#: Column width of the rendered ``--help`` texts (fixed, so the page is reproducible).
WIDTH = 88

_INTRO = """\
# Command line reference

Generated from the parser itself (`markone.cli.build_parser()`) each time this site is
built, so it always matches the installed `markone`. Every command below prints the
same text with `--help`. Errors are one line on stderr with exit status 2; add
`--debug` (before the command) to see the full traceback instead.

| command | purpose |
|---|---|
"""


def iter_commands(parser, path=("markone",)):
    """Yield ``(path, help, parser)`` for ``parser`` and every nested subcommand.

    ``path`` is the tuple of words that invokes the command (``("markone", "sim",
    "run")``); ``help`` is its one-line purpose (the top level's description).

    >>> from markone.cli import build_parser
    >>> [" ".join(p) for p, _, _ in iter_commands(build_parser())][:1]
    ['markone']
    """
    yield path, parser.description, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help for a in action._choices_actions}
            for name, sub in action.choices.items():
                yield from _children(sub, path + (name,), helps.get(name, ""))


def _children(parser, path, help):
    for i, item in enumerate(iter_commands(parser, path)):
        yield item if i else (path, help, parser)


def render_cli(parser=None):
    """Return the Markdown CLI reference of ``parser`` (default: ``markone``'s).

    One section per command and subcommand, each with its one-line purpose and the
    exact ``--help`` text at :data:`WIDTH` columns.
    """
    if parser is None:
        from markone.cli import build_parser

        parser = build_parser()
    commands = list(iter_commands(parser))
    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(WIDTH)
    try:
        rows, sections = [], []
        for path, help, sub in commands:
            name = " ".join(path)
            purpose = (help or "").strip().splitlines()[0] if help else ""
            rows.append(f"| [`{name}`](#{_anchor(name)}) | {_cell(purpose)} |")
            sections.append(f"## `{name}`\n\n{purpose}\n\n```text\n"
                            f"{sub.format_help().rstrip()}\n```\n")
    finally:
        if old is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = old
    return _INTRO + "\n".join(rows) + "\n\n" + "\n".join(sections)


def _anchor(name):
    """The anchor MkDocs (toc extension, default slugify) gives ``## `name```."""
    return re.sub(r"[\s]+", "-", re.sub(r"[^\w\s-]", "", name).strip().lower())


def _cell(text):
    return text.replace("|", r"\|")


def on_files(files, config, **kwargs):
    """MkDocs hook: add the generated pages (:data:`GENERATED`) to the site."""
    from mkdocs.structure.files import File

    files.append(File.generated(config, "cli.md", content=render_cli()))
    for path, html in _replay_pages().items():
        files.append(File.generated(config, path, content=html))
    return files


def on_page_markdown(markdown, page, **kwargs):
    """MkDocs hook: link every cited source key (``[Navy1960]``) to its entry on the
    sources page, outside code; the sources page itself is left as it is."""
    if page.file.src_uri == SOURCES_PAGE:
        return markdown
    target = "../" * page.file.src_uri.count("/") + SOURCES_PAGE
    return link_source_keys(markdown, target)


#: The page of the bibliography (``markone._internal.sources``), relative to ``docs/``.
SOURCES_PAGE = "history-sources.md"

_CODE = re.compile(r"^[ \t]*(`{3,}|~{3,}).*?^[ \t]*\1[ \t]*$|`[^`\n]*`", re.M | re.S)


def link_source_keys(markdown, target=SOURCES_PAGE):
    """``markdown`` with each cited source key a link to ``target#KEY``; code is kept.

    >>> link_source_keys("Shown [Navy1960, caption]; run `[Navy1960]`.")
    'Shown [[Navy1960](history-sources.md#Navy1960), caption]; run `[Navy1960]`.'
    """
    from markone._internal.sources import link_citations

    def link(text):
        return link_citations(text, lambda key: f"[{key}]({target}#{key})")

    out, end = [], 0
    for code in _CODE.finditer(markdown):
        out += [link(markdown[end:code.start()]), code[0]]
        end = code.end()
    return "".join(out) + link(markdown[end:])


def _replay_pages():
    """The counterexample replays, from ``docs/figures/make_verify_machine_replays.py``."""
    import importlib.util
    from pathlib import Path

    script = Path(__file__).parent / "figures" / "make_verify_machine_replays.py"
    spec = importlib.util.spec_from_file_location("make_verify_machine_replays", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    pages = module.replay_pages()
    assert tuple(sorted(pages)) == tuple(sorted(GENERATED_FILES)), pages.keys()
    return pages


# --- Griffe extension for the API reference ----------------------------------------

_ROLE = re.compile(r":(?:py:)?(?:func|meth|class|mod|data|attr|obj|exc|const):`(~?)([^`]+)`")
_SECTION = re.compile(r"^(Examples?)\n-{3,}$", re.M)
# a numpydoc "name : type" line; the type is shown as code, so inline markup must go
_TYPED = re.compile(r"^(?P<names>[ \t]*\*{0,2}\w+(?:, *\*{0,2}\w+)*) : (?P<type>.*)$", re.M)


def _code_span(match):
    tilde, target = match.groups()
    return f"`{target.rsplit('.', 1)[-1] if tilde else target}`"


def clean_docstring(text):
    """Make a numpydoc/reST docstring render well as Markdown (see :class:`MarkoneDocstrings`).

    Sphinx roles become code spans; types lose inline markup (they render as code);
    before the first numpydoc section, reST simple tables and definition lists become
    Markdown; a bare doctest block gets its ``Examples`` heading.

    >>> clean_docstring("See :func:`~markone.train`.\\n\\n>>> 1 + 1\\n2").splitlines()
    ['See `train`.', '', 'Examples', '--------', '>>> 1 + 1', '2']
    >>> clean_docstring("X, y : arrays of shape ``(n, d)``, :class:`numpy.ndarray`")
    'X, y : arrays of shape (n, d), numpy.ndarray'
    >>> print(clean_docstring("Intro.\\n\\n``NAME``\\n    its name,\\n    a string\\n"
    ...                       "``run``\\n    the call\\n\\n===  ====\\na    b c\\n===  ===="))
    Intro.
    <BLANKLINE>
    - ``NAME``: its name, a string
    - ``run``: the call
    <BLANKLINE>
    - a: b c
    """
    text = _ROLE.sub(_code_span, text)
    text = _TYPED.sub(lambda m: f"{m['names']} : {m['type'].replace('`', '')}", text)
    first = _NUMPYDOC_SECTION.search(text)
    cut = first.start() if first else len(text)
    head = "\n".join(_definition_lists(_simple_tables(text[:cut].split("\n"))))
    text = head + text[cut:]
    if _SECTION.search(text):
        return text
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line.startswith(">>>") and (i == 0 or not lines[i - 1].strip()):
            return "\n".join(lines[:i] + ["Examples", "--------"] + lines[i:])
    return text


_NUMPYDOC_SECTION = re.compile(r"^[A-Z][A-Za-z ]*\n-{3,}[ \t]*$", re.M)
_BORDER = re.compile(r"^=+( +=+)+[ \t]*$")


def _simple_tables(lines):
    """reST simple tables -> a Markdown table (a bullet list when two columns, no header)."""
    out, i = [], 0
    while i < len(lines):
        end = i
        while end < len(lines) and lines[end].strip():
            end += 1
        block = lines[i:end]
        if len(block) >= 3 and _BORDER.match(block[0]) and _BORDER.match(block[-1]):
            out += _markdown_table(block)
            i = end
        else:
            out.append(lines[i])
            i += 1
    return out


def _markdown_table(block):
    """One reST simple table (its lines, borders included) in Markdown lines."""
    starts = [m.start() for m in re.finditer(r"=+", block[0])]
    borders = [k for k, line in enumerate(block) if _BORDER.match(line)]
    rows = [[line[a:b].strip() for a, b in zip(starts, starts[1:] + [None])]
            for line in block if not _BORDER.match(line)]
    header = rows[:borders[1] - 1] if len(borders) == 3 else []
    body = rows[len(header):]
    if not header and len(starts) == 2:
        return [f"- {a}: {b}" for a, b in body]
    cells = lambda row: "| " + " | ".join(c.replace("|", "\\|") for c in row) + " |"
    return [cells(header[0] if header else [""] * len(starts)),
            "|" + "---|" * len(starts)] + [cells(r) for r in body]


def _is_term(lines, i, out):
    """Whether line ``i`` is a definition list's term (its definition indented below)."""
    line = lines[i]
    follows = i + 1 < len(lines) and lines[i + 1].startswith("    ") and lines[i + 1].strip()
    starts_item = i == 0 or not lines[i - 1].strip() or (out and out[-1].startswith("- "))
    return bool(follows and starts_item and line.strip() and not line[0].isspace()
                and not line.startswith((">>>", "...", "- ", "* ")))


def _definition_lists(lines):
    """reST definition lists (a term, its definition indented below) -> bullets."""
    out, i = [], 0
    while i < len(lines):
        line = lines[i]
        if _is_term(lines, i, out):
            j = i + 1
            while j < len(lines) and lines[j].startswith("    ") and lines[j].strip():
                j += 1
            out.append(f"- {line.strip()}: " + " ".join(l.strip() for l in lines[i + 1:j]))
            i = j
        else:
            out.append(line)
            i += 1
    return out


try:  # the docs extra; absent in a test-only install
    import griffe
except ImportError:  # pragma: no cover
    griffe = None

if griffe is not None:

    class MarkoneDocstrings(griffe.Extension):
        """Clean every docstring with :func:`clean_docstring` as Griffe loads it."""

        def on_instance(self, *, obj, **kwargs):
            if obj.docstring is not None:
                obj.docstring.value = clean_docstring(obj.docstring.value)

    __all__.append("MarkoneDocstrings")


if __name__ == "__main__":  # pragma: no cover
    print(render_cli(), end="")
