"""verify.certificate.Claim is CertificateClaim now: one class per name in the tree
(verify.machine.Claim is a machine report's claim, issue 25); the old name is gone
before 1.0 (issue 40)."""

import pytest

import verify.certificate as certificate
import verify.machine as machine


def test_the_old_name_is_gone_and_the_certificate_claim_is_its_own_class():
    with pytest.raises(AttributeError, match="has no attribute 'Claim'"):
        certificate.Claim
    assert certificate.CertificateClaim is not machine.Claim
    with pytest.raises(AttributeError, match="has no attribute 'Claims'"):
        certificate.Claims
