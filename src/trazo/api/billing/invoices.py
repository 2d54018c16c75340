"""Billing history: gateway invoices kept locally (from webhooks and each listing), and their PDFs."""
import logging
import re

from flask_babel import gettext as _
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from ...core.billing.money import from_unix
from ...core.billing.payments import GatewayObjectMissing, release_connection, require_gateway
from ...errors import GatewayTimeout, NotFound, UpstreamError
from ...extensions import db
from ...models.base import utcnow
from ...models.billing import Invoice, Subscription

log = logging.getLogger(__name__)

INVOICE_ID = re.compile(r"^in_[A-Za-z0-9_]{1,250}$")


def invoice_subscription_id(remote):
    """The subscription an invoice bills, in the old and the new shapes of the gateway's API."""
    subscription = remote.get("subscription")
    if subscription is None:
        details = ((remote.get("parent") or {}).get("subscription_details") or {})
        subscription = details.get("subscription")
    return object_id(subscription)


def object_id(value):
    """The id of a gateway reference, which is either an id or an expanded object."""
    return value.get("id") if isinstance(value, dict) else value


def _line_description(remote):
    lines = (remote.get("lines") or {}).get("data") or []
    return (lines[0].get("description") if lines else None) or remote.get("description")


def record_invoice(user_id, remote):
    """Insert or refresh the local copy of a gateway invoice. The caller commits."""
    invoice = db.session.scalar(select(Invoice).where(Invoice.stripe_invoice_id == remote["id"]))
    if invoice is None:
        invoice = Invoice(user_id=user_id, stripe_invoice_id=remote["id"])
        db.session.add(invoice)
    invoice.stripe_customer_id = object_id(remote.get("customer"))
    invoice.stripe_subscription_id = invoice_subscription_id(remote)
    invoice.number = remote.get("number")
    invoice.status = remote.get("status")
    invoice.currency = (remote.get("currency") or "usd").lower()
    invoice.amount_due = int(remote.get("amount_due") or 0)
    invoice.amount_paid = int(remote.get("amount_paid") or 0)
    description = _line_description(remote)
    invoice.description = description[:500] if description else None
    invoice.hosted_invoice_url = remote.get("hosted_invoice_url")
    invoice.invoice_pdf = remote.get("invoice_pdf")
    invoice.issued_at = from_unix(remote.get("created")) or invoice.issued_at or utcnow()
    invoice.paid_at = from_unix((remote.get("status_transitions") or {}).get("paid_at"))
    return invoice


def _customer_ids(user_id):
    return set(db.session.scalars(select(Subscription.stripe_customer_id).where(
        Subscription.user_id == user_id, Subscription.stripe_customer_id.is_not(None))))


def _refresh(gateway, user_id, limit):
    """Copy the newest invoices from the gateway (called with no database connection held); when
    it fails the local history is shown."""
    customers = sorted(_customer_ids(user_id))
    release_connection()
    try:
        remotes = [remote for customer_id in customers for remote in gateway.list_invoices(customer_id, limit)]
    except (UpstreamError, GatewayTimeout) as exc:
        log.warning("billing history of user %s served from the local copy: %s", user_id, exc)
        return
    try:
        for remote in remotes:
            record_invoice(user_id, remote)
        db.session.commit()
    except IntegrityError as exc:
        db.session.rollback()
        log.warning("billing history of user %s served from the local copy: %s", user_id, exc)


def billing_history(user, limit):
    """The caller's newest invoices (BillingHistorySchema), refreshed from the gateway when it answers."""
    gateway = require_gateway()
    user_id = user.id
    _refresh(gateway, user_id, limit)
    invoices = db.session.scalars(select(Invoice).where(Invoice.user_id == user_id)
                                  .order_by(Invoice.issued_at.desc(), Invoice.id).limit(limit)).all()
    return {"invoices": invoices, "total_count": len(invoices)}


def invoice_pdf_url(user, invoice_id):
    """The PDF of one of the caller's invoices; anyone else's (or an unknown one) is a 404."""
    gateway = require_gateway()
    not_found = NotFound(_("Invoice not found or access denied"))
    if not INVOICE_ID.match(invoice_id):
        raise not_found
    user_id = user.id
    invoice = db.session.scalar(select(Invoice).where(Invoice.stripe_invoice_id == invoice_id,
                                                      Invoice.user_id == user_id))
    if invoice is not None and invoice.invoice_pdf:
        return {"pdf_url": invoice.invoice_pdf}
    customers = _customer_ids(user_id)
    if not customers:
        raise not_found
    release_connection()
    try:
        remote = gateway.retrieve_invoice(invoice_id)
    except GatewayObjectMissing:
        raise not_found from None
    if object_id(remote.get("customer")) not in customers or not remote.get("invoice_pdf"):
        raise not_found
    record_invoice(user_id, remote)
    db.session.commit()
    return {"pdf_url": remote["invoice_pdf"]}
