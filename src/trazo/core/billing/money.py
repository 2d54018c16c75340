"""Amounts: minor units (cents) in storage and at the gateway, major units in the API."""
from datetime import UTC, datetime
from decimal import ROUND_HALF_UP, Decimal

# Currencies without a minor unit at the gateway (the API's own currencies all have cents).
ZERO_DECIMAL_CURRENCIES = frozenset({"bif", "clp", "djf", "gnf", "jpy", "kmf", "krw", "mga", "pyg", "rwf",
                                     "ugx", "vnd", "vuv", "xaf", "xof", "xpf"})


def to_minor(amount):
    return int((Decimal(amount) * 100).to_integral_value(rounding=ROUND_HALF_UP))


def to_major(minor, currency="usd"):
    if (currency or "").lower() in ZERO_DECIMAL_CURRENCIES:
        return float(minor or 0)
    return (minor or 0) / 100


def from_unix(seconds):
    """A gateway timestamp (Unix seconds) as an aware UTC datetime; None stays None."""
    if seconds in (None, ""):
        return None
    return datetime.fromtimestamp(int(seconds), UTC)
