"""Keep a plan's product and price at the payment gateway in step with the plan.

A paid plan has one product and one monthly price in USD whose currency options hold the other
currencies. A price cannot change at the gateway, so a new price replaces the old one, which is
deactivated (existing subscriptions keep paying the old one). Called before the local commit,
so a gateway failure leaves the plan unchanged.
"""
import logging
from dataclasses import dataclass

from ...models.billing import BASE_CURRENCY

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class CatalogEntry:
    """What the gateway needs to know of a plan, read before the database connection is released."""

    plan_id: str
    name: str
    description: str | None
    is_active: bool
    amounts: dict
    product_id: str | None
    price_id: str | None


def catalog_entry(plan):
    return CatalogEntry(plan.id, plan.name, plan.description, plan.is_active, dict(plan.amounts),
                        plan.gateway_product_id, plan.gateway_price_id)


def gateway_changes(entry, gateway, prices_changed):
    """Bring the gateway in step with `entry` (gateway calls only, no database access); answer the
    plan columns to store: {column: value}."""
    changes = {}
    if not entry.amounts.get(BASE_CURRENCY):
        _withdraw(entry, gateway, changes)
        return changes
    product_id = entry.product_id
    if product_id is None:
        product_id = gateway.create_product(entry.plan_id, entry.name, entry.description, entry.is_active)
        changes.update(gateway_product_id=product_id, gateway_provider=gateway.name)
    else:
        gateway.update_product(product_id, entry.name, entry.description, entry.is_active)
    if prices_changed or entry.price_id is None:
        changes["gateway_price_id"] = gateway.create_price(product_id, entry.plan_id, entry.amounts, BASE_CURRENCY)
        if entry.price_id:
            gateway.set_price_active(entry.price_id, False)
    return changes


def _withdraw(entry, gateway, changes):
    """A plan that became free sells nothing at the gateway any more."""
    if entry.price_id:
        gateway.set_price_active(entry.price_id, False)
        changes["gateway_price_id"] = None
    if entry.product_id:
        gateway.update_product(entry.product_id, entry.name, entry.description, False)


def archive_product(entry, gateway):
    """Stop selling a plan that is being deleted or deactivated: its product is archived (a later
    reactivation of the plan makes it active again). Gateway calls only, no database access."""
    if not entry.product_id:
        return
    if gateway is None:
        log.warning("plan %s keeps its gateway product active: billing is not configured", entry.plan_id)
        return
    gateway.update_product(entry.product_id, entry.name, entry.description, False)
