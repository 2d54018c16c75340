"""Billing: plans, the quotas they set, amounts of money, and payments through the gateway (the adapter is
services/payments)."""
