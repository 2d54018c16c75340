"""Billing fixtures: signed webhook deliveries, and plans/subscriptions made through the API (the fake Stripe
and the settings pointing at it, `stripe_api`: tests/conftest.py)."""
import json
import time

import pytest

from trazo.extensions import db
from trazo.models.billing import Subscription

from ...fakes.stripe import WEBHOOK_SECRET, sign


@pytest.fixture
def deliver(client):
    """POST a signed event to the webhook; returns the response."""

    def send(event_type, obj, event_id=None, created=None, provider="stripe", secret=WEBHOOK_SECRET):
        event = {"id": event_id or f"evt_{time.time_ns()}", "object": "event", "type": event_type,
                 "created": int(created or time.time()), "data": {"object": obj}}
        payload = json.dumps(event).encode()
        return client.post(f"/webhooks/{provider}", data=payload, headers={
            "Stripe-Signature": sign(payload, secret), "Content-Type": "application/json"})

    return send


@pytest.fixture
def make_plan(admin):
    """Create a plan through the admin API; returns its JSON."""

    def create(code="PRO", name=None, price_usd=9.99, **fields):
        body = {"code": code, "name": name or code.title(), "price_usd": price_usd, **fields}
        response = admin.post("/admin/plans", json=body)
        assert response.status_code == 201, response.json
        return response.json

    return create


@pytest.fixture
def subscribe(app):
    """Store a subscription directly (the state the webhook would leave)."""

    def store(user, plan, status="active", stripe_id=None, customer="cus_1", **fields):
        with app.app_context():
            subscription = Subscription(user_id=user.id, plan_id=plan["id"], status=status,
                                        payment_provider="stripe" if stripe_id else None,
                                        stripe_subscription_id=stripe_id,
                                        stripe_customer_id=customer if stripe_id else None, **fields)
            db.session.add(subscription)
            db.session.commit()
            return subscription.id

    return store


def subscription_rows(app, user_id):
    with app.app_context():
        return [(row.plan_id, row.status, row.stripe_subscription_id) for row in
                db.session.query(Subscription).filter_by(user_id=user_id).order_by(Subscription.created_at)]
