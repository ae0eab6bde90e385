"""Letters and shapes for the Mark I's retina (markone._figures)."""

import string

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from markone._figures import TYPEFACES, glyph, letters, shapes


@pytest.mark.parametrize("face", TYPEFACES)
def test_every_glyph_is_drawn_and_distinct(face):
    drawn = {c: glyph(c, face) for c in string.ascii_uppercase}
    assert all(g.shape == (9, 7) and g.any() for g in drawn.values())
    assert len({g.tobytes() for g in drawn.values()}) == 26


def test_typefaces_differ_for_every_letter():
    assert all(not np.array_equal(glyph(c, "block"), glyph(c, "serif"))
               for c in string.ascii_uppercase)


def test_unjittered_letter_is_the_glyph_scaled_and_centred():
    images, labels = letters("K", per_class=1, jitter=0, typeface="serif")
    expected = np.zeros((20, 20), dtype=np.uint8)
    expected[1:19, 3:17] = np.kron(glyph("K", "serif"), np.ones((2, 2), dtype=np.uint8))
    np.testing.assert_array_equal(images[0], expected)
    assert labels.tolist() == ["K"]


@given(seed=st.integers(0, 2**32 - 1), jitter=st.integers(0, 3),
       size=st.integers(15, 40), char=st.sampled_from(string.ascii_uppercase),
       face=st.sampled_from(TYPEFACES))
def test_jitter_only_shifts_the_letter_hypo(seed, jitter, size, char, face):
    """Each figure is the unjittered one shifted by at most ``jitter`` pixels, whole."""
    images, _ = letters(char, per_class=3, seed=seed, jitter=jitter, typeface=face,
                        size=size)
    scale = (size - 2 * jitter) // 9
    ink = int(glyph(char, face).sum()) * scale * scale
    big = np.kron(glyph(char, face), np.ones((scale, scale), dtype=np.uint8))
    base = np.zeros((size, size), dtype=np.uint8)
    top, left = (size - big.shape[0]) // 2, (size - big.shape[1]) // 2
    base[top:top + big.shape[0], left:left + big.shape[1]] = big
    assert images.shape == (3, size, size) and images.dtype == np.uint8
    for img in images:
        assert int(img.sum()) == ink   # nothing clipped at the border
        shifts = [(dy, dx) for dy in range(-2 * jitter - 1, 2 * jitter + 2)
                  for dx in range(-2 * jitter - 1, 2 * jitter + 2)
                  if np.array_equal(np.roll(base, (dy, dx), axis=(0, 1)), img)]
        assert any(max(abs(dy), abs(dx)) <= jitter for dy, dx in shifts)


def test_letters_order_seed_and_two_typefaces():
    images, labels = letters("AB", per_class=2, seed=3, typeface=("block", "serif"))
    assert labels.tolist() == ["A", "B", "A", "B"] * 2
    again, _ = letters("AB", per_class=2, seed=3, typeface=("block", "serif"))
    np.testing.assert_array_equal(images, again)


@pytest.mark.parametrize("kwargs, match", [
    (dict(chars="a"), r"char\(='a'\) has no glyph; the typefaces draw the capitals A-Z"),
    (dict(chars=""), "chars is empty"),
    (dict(typeface="gothic"), r"typeface\(='gothic'\) must be one of 'block', 'serif'"),
    (dict(size=10, jitter=1), r"jitter=1 is too large for figures of size=10 pixels: a letter of 9 rows needs "
     r"size >= 11; use jitter <= 0"),
    (dict(per_class=0), r"per_class\(=0\) must be >= 1"),
    (dict(jitter=-1), r"jitter\(=-1\) must be >= 0"),
])
def test_letters_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        letters(**{"chars": "AB", **kwargs})


@given(seed=st.integers(0, 2**32 - 1), size=st.integers(12, 32), n=st.integers(1, 9),
       kinds=st.sampled_from([("disc", "square"), ("disc", "square", "triangle"),
                              ("triangle",)]))
def test_shapes_fit_and_balance_hypo(seed, size, n, kinds):
    images, labels = shapes(n, kinds=kinds, size=size, seed=seed)
    assert images.shape == (n, size, size) and set(images.ravel()) <= {0, 1}
    counts = [int((labels == k).sum()) for k in kinds]
    assert max(counts) - min(counts) <= 1 and sum(counts) == n
    assert all(img.any() for img in images)


@given(seed=st.integers(0, 2**32 - 1), d=st.integers(6, 12))
def test_shape_areas_match_geometry_hypo(seed, d):
    """Pixel counts approach the exact areas: d^2 for squares, pi d^2 / 4 for discs,
    sqrt(3)/4 d^2 for triangles (within a border's worth of pixels)."""
    for kind, area in (("square", d * d), ("disc", np.pi * d * d / 4),
                       ("triangle", np.sqrt(3) / 4 * d * d)):
        images, _ = shapes(3, kinds=(kind,), size=24, diameter=(d, d), seed=seed)
        for img in images:
            assert abs(int(img.sum()) - area) <= 4 * d


def test_shapes_bad_input():
    with pytest.raises(ValueError, match=r"kinds\(='star'\) must be one of"):
        shapes(2, kinds=("star",))
    with pytest.raises(ValueError, match=r"diameter\(=\(5, 30\)\) must be \(lo, hi\) pixels "
                                         r"with 1 <= lo <= hi <= size\(=20\)"):
        shapes(2, diameter=(5, 30))
    with pytest.raises(ValueError, match=r"n\(=0\) must be >= 1"):
        shapes(0)
