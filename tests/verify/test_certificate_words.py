"""A certificate on one example is counted in the singular, in ``check_separable``'s
message and in ``max_margin``'s (issue 37's walk read "exact certificate on 1
examples" in `markone verify separable data.csv --no-intercept`)."""

from __future__ import annotations

import verify


def test_one_example_certificates_are_singular():
    X, y = [[1, 1], [0, 0]], [1, -1]   # the zero vector, no intercept: score always 0
    v = verify.check_separable(X, y, intercept=False)
    assert v.separable is False and len(v.certificate) == 1
    assert "exact certificate on 1 example (sum" in v.message
    m = verify.max_margin(X, y, intercept=False)
    assert m.separable is False and len(m.certificate) == 1
    assert "exact certificate on 1 example)" in m.message
