"""The learnable claim's words: a certificate on one figure is "1 figure", and the
potentiometers cannot answer "it" (the walk of issue 37 read "on 1 figures ... all
of them" in `markone verify machine letters --chars AB --dead-a-units 0.99`)."""

from __future__ import annotations

from fractions import Fraction
from types import SimpleNamespace

from verify.machine.claims._learnable import learnable_claim


def test_a_certificate_on_one_figure_is_counted_in_the_singular():
    one = SimpleNamespace(separable=False, certificate={4: Fraction(1)}, method="trivial")
    claim = learnable_claim(one, [3, 7])
    assert "an exact certificate on 1 figure shows" in claim.message
    assert claim.message.endswith("no setting of the potentiometers answers it")
    two = SimpleNamespace(separable=False, certificate={0: Fraction(1), 2: Fraction(1)},
                          method="lp")
    assert learnable_claim(two, [3, 7]).message.endswith(
        "an exact certificate on 2 figures shows that no setting of the potentiometers "
        "answers all of them")
