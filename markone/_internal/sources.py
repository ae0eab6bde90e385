"""The one bibliography of markone's historical statements, and how text cites it.

Every historical sentence that markone prints or documents (the ``markone demo`` page,
the history and teaching pages, the README, the provenance notes of
``markone machine params``) cites a source here **by key**, in square brackets:
``[Navy1960]``, ``[Bishop2006, §4.1.7; Nagy2011]``. A key is a name followed by a
year (or a catalogue number), so that a citation can be told from other bracketed
text. ``docs/history-sources.md`` shows this table (:func:`bibliography_markdown`), and
``tests/docs/test_sources.py`` fails on an unknown key or an uncited historical
passage.

Identifiers (DOIs, archive, catalogue and report numbers, ISBNs, addresses) are given
only where we could confirm them, and each entry says where (``confirmed_at``);
otherwise the entry says ``identifier not found`` and what was searched
(``searched``). :func:`entry_problems` names an entry that breaks these rules.

>>> cited_keys("shown in June 1960 [Navy1960; Bishop2006, §4.1.7], see [the page](x.md)")
['Navy1960', 'Bishop2006']
>>> SOURCES["Navy1960"].identifier
'US National Archives 330-PSA-80-60 (USN 710739)'
>>> check_keys(["Navy1961"])
Traceback (most recent call last):
...
ValueError: unknown source key 'Navy1961': every citation must name a key of markone._internal.sources.SOURCES (docs/history-sources.md); add the source there or fix the key.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

__all__ = ["Source", "SOURCES", "KEY", "NOT_FOUND", "DOI", "cited_keys", "check_keys",
           "link_citations", "bibliography_markdown", "entry_problems"]

#: What an entry says when no identifier could be confirmed.
NOT_FOUND = "identifier not found"

#: A well-formed DOI (written ``doi:10.NNNN/suffix`` in an identifier): the directory
#: indicator 10, a registrant code of 4 to 9 digits, a slash and a suffix.
DOI = re.compile(r"10\.\d{4,9}/[-._;()/:A-Za-z0-9]+")

#: The shape of a key: a capitalised name, then a year or a longer catalogue number.
KEY = re.compile(r"[A-Z][A-Za-z]*[0-9]{4,}[a-z]?")

# a bracketed group that is not a Markdown link text: [..](..) or [..][..]
_BRACKETS = re.compile(r"\[(?P<body>[^\[\]]+)\](?![(\[])")


@dataclass(frozen=True)
class Source:
    """One entry of the bibliography.

    ``reference`` is the full reference (Markdown: ``*italics*`` for titles);
    ``identifier`` a DOI (``doi:10.NNNN/...``), archive, catalogue or report number,
    ISBN or address, or :data:`NOT_FOUND`; ``supports`` what markone uses it for;
    ``caveat`` anything a reader must know about its reliability (empty if none).
    ``confirmed_at`` says where the identifier (or, without one, the reference) was
    confirmed: a page read, a catalogue, or the public bibliographies that give it;
    ``searched`` says what was searched, and where, when no identifier was found.
    """

    key: str
    reference: str
    identifier: str
    supports: str
    caveat: str = ""
    confirmed_at: str = ""
    searched: str = ""


#: Where most identifiers were confirmed: other people's reference lists, found by
#: markone's search tools (an exact-string search of public GitHub files).
_BIBLIOGRAPHIES = "public bibliographies found by an exact-string search of GitHub files"
_NOT_REACHED = "the publisher's page was not reachable from here"

_ENTRIES = (
    Source("Bishop2006",
           "C. M. Bishop, *Pattern Recognition and Machine Learning*, Springer (2006), "
           "§1.1 and Fig. 1.6, §4.1.7 and Fig. 4.8",
           "ISBN 978-0-387-31073-2",
           "the Mark I's 20 x 20 photocell retina, the random plugboard, the "
           "motor-driven potentiometers; XOR as the classic non-separable example; "
           "a model fitted to fewer training examples over-fits more (§1.1, Fig. 1.6)",
           "a secondary source (a textbook)",
           confirmed_at=f"at least ten {_BIBLIOGRAPHIES} give this ISBN; {_NOT_REACHED}"),
    Source("Nagy2011",
           "G. Nagy (2011), on Rosenblatt's perceptron machines",
           NOT_FOUND,
           "the Mark I's 512 association units and 8 response units",
           "the full title as published is not confirmed",
           searched="stored web pages for George Nagy's 2011 text on Rosenblatt's "
                    "machines (Mark I, Tobermory), and GitHub files for its citation: "
                    "neither gave its title or an identifier"),
    Source("Navy1960",
           "US Navy press photograph and caption, \"Experimental machine able to "
           "identify letters of alphabet announced by Navy\", released 24 June 1960",
           "US National Archives 330-PSA-80-60 (USN 710739)",
           "training by forcing the correct response; letters of one typeface "
           "eventually identified without error, 85% once a second typeface was added",
           "the identifier is the one printed with the caption",
           confirmed_at="Wikimedia Commons, File:330-PSA-80-60 (USN 710739) "
                        "(20897323365).jpg, credited to the National Museum of the "
                        "U.S. Navy, as linked by several public pages"),
    Source("CAL1960",
           "*Mark I Perceptron Operators' Manual* (Project PARA), Cornell Aeronautical "
           "Laboratory, February 1960; its abstract",
           "DTIC AD0236965",
           "the machine's purpose: sorting plane figures by position, shape, frequency "
           "of occurrence and size",
           "the DTIC copy itself was not read here; one public citation adds J. C. Hay "
           "and A. E. Murray as authors and the report number VG-1196-G-5, which no "
           "second source confirmed, and another wrongly gives it VG-1196-G-1 (the "
           "number of [Rosenblatt1958b])",
           confirmed_at="public course slides, a simulator and a citation tool, found "
                        "by an exact-string search of GitHub files, all link this "
                        "manual as apps.dtic.mil/sti/tr/pdf/AD0236965.pdf"),
    Source("HayWightman1960",
           "J. C. Hay and C. W. Wightman, \"Mark I Perceptron\", *Research Trends* "
           "(Cornell Aeronautical Laboratory) VIII(1), Spring 1960; based on their "
           "paper at the IRE National Convention, March 1960",
           NOT_FOUND,
           "the machine as its engineers described it in 1960",
           confirmed_at="the article's first page, read in a scan archived on "
                        "archive.org: authors, issue and its footnote on the IRE "
                        "National Convention paper are as given here",
           searched="the archive.org item's identifier (the search tool gave the scan "
                    "but not its address); the IRE Convention paper's title, pages and "
                    "a third author (Martin) in stored web pages and GitHub files, not "
                    "found, so that paper is not listed on its own"),
    Source("CBI1960",
           "Charles Babbage Institute, University of Minnesota: *Cornell Aeronautical "
           "Laboratory, Inc. MARK I Perceptron Press Conference Records, 1960*, "
           "finding aid",
           "CBI 48 (cbi00048)",
           "the press conference of June 1960",
           confirmed_at="the finding aid, read at "
                        "special.lib.umn.edu/findaid/xml/cbi00048.xml"),
    Source("CHM102786931",
           "Computer History Museum, catalogue entry \"Tobermory Perceptron Analog Core "
           "Memory\"",
           "CHM catalog number 102786931",
           "Tobermory, the successor machine, stored weights in analog magnetic cores "
           "from which about a hundred different states could be read",
           confirmed_at="the catalogue entry, read at "
                        "computerhistory.org/collections/catalog/102786931"),
    Source("NMAH334414",
           "Smithsonian National Museum of American History, collection object "
           "\"Perceptron, Mark I\"",
           "NMAH object nmah_334414",
           "the Mark I is in the museum's collection",
           "known to us through the encyclopaedia's citation of it [Wikipedia2026]; "
           "the museum's page itself was not read",
           confirmed_at="the encyclopaedia's reference to "
                        "americanhistory.si.edu/collections/search/object/nmah_334414"),
    Source("Wikipedia2026",
           "Wikipedia, article \"Perceptron\", section on the Mark I Perceptron "
           "machine (read in 2026)",
           "en.wikipedia.org/wiki/Perceptron",
           "an S-unit could connect to up to 40 A-units",
           "an encyclopaedia, not a primary source: low confidence; the revision read "
           "was not recorded",
           confirmed_at="the article, read in stored copies of the page"),
    Source("Rosenblatt1957",
           "F. Rosenblatt, *The Perceptron: a perceiving and recognizing automaton "
           "(Project PARA)*, Cornell Aeronautical Laboratory, Buffalo, January 1957",
           "CAL report 85-460-1",
           "the perceptron first proposed, as a CAL internal research programme",
           "the scan's text recognition reads the number as \"05-160-1\"; 85-460-1 is "
           "how the report is cited",
           confirmed_at="a scan of the report's title page and preface at "
                        "scribd.com/document/472726127/rosenblatt-1957-pdf, and "
                        f"{_BIBLIOGRAPHIES} (\"Report no. 85-460-1, 1957\")"),
    Source("Rosenblatt1958",
           "F. Rosenblatt, \"The perceptron: a probabilistic model for information "
           "storage and organization in the brain\", *Psychological Review* 65(6), "
           "386–408 (1958)",
           "doi:10.1037/h0042519",
           "the S-A-R model, the all-or-none A-unit, the alpha and gamma reinforcement "
           "systems, error correction",
           confirmed_at=f"{_BIBLIOGRAPHIES}; {_NOT_REACHED}"),
    Source("Rosenblatt1958b",
           "F. Rosenblatt, *The Perceptron: a theory of statistical separability in "
           "cognitive systems*, Cornell Aeronautical Laboratory, Buffalo, January 1958",
           "CAL report VG-1196-G-1",
           "the theory behind [Rosenblatt1958], as a report",
           confirmed_at="Rosenblatt's own reference lists, read in public "
                        "transcriptions: reference 15 of [Rosenblatt1958], and "
                        "reference 3 of \"The Design of an Intelligent Automaton\", "
                        "*Research Trends* VI(2), Summer 1958, which dates it January "
                        "1958"),
    Source("Rosenblatt1960",
           "F. Rosenblatt, \"Perceptron simulation experiments\", *Proceedings of the "
           "IRE* 48(3), 301–309 (March 1960)",
           "doi:10.1109/JRPROC.1960.287598",
           "the IBM 704 simulation programme at CAL since 1957, its experiments on "
           "\"forced\" and \"spontaneous\" learning (its abstract)",
           "the paper itself was not read: the simulation figures an encyclopaedia "
           "attributes to Rosenblatt's experiments [WikipediaMarkI2026] (99.8% square "
           "against circle, 100% square against diamond after 60 images, over 80% E "
           "against F) are not confirmed here, and markone reproduces them marked "
           "secondary, unconfirmed",
           confirmed_at=f"four {_BIBLIOGRAPHIES} give this DOI with this title, volume, "
                        "issue and pages, one with IEEE Xplore document 4066017 and the "
                        f"paper's abstract; {_NOT_REACHED}",
           searched="the paper's text, for the three figures: stored web pages (by the "
                    "figures, the shapes and the paper's title) and GitHub files (exact "
                    "strings \"Perceptron simulation experiments\", \"500 A-units\", "
                    "\"square and diamond\", \"99.8%\") gave its abstract and "
                    "citations, never its text or a scan"),
    Source("WikipediaMarkI2026",
           "Wikipedia, article \"Mark I Perceptron\", section \"Capabilities\" (read "
           "in 2026)",
           "en.wikipedia.org/wiki/Mark_I_Perceptron",
           "the figures attributed to Rosenblatt's experiments: square against circle "
           "(perfect figures of fixed size, varied in position and rotation) 99.8% on "
           "a test set with 500 A-units (\"neurons in a single layer\") after 10,000 "
           "training images; square against diamond 100% after 60 training images "
           "with 1,000; E against F over 80% after 60 images with the same 1,000",
           "an encyclopaedia, a secondary source: it credits these figures to the Mark I "
           "and cites Rosenblatt's papers for them, which were not read here "
           "[Rosenblatt1960]; the revision read was not recorded",
           confirmed_at="the article, read in stored copies of the page "
                        "(wikimili.com/en/Mark_I_Perceptron and two other mirrors), which "
                        "agree on these figures"),
    Source("Rosenblatt1962",
           "F. Rosenblatt, *Principles of Neurodynamics: Perceptrons and the Theory of "
           "Brain Mechanisms*, Spartan Books, Washington DC (1962); first issued as a "
           "Cornell Aeronautical Laboratory report, Buffalo (1961)",
           "CAL report VG-1196-G-8 (1961); no identifier found for the 1962 book",
           "S-controlled (forced) and R-controlled (error-driven) reinforcement; the "
           "convergence theorem; experiments on the Mark I and on IBM 704 simulations",
           "the report's title page was not read; one bibliography dates it 18 March "
           "1961",
           confirmed_at=f"{_BIBLIOGRAPHIES} (\"Principles of neurodynamics ... No. "
                        "VG-1196-G-8. Cornell Aeronautical Lab Inc, Buffalo NY, 1961\")",
           searched="ISBN or catalogue number of the Spartan edition, in stored web "
                    "pages and GitHub files: not found"),
    Source("MinskyPapert1969",
           "M. Minsky and S. Papert, *Perceptrons: An Introduction to Computational "
           "Geometry*, MIT Press (1969)",
           "ISBN 0-262-13043-2",
           "the order of a predicate; parity needs order |R|; connectedness is not of "
           "bounded order; the group-invariance theorem; the cycling theorem",
           confirmed_at=f"one of the {_BIBLIOGRAPHIES} (first edition); "
                        f"{_NOT_REACHED}"),
    Source("MinskyPapert1988",
           "M. Minsky and S. Papert, *Perceptrons*, expanded edition, MIT Press (1988)",
           "ISBN 978-0-262-63111-2",
           "the prologue and epilogue answering the multilayer work of the 1980s",
           confirmed_at=f"one of the {_BIBLIOGRAPHIES} (expanded edition); "
                        f"{_NOT_REACHED}"),
    Source("Block1962",
           "H. D. Block, \"The perceptron: a model for brain functioning. I\", "
           "*Reviews of Modern Physics* 34(1), 123–135 (1962)",
           "doi:10.1103/RevModPhys.34.123",
           "a convergence proof for the error-correction procedure",
           confirmed_at=f"five {_BIBLIOGRAPHIES} give this DOI with this title, volume "
                        f"and pages; {_NOT_REACHED}"),
    Source("Gordan1873",
           "P. Gordan, \"Ueber die Auflösung linearer Gleichungen mit reellen "
           "Coefficienten\", *Mathematische Annalen* 6, 23–28 (1873)",
           NOT_FOUND,
           "the theorem of the alternative behind markone's certificates: a line "
           "separates the classes, or a convex combination of the signed rows is zero",
           searched="a Springer DOI for this article (the candidate "
                    "10.1007/BF01442864) by an exact-string search of GitHub files: "
                    "no source gives it, so it is not used"),
    Source("Novikoff1962",
           "A. B. J. Novikoff, \"On convergence proofs on perceptrons\", *Proceedings "
           "of the Symposium on the Mathematical Theory of Automata* 12, 615–622, "
           "Polytechnic Institute of Brooklyn (1962)",
           NOT_FOUND,
           "the mistake bound (R/γ)²",
           "the same proof is the report [Novikoff1963]",
           searched="stored web pages for the proceedings: they name the symposium "
                    "(Polytechnic Institute of Brooklyn, 1962) but give no ISBN or "
                    "other identifier"),
    Source("Novikoff1963",
           "A. B. J. Novikoff, *On Convergence Proofs for Perceptrons*, technical "
           "report, Stanford Research Institute, prepared for the Office of Naval "
           "Research, January 1963",
           "ONR contract Nonr 3438(00), SRI project 3605",
           "the proof of [Novikoff1962] as a report: the error-correction procedure "
           "of Rosenblatt's alpha-perceptron converges in finitely many steps",
           "read in a third-party copy of an ASTIA reproduction; its ASTIA (AD) "
           "number was not legible there",
           confirmed_at="the report's title pages and abstract, read at "
                        "fdocuments.us/document/reproduced-if-ike.html"),
    Source("BlockLevin1970",
           "H. D. Block and S. A. Levin, \"On the boundedness of an iterative "
           "procedure for solving a system of linear inequalities\", *Proceedings of "
           "the AMS* 26(2), 229–235 (1970)",
           NOT_FOUND,
           "the perceptron cycling theorem in general",
           searched="a Proceedings of the AMS DOI (10.1090/S0002-9939-1970-...) for "
                    "this paper, by an exact-string search of GitHub files: none gives "
                    "it"),
    Source("NYT1958",
           "*New York Times*, \"New Navy device learns by doing\", 8 July 1958",
           "nytimes.com/1958/07/08/archives/new-navy-device-learns-by-doing-"
           "psychologist-shows-embryo-of.html",
           "the press coverage of the 1958 IBM 704 demonstration",
           "the archived article itself was not read (it may need a subscription)",
           confirmed_at="the archive address given by at least ten public pages found by an "
                        "exact-string search of GitHub files"),
    Source("CornellChronicle2019",
           "*Cornell Chronicle*, \"Professor's perceptron paved the way for AI – 60 "
           "years too soon\" (September 2019)",
           "news.cornell.edu/stories/2019/09/professors-perceptron-paved-way-ai-60-"
           "years-too-soon",
           "Rosenblatt's career at CAL and Cornell, and his death in 1971; the 1958 "
           "IBM 704 demonstration, in which the computer taught itself after 50 trials "
           "to tell cards marked on the left from cards marked on the right",
           "a secondary source (a university's news story, 2019); the 50 trials is its "
           "own sentence, read in a stored copy of the story",
           confirmed_at="the address as linked by a public page; the article read in "
                        "its copy at as.cornell.edu/news/professors-perceptron-paved-"
                        "way-ai-60-years-too-soon"),
    Source("Olazaran1996",
           "M. Olazaran, \"A sociological study of the official history of the "
           "perceptrons controversy\", *Social Studies of Science* 26(3), 611–659 "
           "(1996)",
           "doi:10.1177/030631296026003005",
           "how the story of the perceptron controversy was formed",
           confirmed_at=f"at least ten {_BIBLIOGRAPHIES}, several linking "
                        "journals.sagepub.com/doi/10.1177/030631296026003005"),
    Source("Rumelhart1986",
           "D. E. Rumelhart, G. E. Hinton and R. J. Williams, \"Learning "
           "representations by back-propagating errors\", *Nature* 323, 533–536 (1986)",
           "doi:10.1038/323533a0",
           "backpropagation made widely known",
           confirmed_at=f"{_BIBLIOGRAPHIES}; {_NOT_REACHED}"),
)

#: The bibliography, by key.
SOURCES: dict[str, Source] = {s.key: s for s in _ENTRIES}


def cited_keys(text: str) -> list[str]:
    """The source keys cited in ``text``, in order, repeats included.

    A citation is a bracketed group whose ``;``-separated items each start with a
    key (``[Bishop2006, §4.1.7; Nagy2011]``); Markdown links are not citations.
    Unknown keys are returned too: :func:`check_keys` rejects them.

    >>> cited_keys("[Rosenblatt1962] and [a link](x.md) and [R1] and [CAL1960, abstract]")
    ['Rosenblatt1962', 'CAL1960']
    """
    keys = []
    for match in _BRACKETS.finditer(text):
        items = [item.strip() for item in match["body"].split(";")]
        heads = [re.split(r"[,\s]", item, maxsplit=1)[0] for item in items]
        if all(KEY.fullmatch(head) for head in heads):
            keys += heads
    return keys


def check_keys(keys: Iterable[str]) -> None:
    """Raise ``ValueError`` naming the first key that is not in :data:`SOURCES`.

    >>> check_keys(["Bishop2006", "Navy1960"])
    """
    for key in keys:
        if key not in SOURCES:
            raise ValueError(
                f"unknown source key {key!r}: every citation must name a key of "
                "markone._internal.sources.SOURCES (docs/history-sources.md); add the source "
                "there or fix the key."
            )


def entry_problems(source: Source) -> list[str]:
    """What is wrong with one entry: a malformed DOI, an identifier without the place
    it was confirmed, or ``identifier not found`` without what was searched.

    >>> entry_problems(SOURCES["Block1962"])
    []
    >>> entry_problems(Source("Block1962", "H. D. Block (1962)", "doi:10.1103", "a proof"))
    ["Block1962: 'doi:10.1103' is not a well-formed DOI (10.NNNN/suffix); fix it or remove it.", 'Block1962: its identifier does not say where it was confirmed (confirmed_at).']
    """
    problems = [f"{source.key}: 'doi:{doi}' is not a well-formed DOI (10.NNNN/suffix); "
                "fix it or remove it."
                for doi in re.findall(r"doi:(\S*)", source.identifier, flags=re.I)
                if not DOI.fullmatch(doi)]
    if source.identifier == NOT_FOUND and not source.searched:
        problems.append(f"{source.key}: {NOT_FOUND} but no note of what was searched "
                        "(searched).")
    if source.identifier != NOT_FOUND and not source.confirmed_at:
        problems.append(f"{source.key}: its identifier does not say where it was "
                        "confirmed (confirmed_at).")
    return problems


def bibliography_markdown() -> str:
    """The bibliography as the Markdown list of ``docs/history-sources.md``.

    >>> first = bibliography_markdown().splitlines()[0]
    >>> print(first.split(", Springer")[0])
    - <a id="Bishop2006"></a>**[Bishop2006]** C. M. Bishop, *Pattern Recognition and Machine Learning*
    >>> first.endswith("Caveat: a secondary source (a textbook).")
    True
    """
    lines = []
    for s in _ENTRIES:
        ident = "Identifier not found" if s.identifier == NOT_FOUND else s.identifier
        where = f" Confirmed at: {s.confirmed_at}." if s.confirmed_at else ""
        searched = f" Searched: {s.searched}." if s.searched else ""
        caveat = f" Caveat: {s.caveat}." if s.caveat else ""
        lines.append(f'- <a id="{s.key}"></a>**[{s.key}]** {s.reference}. {ident}.'
                     f"{where}{searched} Used for: {s.supports}.{caveat}")
    return "\n".join(lines)


def link_citations(text: str, link: Callable[[str], str]) -> str:
    """Replace every key of every citation in ``text`` by ``link(key)``.

    >>> link_citations("shown [Navy1960, caption] in [the demo](x)", lambda k: f"<{k}>")
    'shown [<Navy1960>, caption] in [the demo](x)'
    """
    def one(match: re.Match[str]) -> str:
        group = match[0]
        if not cited_keys(group):
            return group
        return re.sub(r"(?<!\w)" + KEY.pattern,
                      lambda k: link(k[0]) if k[0] in cited_keys(group) else k[0], group)

    return _BRACKETS.sub(one, text)
