"""Figures for the Mark I's retina: capital letters and filled plane shapes.

The letters come from two small bitmap typefaces drawn below as ASCII art (7 x 9
cells per glyph): ``"block"``, a bold sans with two-cell strokes, and ``"serif"``,
thin strokes with serifs. Each glyph is scaled up by whole pixels to fit the retina
and shifted by up to ``jitter`` pixels, as a figure placed by hand before a camera.
``markone.datasets`` re-exports :func:`letters` and :func:`shapes`.

Examples
--------
>>> images, labels = letters("AB", per_class=2, seed=0)
>>> images.shape, images.dtype, labels.tolist()
((4, 20, 20), dtype('uint8'), ['A', 'B', 'A', 'B'])
>>> print(render_ascii(glyph("T", "serif")))
#######
#..#..#
...#...
...#...
...#...
...#...
...#...
...#...
..###..
>>> images, labels = shapes(4, seed=0)
>>> images.shape, sorted(set(labels.tolist()))
((4, 20, 20), ['disc', 'square'])
"""

from __future__ import annotations

import numbers
import string

import numpy as np

from markone._internal.validation import as_generator, check_choice, check_int_at_least

__all__ = ["letters", "shapes", "glyph", "render_ascii", "TYPEFACES", "SHAPE_KINDS"]

TYPEFACES = ("block", "serif")
SHAPE_KINDS = ("disc", "square", "triangle", "diamond")
GLYPH_ROWS, GLYPH_COLS = 9, 7

_BLOCK = """
A       B       C       D       E       F       G
..###.. ######. .#####. #####.. ####### ####### .#####.
.##.##. ##...## ##...## ##..##. ##..... ##..... ##...##
##...## ##...## ##..... ##...## ##..... ##..... ##.....
##...## ##...## ##..... ##...## ##..... ##..... ##.....
##...## ######. ##..... ##...## ######. ######. ##.####
####### ##...## ##..... ##...## ##..... ##..... ##...##
####### ##...## ##..... ##...## ##..... ##..... ##...##
##...## ##...## ##...## ##..##. ##..... ##..... ##...##
##...## ######. .#####. #####.. ####### ##..... .#####.

H       I       J       K       L       M       N
##...## .#####. ....### ##...## ##..... ##...## ##...##
##...## ...##.. .....## ##..##. ##..... ###.### ###..##
##...## ...##.. .....## ##.##.. ##..... ####### ####.##
##...## ...##.. .....## ####... ##..... ##.#.## ##.####
####### ...##.. .....## ###.... ##..... ##.#.## ##..###
##...## ...##.. .....## ####... ##..... ##...## ##...##
##...## ...##.. ##...## ##.##.. ##..... ##...## ##...##
##...## ...##.. ##...## ##..##. ##..... ##...## ##...##
##...## .#####. .#####. ##...## ####### ##...## ##...##

O       P       Q       R       S       T       U
.#####. ######. .#####. ######. .#####. ####### ##...##
##...## ##...## ##...## ##...## ##...## ####### ##...##
##...## ##...## ##...## ##...## ##..... ...##.. ##...##
##...## ##...## ##...## ##...## .##.... ...##.. ##...##
##...## ######. ##...## ######. ..###.. ...##.. ##...##
##...## ##..... ##.#### ####... ....##. ...##.. ##...##
##...## ##..... ##..##. ##.##.. .....## ...##.. ##...##
##...## ##..... .###.## ##..##. ##...## ...##.. ##...##
.#####. ##..... .....## ##...## .#####. ...##.. .#####.

V       W       X       Y       Z
##...## ##...## ##...## ##...## #######
##...## ##...## ##...## ##...## .....##
##...## ##...## .##.##. .##.##. ....##.
##...## ##...## ..###.. ..###.. ...##..
##...## ##.#.## ...#... ...##.. ..##...
.##.##. ##.#.## ..###.. ...##.. .##....
.##.##. ####### .##.##. ...##.. ##.....
..###.. ###.### ##...## ...##.. ##.....
...#... ##...## ##...## ...##.. #######
"""

_SERIF = """
A       B       C       D       E       F       G
...#... ######. ..####. #####.. ####### ####### ..####.
..#.#.. .#....# .#....# .#...#. .#....# .#....# .#....#
..#.#.. .#....# #...... .#....# .#..... .#..... #......
.#...#. .#....# #...... .#....# .#..#.. .#..#.. #......
.#...#. .#####. #...... .#....# .####.. .####.. #...###
.#####. .#....# #...... .#....# .#..#.. .#..#.. #.....#
#.....# .#....# #...... .#....# .#..... .#..... #.....#
#.....# .#....# .#....# .#...#. .#....# .#..... .#....#
##...## ######. ..####. #####.. ####### ###.... ..####.

H       I       J       K       L       M       N
###.### ..###.. ...#### ###..## ###.... ##...## ##..###
.#...#. ...#... .....#. .#...#. .#..... .##.##. .##..#.
.#...#. ...#... .....#. .#..#.. .#..... .#.#.#. .#.#.#.
.#...#. ...#... .....#. .#.#... .#..... .#.#.#. .#.#.#.
.#####. ...#... .....#. .##.... .#..... .#...#. .#..##.
.#...#. ...#... .....#. .#.#... .#..... .#...#. .#..##.
.#...#. ...#... #....#. .#..#.. .#..... .#...#. .#...#.
.#...#. ...#... #....#. .#...#. .#....# .#...#. .#...#.
###.### ..###.. .####.. ###..## ####### ###.### ###..#.

O       P       Q       R       S       T       U
..###.. ######. ..###.. ######. .####.# ####### ###.###
.#...#. .#....# .#...#. .#....# #....## #..#..# .#...#.
#.....# .#....# #.....# .#....# #...... ...#... .#...#.
#.....# .#....# #.....# .#....# .#..... ...#... .#...#.
#.....# .#####. #.....# .#####. ..###.. ...#... .#...#.
#.....# .#..... #..#..# .#..#.. .....#. ...#... .#...#.
#.....# .#..... #...#.# .#...#. ......# ...#... .#...#.
.#...#. .#..... .#...#. .#....# ##....# ...#... .#...#.
..###.. ###.... ..###.# ###...# #.####. ..###.. ..###..

V       W       X       Y       Z
###.### ###.### ###.### ###.### #######
.#...#. .#...#. .#...#. .#...#. #....#.
.#...#. .#...#. ..#.#.. ..#.#.. ....#..
.#...#. .#.#.#. ..#.#.. ..#.#.. ...#...
..#.#.. .#.#.#. ...#... ...#... ...#...
..#.#.. .#.#.#. ..#.#.. ...#... ..#....
..#.#.. .#.#.#. ..#.#.. ...#... .#.....
...#... ..#.#.. .#...#. ...#... #.....#
...#... ..#.#.. ###.### ..###.. #######
"""


def _parse(table):
    """Glyph tables: groups of letters side by side, a header row naming them."""
    glyphs = {}
    for block in table.strip("\n").split("\n\n"):
        header, *rows = block.splitlines()
        names = header.split()
        for k, name in enumerate(names):
            cells = [row.split()[k] for row in rows]
            glyphs[name] = np.array([[c == "#" for c in r] for r in cells], dtype=np.uint8)
    return glyphs


_GLYPHS = {"block": _parse(_BLOCK), "serif": _parse(_SERIF)}


def glyph(char, typeface="block"):
    """The ``(9, 7)`` 0/1 bitmap of capital ``char`` in ``typeface``."""
    check_choice(typeface, "typeface", TYPEFACES)
    try:
        return _GLYPHS[typeface][char].copy()
    except KeyError:
        raise ValueError(
            f"char(={char!r}) has no glyph; the typefaces draw the capitals A-Z."
        ) from None


def render_ascii(image):
    """A 0/1 image as ``#``/``.`` text, one line per row."""
    return "\n".join("".join("#" if v else "." for v in row) for row in np.asarray(image))


def letters(chars=string.ascii_uppercase, per_class=10, seed=None, jitter=1,
            typeface="block", size=20):
    """Capital letters drawn on a ``size x size`` retina.

    Parameters
    ----------
    chars : str or sequence of str
        The letters (classes), capitals A-Z.
    per_class : int
        Figures per letter (and per typeface when several are given).
    seed : None, int or Generator
        Draws the position jitter.
    jitter : int
        Largest shift in pixels, each axis, uniform in ``-jitter..jitter``.
    typeface : {"block", "serif"} or sequence of them
        One typeface, or several (every letter is drawn in each).
    size : int
        Retina side in pixels; the glyph is scaled by ``(size - 2*jitter) // 9``.

    Returns
    -------
    images : ndarray (n, size, size) uint8 0/1
    labels : ndarray (n,) str
        Interleaved: every letter (in every typeface) once, then again, per_class times.

    Examples
    --------
    >>> images, labels = letters("IO", per_class=1, jitter=0, typeface=("block", "serif"))
    >>> labels.tolist(), [int(im.sum()) for im in images]   # 4 pixels per ink cell
    (['I', 'O', 'I', 'O'], [96, 152, 52, 80])
    >>> [int(glyph(c, f).sum()) for f in ("block", "serif") for c in "IO"]
    [24, 38, 13, 20]
    """
    chars = list(chars)
    if not chars:
        raise ValueError("chars is empty; give at least one letter, e.g. chars='ABC'.")
    for c in chars:
        glyph(c)
    twice = sorted({c for c in chars if chars.count(c) > 1})
    if twice:   # one class per letter: a repeat would be a second name for one class
        raise ValueError(f"chars='{''.join(chars)}' names {', '.join(map(repr, twice))} "
                         "more than once; give each letter once.")
    faces = [typeface] if isinstance(typeface, str) else list(typeface)
    for face in faces:
        check_choice(face, "typeface", TYPEFACES)
    check_int_at_least(per_class, "per_class", 1)
    check_int_at_least(jitter, "jitter", 0)
    check_int_at_least(size, "size", 1)
    scale = (size - 2 * jitter) // GLYPH_ROWS
    if scale < 1:
        raise ValueError(
            f"jitter={jitter} is too large for figures of size={size} pixels: a "
            f"letter of {GLYPH_ROWS} rows needs size >= {GLYPH_ROWS + 2 * jitter}; use "
            f"jitter <= {max((size - GLYPH_ROWS) // 2, 0)}."
        )
    rng = as_generator(seed)
    h, w = GLYPH_ROWS * scale, GLYPH_COLS * scale
    top, left = (size - h) // 2, (size - w) // 2
    images, labels = [], []
    for _ in range(per_class):
        for face in faces:
            for c in chars:
                big = np.kron(_GLYPHS[face][c], np.ones((scale, scale), dtype=np.uint8))
                dy, dx = rng.integers(-jitter, jitter + 1, size=2)
                img = np.zeros((size, size), dtype=np.uint8)
                img[top + dy:top + dy + h, left + dx:left + dx + w] = big
                images.append(img)
                labels.append(c)
    return np.stack(images), np.array(labels)


def shapes(n, *, kinds=("disc", "square"), size=20, diameter=None, rotate=True,
           seed=None):
    """Filled plane shapes at random positions, sizes and rotations.

    Parameters
    ----------
    n : int
        Number of figures; the kinds are balanced (they differ by at most one) and
        shuffled.
    kinds : sequence of {"disc", "square", "triangle", "diamond"}
        A diamond is a square of side ``diameter`` standing on a corner (turned by
        45 degrees; with ``rotate`` it is turned further, so it is a square at a
        random angle).
    size : int
        Retina side in pixels.
    diameter : (lo, hi), optional
        Range of the disc diameter / square side / triangle side in pixels, drawn
        uniformly; default ``(0.3 * size, 0.6 * size)``.
    rotate : bool
        Turn squares and triangles by a random angle.
    seed : None, int or Generator

    Returns
    -------
    images : ndarray (n, size, size) uint8 0/1
    labels : ndarray (n,) str, the kind of each figure

    Examples
    --------
    >>> images, labels = shapes(2, kinds=("square",), size=8, diameter=(4, 4),
    ...                         rotate=False, seed=1)
    >>> [int(im.sum()) for im in images]
    [16, 16]
    """
    check_int_at_least(n, "n", 1)
    check_int_at_least(size, "size", 1)
    kinds = [kinds] if isinstance(kinds, str) else list(kinds)
    if not kinds:
        raise ValueError("kinds is empty; give at least one of " + ", ".join(SHAPE_KINDS))
    for kind in kinds:
        check_choice(kind, "kinds", SHAPE_KINDS)
    lo, hi = (0.3 * size, 0.6 * size) if diameter is None else diameter
    if not (isinstance(lo, numbers.Real) and isinstance(hi, numbers.Real)
            and 1 <= lo <= hi <= size):
        raise ValueError(
            f"diameter(={diameter!r}) must be (lo, hi) pixels with 1 <= lo <= hi <= "
            f"size(={size})."
        )
    rng = as_generator(seed)
    labels = np.array([kinds[i % len(kinds)] for i in range(n)])[rng.permutation(n)]
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float64)
    images = np.zeros((n, size, size), dtype=np.uint8)
    for i, kind in enumerate(labels):
        d = rng.uniform(lo, hi)
        angle = rng.uniform(0, 2 * np.pi) if rotate and kind != "disc" else 0.0
        reach = _reach(kind, d, angle)
        cy, cx = (rng.uniform(reach - 0.5, size - 0.5 - reach) if reach * 2 < size
                  else (size - 1) / 2 for _ in range(2))
        images[i] = _inside(kind, yy - cy, xx - cx, d, angle)
    return images, labels


def _reach(kind, d, angle):
    """Half-extent of the shape's bounding box (the centre keeps it on the retina)."""
    if kind == "disc":
        return d / 2
    corners = _corners(kind, d, angle)
    return float(np.abs(corners).max())


def _corners(kind, d, angle):
    if kind == "square":
        base = np.array([[1, 1], [1, -1], [-1, -1], [-1, 1]]) * d / 2
    elif kind == "diamond":  # the square turned by 45 degrees: corners on the axes
        base = np.array([[1, 0], [0, -1], [-1, 0], [0, 1]]) * d / np.sqrt(2)
    else:  # equilateral triangle of side d around its centroid
        t = np.pi / 2 + np.arange(3) * 2 * np.pi / 3
        base = np.stack([np.sin(t), np.cos(t)], axis=1) * d / np.sqrt(3)
    c, s = np.cos(angle), np.sin(angle)
    return base @ np.array([[c, -s], [s, c]])


def _inside(kind, dy, dx, d, angle):
    """0/1 mask of pixel centres inside the shape centred at the origin."""
    if kind == "disc":
        return (dy ** 2 + dx ** 2 <= (d / 2) ** 2).astype(np.uint8)
    corners = _corners(kind, d, angle)
    inside = np.ones(dy.shape, dtype=bool)
    for k in range(len(corners)):  # convex polygon: inside every edge's half-plane
        (y0, x0), (y1, x1) = corners[k], corners[(k + 1) % len(corners)]
        cross = (y1 - y0) * (dx - x0) - (x1 - x0) * (dy - y0)
        centre = (y1 - y0) * (0 - x0) - (x1 - x0) * (0 - y0)
        inside &= cross * np.sign(centre) >= -1e-9
    return inside.astype(np.uint8)
