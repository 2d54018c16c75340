"""Fixtures of the integrations area: the fake Stripe as a payment vendor's server (the other fake servers,
`google_server`, `github_server`, `resend`: tests/conftest.py)."""
import pytest

# The Stripe secret key a payment vendor is given in these tests (the billing tests use fakes.stripe.SECRET_KEY).
VENDOR_SECRET_KEY = "sk_test_51abcdefghijklmnop"


@pytest.fixture
def stripe_api(stripe_server):
    """The fake Stripe, emptied, accepting VENDOR_SECRET_KEY (`stripe_api.secret_key`); no STRIPE_* setting
    points at it: a vendor created through the integrations API does."""
    stripe_server.reset(secret_key=VENDOR_SECRET_KEY)
    return stripe_server
