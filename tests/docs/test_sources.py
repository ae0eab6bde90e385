"""Every historical sentence markone prints or documents cites the one bibliography.

The bibliography is ``markone._internal.sources.SOURCES`` (shown by ``docs/history-sources.md``).
A passage is historical when it names a year from 1800 to 1999 or one of the people
and institutions of the story (:data:`HISTORICAL`); each such passage of the pages in
:data:`HISTORY_PAGES` (history, teaching, the machine, the start pages, the README) and
of the ``markone demo`` page cites at least one key. (The theory pages and the gallery
attribute theorems and experiments to their own reference lists.) A passage is a
paragraph, a list item or a table row; code, headings and the text of links to other
pages are not passages. Every key cited anywhere in
the docs, the README, the demo or ``markone machine params`` must exist, and every
provenance row labelled documented or disputed must cite one.
"""

from __future__ import annotations

import ast
import json
import re

import pytest

from markone._internal.sources import (NOT_FOUND, SOURCES, Source, bibliography_markdown,
                                       cited_keys, entry_problems, link_citations)
from markone.hardware import MarkIParams
from _paths import ROOT

DOCS = ROOT / "docs"
DEMO = ROOT / "sims" / "cli" / "demo.py"
#: The pages whose historical passages must cite a source.
HISTORY_PAGES = [ROOT / "README.md", *(DOCS / name for name in (
    "index.md", "history.md", "history-published.md", "history-context.md", "teaching.md",
    "getting-started.md",
    "user-guide.md", "machine.md", "verify-machine.md", "multiclass-kernel.md"))]
ALL_MARKDOWN = [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]
#: The modules whose strings markone prints (help texts, reports, figure labels, pages):
#: markone's and the commands of verify and sims; the bibliography itself is the one
#: module that may name the past without a key.
PRINTING_MODULES = sorted(
    p for folder in (ROOT / "markone", ROOT / "verify" / "cli", ROOT / "sims" / "cli")
    for p in folder.rglob("*.py") if p != ROOT / "markone" / "_internal" / "sources.py")
NOTEBOOKS = sorted((ROOT / "examples").glob("*.ipynb"))

#: What marks a passage as historical: a year before 2000, or a name of the story.
#: (A number followed by "x", "×" or "px" is a size on a screen, not a year.)
HISTORICAL = re.compile(r"\b1[89]\d\d\b(?!\s*(?:x\b|×|px\b|pixels))|"
                        r"\b(?:Rosenblatt|Minsky|Papert|Navy|Tobermory|Nagy|Cornell|"
                        r"Wightman)\b")

_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,}).*?^[ \t]*\1[ \t]*$", re.M | re.S)
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_CODE_SPAN = re.compile(r"`[^`\n]*`")
_PAGE_LINK = re.compile(r"!?\[[^\]]*\]\([^)]*\)")
_ITEM = re.compile(r"^\s*(?:[-*+]|\d+\.)\s+|^\s*\|")


def markdown_passages(text):
    """Paragraphs, list items and table rows of Markdown ``text``, without code."""
    text = _COMMENT.sub("", _FENCE.sub("", text))
    passages = []
    for block in re.split(r"\n[ \t]*\n", text):
        current = []
        for line in block.splitlines():
            if line.lstrip().startswith("#") or re.fullmatch(r"[\s|:-]*", line):
                continue
            if _ITEM.match(line) and current:
                passages.append(" ".join(current))
                current = []
            current.append(line.strip())
        if current:
            passages.append(" ".join(current))
    return passages


def string_passages(path):
    """The text a Python module shows: every string literal of ``path`` but docstrings,
    split at HTML paragraphs (an f-string's literal parts are one passage)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef))
                  and node.body and isinstance(node.body[0], ast.Expr)}
    texts = []
    for node in ast.walk(tree):
        if id(node) in docstrings:
            continue
        if isinstance(node, ast.JoinedStr):
            texts.append("".join(v.value for v in node.values
                                 if isinstance(v, ast.Constant)))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            texts.append(node.value)
    texts = [re.sub(r"<(h1|title)>.*?</\1>", "", t, flags=re.S) for t in texts]
    return [p for t in texts for p in re.split(r"</?p>", t) if p.strip()]


def demo_passages():
    """The text of the ``markone demo`` page."""
    return string_passages(DEMO)


def notebook_passages(path):
    """The passages of a notebook's Markdown cells."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return [p for c in cells if c["cell_type"] == "markdown"
            for p in markdown_passages("".join(c["source"]))]


def uncited_historical(passages):
    out = []
    for passage in passages:
        visible = _PAGE_LINK.sub("", _CODE_SPAN.sub("", passage))
        if HISTORICAL.search(visible) and not cited_keys(passage):
            out.append(passage)
    return out


# --- the rule's own machinery ---------------------------------------------------


def test_passages_split_paragraphs_items_and_rows_and_skip_code():
    text = ("# Title 1960\n\nIn 1960 it ran [Navy1960].\nSecond line.\n\n- one 1958\n"
            "- two\n\n| a | b |\n|---|---|\n| 1969 | x |\n\n```python\n>>> 1958\n```\n")
    assert markdown_passages(text) == ["In 1960 it ran [Navy1960]. Second line.",
                                       "- one 1958", "- two", "| a | b |", "| 1969 | x |"]
    assert uncited_historical(markdown_passages(text)) == ["- one 1958", "| 1969 | x |"]


def test_a_screen_size_is_not_a_year():
    assert uncited_historical(["On a full-HD screen (1920 x 1080), at 1920 px."]) == []
    assert uncited_historical(["In 1920 it rained; 1960 × was never."]) == [
        "In 1920 it rained; 1960 × was never."]


def test_a_link_to_a_page_or_code_does_not_make_a_passage_historical():
    assert uncited_historical(["See [Rosenblatt, Minsky and Papert](history-context.md).",
                               "Run `markone machine navy`."]) == []
    assert uncited_historical(["Minsky and Papert's example."]) == [
        "Minsky and Papert's example."]


def test_demo_passages_find_the_page_text():
    passages = demo_passages()
    assert any("photocells" in p for p in passages)
    assert not any(p.startswith("``markone demo``") for p in passages)  # docstring


# --- the bibliography and every citation ----------------------------------------


def test_every_source_has_a_well_formed_entry():
    for key, source in SOURCES.items():
        assert source.key == key and cited_keys(f"[{key}]") == [key]
        assert source.reference and source.supports and source.identifier


def test_every_entry_says_where_its_identifier_was_confirmed_or_what_was_searched():
    """Each DOI is well formed (10.NNNN/suffix); an identifier names where it was
    confirmed; "identifier not found" says what was searched (issue 43)."""
    problems = [p for source in SOURCES.values() for p in entry_problems(source)]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("identifier, searched, confirmed_at, problem", [
    ("doi:10.1103", "", "x", "not a well-formed DOI"),
    ("doi:RevModPhys.34.123", "", "x", "not a well-formed DOI"),
    ("doi:10.12/x", "", "x", "not a well-formed DOI"),
    ("doi:10.1103/RevModPhys.34.123", "", "", "where it was confirmed"),
    (NOT_FOUND, "", "", "what was searched"),
])
def test_entry_problems_names_each_broken_rule(identifier, searched, confirmed_at, problem):
    source = Source("Block1962", "H. D. Block (1962)", identifier, "a proof",
                    searched=searched, confirmed_at=confirmed_at)
    assert len(entry_problems(source)) == 1 and problem in entry_problems(source)[0]


def test_the_issue_43_identifiers_are_in_the_bibliography():
    """The identifiers issue 43 listed and we confirmed (each entry says where)."""
    wanted = {"Block1962": "doi:10.1103/RevModPhys.34.123",
              "Rosenblatt1960": "doi:10.1109/JRPROC.1960.287598",
              "Rosenblatt1962": "VG-1196-G-8", "Rosenblatt1957": "85-460-1",
              "Rosenblatt1958b": "VG-1196-G-1", "Novikoff1963": "Nonr 3438(00)"}
    for key, identifier in wanted.items():
        assert identifier in SOURCES[key].identifier, key


@pytest.mark.parametrize("path", ALL_MARKDOWN, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_cited_key_exists(path):
    unknown = [k for k in cited_keys(path.read_text(encoding="utf-8")) if k not in SOURCES]
    assert not unknown, f"{path.name} cites unknown source keys {unknown}"


def test_the_demo_cites_only_known_keys():
    unknown = [k for p in demo_passages() for k in cited_keys(p) if k not in SOURCES]
    assert not unknown, f"markone demo cites unknown source keys {unknown}"


@pytest.mark.parametrize("path", HISTORY_PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_historical_passage_of_the_pages_cites_a_source(path):
    missing = uncited_historical(markdown_passages(path.read_text(encoding="utf-8")))
    assert not missing, (f"{path.name}: historical passages without a source key "
                         f"(cite one, e.g. [Navy1960]):\n" + "\n".join(missing))


def test_every_historical_passage_of_the_demo_cites_a_source():
    missing = uncited_historical(demo_passages())
    assert not missing, ("markone demo: historical passages without a source key:\n"
                         + "\n".join(missing))


@pytest.mark.parametrize("path", PRINTING_MODULES,
                         ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_historical_string_markone_prints_cites_a_known_source(path):
    """Help texts, printed reports and figure labels: a sentence about the past names
    its source (a year or a name of the story in a string literal, as on the pages)."""
    passages = string_passages(path)
    missing = uncited_historical(passages)
    assert not missing, (f"{path.relative_to(ROOT)}: historical strings without a source "
                         "key (cite one, e.g. [Navy1960]):\n" + "\n".join(missing))
    unknown = [k for p in passages for k in cited_keys(p) if k not in SOURCES]
    assert not unknown, f"{path.relative_to(ROOT)} cites unknown source keys {unknown}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_historical_passage_of_the_notebooks_cites_a_known_source(path):
    passages = notebook_passages(path)
    assert passages, path
    missing = uncited_historical(passages)
    assert not missing, (f"{path.name}: historical passages without a source key:\n"
                         + "\n".join(missing))
    unknown = [k for p in passages for k in cited_keys(p) if k not in SOURCES]
    assert not unknown, f"{path.name} cites unknown source keys {unknown}"


def test_documented_and_disputed_parameters_name_a_known_source():
    for row in MarkIParams().describe():
        keys = cited_keys(row.note)
        assert all(k in SOURCES for k in keys), (row.name, keys)
        if row.provenance in ("documented", "disputed"):
            assert keys, f"{row.name} is {row.provenance} but its note cites no source"


def test_the_sources_page_shows_the_bibliography():
    page = (DOCS / "history-sources.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- sources:start -->\n(.*?)\n<!-- sources:end -->", page, re.S)
    assert block and block[1] == bibliography_markdown(), (
        "docs/history-sources.md is out of date: paste "
        "markone._internal.sources.bibliography_markdown() between its sources markers")


def test_link_citations_links_only_keys_of_citations():
    text = "[Bishop2006, §4.1.7; Nagy2011] and [R1] and [a page](Navy1960.md)"
    assert link_citations(text, lambda k: k.upper()) == (
        "[BISHOP2006, §4.1.7; NAGY2011] and [R1] and [a page](Navy1960.md)")


def test_the_demo_page_lists_the_sources_it_cites(tmp_path):
    from sims.cli.demo import _INTRO, _Report, _write_index

    rep = _Report(tmp_path, echo=lambda s: None)
    rep.section("History", ["Shown in June 1960 [Navy1960]."],
                ["Novikoff's bound [Novikoff1962, p. 615]."])
    _write_index(rep, {"seconds": 1.0})
    page = (tmp_path / "index.html").read_text(encoding="utf-8")
    sources = page.split("<h2>Sources</h2>")[1]
    listed = re.findall(r'<li id="(\w+)">', sources)
    assert listed == list(dict.fromkeys(cited_keys(_INTRO) + ["Navy1960", "Novikoff1962"]))
    assert "330-PSA-80-60" in sources and "<i>Psychological" not in sources
    assert '[<a href="#Navy1960">Navy1960</a>]' in page
    rep.section("Bad", ["A claim [Navy1961]."], [])
    with pytest.raises(ValueError, match="unknown source key 'Navy1961'"):
        _write_index(rep, {"seconds": 1.0})
