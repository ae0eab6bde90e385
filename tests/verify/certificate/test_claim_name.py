"""verify.certificate.Claim is CertificateClaim now: one class per name in the tree
(verify.machine.Claim is a machine report's claim); the old name warns (issue 25)."""

import pytest

import verify.certificate as certificate
import verify.machine as machine


def test_the_old_name_warns_and_gives_the_certificate_claim():
    with pytest.warns(DeprecationWarning, match="use verify.certificate.CertificateClaim"):
        assert certificate.Claim is certificate.CertificateClaim
    assert certificate.CertificateClaim is not machine.Claim
    with pytest.raises(AttributeError, match="has no attribute 'Claims'"):
        certificate.Claims
