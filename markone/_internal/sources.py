"""The one bibliography of markone's historical statements, and how text cites it.

Every historical sentence that markone prints or documents (the ``markone demo`` page,
the history and teaching pages, the README, the provenance notes of
``markone machine params``) cites a source here **by key**, in square brackets:
``[Navy1960]``, ``[Bishop2006, §4.1.7; Nagy2011]``. A key is a name followed by a
year (or a catalogue number), so that a citation can be told from other bracketed
text. ``docs/history-sources.md`` shows this table (:func:`bibliography_markdown`), and
``tests/docs/test_sources.py`` fails on an unknown key or an uncited historical
passage.

Identifiers (DOIs, archive and catalogue numbers, ISBNs) are given only where we
could confirm them; otherwise the entry says ``identifier not found``.

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

__all__ = ["Source", "SOURCES", "KEY", "NOT_FOUND", "cited_keys", "check_keys", "link_citations",
           "bibliography_markdown"]

#: What an entry says when no identifier could be confirmed.
NOT_FOUND = "identifier not found"

#: The shape of a key: a capitalised name, then a year or a longer catalogue number.
KEY = re.compile(r"[A-Z][A-Za-z]*[0-9]{4,}[a-z]?")

# a bracketed group that is not a Markdown link text: [..](..) or [..][..]
_BRACKETS = re.compile(r"\[(?P<body>[^\[\]]+)\](?![(\[])")


@dataclass(frozen=True)
class Source:
    """One entry of the bibliography.

    ``reference`` is the full reference (Markdown: ``*italics*`` for titles);
    ``identifier`` a DOI, archive, catalogue or report number, ISBN, or
    :data:`NOT_FOUND`; ``supports`` what markone uses it for; ``caveat`` anything a
    reader must know about its reliability (empty if none).
    """

    key: str
    reference: str
    identifier: str
    supports: str
    caveat: str = ""


_ENTRIES = (
    Source("Bishop2006",
           "C. M. Bishop, *Pattern Recognition and Machine Learning*, Springer (2006), "
           "§1.1 and Fig. 1.6, §4.1.7 and Fig. 4.8",
           NOT_FOUND,
           "the Mark I's 20 x 20 photocell retina, the random plugboard, the "
           "motor-driven potentiometers; XOR as the classic non-separable example; "
           "a model fitted to fewer training examples over-fits more (§1.1, Fig. 1.6)",
           "a secondary source (a textbook)"),
    Source("Nagy2011",
           "G. Nagy (2011), on Rosenblatt's perceptron machines",
           NOT_FOUND,
           "the Mark I's 512 association units and 8 response units",
           "the full title as published is not confirmed"),
    Source("Navy1960",
           "US Navy press photograph and caption, \"Experimental machine able to "
           "identify letters of alphabet announced by Navy\", released 24 June 1960",
           "US National Archives 330-PSA-80-60 (USN 710739)",
           "training by forcing the correct response; letters of one typeface "
           "eventually identified without error, 85% once a second typeface was added",
           "the identifier is the one printed with the caption"),
    Source("CAL1960",
           "*Mark I Perceptron Operators' Manual* (Project PARA), Cornell Aeronautical "
           "Laboratory, February 1960; its abstract",
           NOT_FOUND,
           "the machine's purpose: sorting plane figures by position, shape, frequency "
           "of occurrence and size"),
    Source("HayWightman1960",
           "J. C. Hay and C. W. Wightman, \"Mark I Perceptron\", *Research Trends* "
           "(Cornell Aeronautical Laboratory) VIII(1), Spring 1960; based on their "
           "paper at the IRE National Convention, March 1960",
           NOT_FOUND,
           "the machine as its engineers described it in 1960"),
    Source("CBI1960",
           "Charles Babbage Institute, University of Minnesota: *Cornell Aeronautical "
           "Laboratory, Inc. MARK I Perceptron Press Conference Records, 1960*, "
           "finding aid",
           "CBI 48 (cbi00048)",
           "the press conference of June 1960"),
    Source("CHM102786931",
           "Computer History Museum, catalogue entry \"Tobermory Perceptron Analog Core "
           "Memory\"",
           "CHM catalog number 102786931",
           "Tobermory, the successor machine, stored weights in analog magnetic cores "
           "from which about a hundred different states could be read"),
    Source("NMAH334414",
           "Smithsonian National Museum of American History, collection object "
           "\"Perceptron, Mark I\"",
           "NMAH object nmah_334414",
           "the Mark I is in the museum's collection",
           "known to us through the encyclopaedia's citation of it [Wikipedia2026]; "
           "the museum's page itself was not read"),
    Source("Wikipedia2026",
           "Wikipedia, article \"Perceptron\", section on the Mark I Perceptron "
           "machine (read in 2026)",
           NOT_FOUND,
           "an S-unit could connect to up to 40 A-units",
           "an encyclopaedia, not a primary source: low confidence; the revision read "
           "was not recorded"),
    Source("Rosenblatt1958",
           "F. Rosenblatt, \"The perceptron: a probabilistic model for information "
           "storage and organization in the brain\", *Psychological Review* 65(6), "
           "386–408 (1958)",
           "doi:10.1037/h0042519",
           "the S-A-R model, the all-or-none A-unit, the alpha and gamma reinforcement "
           "systems, error correction"),
    Source("Rosenblatt1962",
           "F. Rosenblatt, *Principles of Neurodynamics: Perceptrons and the Theory of "
           "Brain Mechanisms*, Spartan Books, Washington DC (1962)",
           NOT_FOUND,
           "S-controlled (forced) and R-controlled (error-driven) reinforcement; the "
           "convergence theorem; experiments on the Mark I and on IBM 704 simulations"),
    Source("MinskyPapert1969",
           "M. Minsky and S. Papert, *Perceptrons: An Introduction to Computational "
           "Geometry*, MIT Press (1969)",
           "ISBN 0-262-13043-2",
           "the order of a predicate; parity needs order |R|; connectedness is not of "
           "bounded order; the group-invariance theorem; the cycling theorem"),
    Source("MinskyPapert1988",
           "M. Minsky and S. Papert, *Perceptrons*, expanded edition, MIT Press (1988)",
           "ISBN 978-0-262-63111-2",
           "the prologue and epilogue answering the multilayer work of the 1980s"),
    Source("Block1962",
           "H. D. Block, \"The perceptron: a model for brain functioning. I\", "
           "*Reviews of Modern Physics* 34(1), 123–135 (1962)",
           NOT_FOUND,
           "a convergence proof for the error-correction procedure"),
    Source("Gordan1873",
           "P. Gordan, \"Ueber die Auflösung linearer Gleichungen mit reellen "
           "Coefficienten\", *Mathematische Annalen* 6, 23–28 (1873)",
           NOT_FOUND,
           "the theorem of the alternative behind markone's certificates: a line "
           "separates the classes, or a convex combination of the signed rows is zero"),
    Source("Novikoff1962",
           "A. B. J. Novikoff, \"On convergence proofs on perceptrons\", *Proceedings "
           "of the Symposium on the Mathematical Theory of Automata* 12, 615–622 "
           "(1962); also a Stanford Research Institute technical report for the Office "
           "of Naval Research",
           "ONR contract Nonr 3438(00), SRI project 3605 (the technical report)",
           "the mistake bound (R/γ)²"),
    Source("BlockLevin1970",
           "H. D. Block and S. A. Levin, \"On the boundedness of an iterative "
           "procedure for solving a system of linear inequalities\", *Proceedings of "
           "the AMS* 26(2), 229–235 (1970)",
           NOT_FOUND,
           "the perceptron cycling theorem in general"),
    Source("NYT1958",
           "*New York Times*, \"New Navy device learns by doing\", 8 July 1958",
           NOT_FOUND,
           "the press coverage of the 1958 IBM 704 demonstration"),
    Source("CornellChronicle2019",
           "*Cornell Chronicle*, \"Professor's perceptron paved the way for AI – 60 "
           "years too soon\" (September 2019)",
           NOT_FOUND,
           "Rosenblatt's career at CAL and Cornell, and his death in 1971"),
    Source("Olazaran1996",
           "M. Olazaran, \"A sociological study of the official history of the "
           "perceptrons controversy\", *Social Studies of Science* 26(3), 611–659 "
           "(1996)",
           NOT_FOUND,
           "how the story of the perceptron controversy was formed"),
    Source("Rumelhart1986",
           "D. E. Rumelhart, G. E. Hinton and R. J. Williams, \"Learning "
           "representations by back-propagating errors\", *Nature* 323, 533–536 (1986)",
           "doi:10.1038/323533a0",
           "backpropagation made widely known"),
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
        caveat = f" Caveat: {s.caveat}." if s.caveat else ""
        lines.append(f'- <a id="{s.key}"></a>**[{s.key}]** {s.reference}. {ident}. '
                     f"Used for: {s.supports}.{caveat}")
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
