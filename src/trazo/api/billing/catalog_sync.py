"""Keep a plan's product and price at the payment gateway in step with the plan.

A paid plan has one product and one monthly price in USD whose currency options hold the other
currencies. A price cannot change at the gateway, so a new price replaces the old one, which is
deactivated (existing subscriptions keep paying the old one). Called before the local commit,
so a gateway failure leaves the plan unchanged.
"""
import logging

from ...models.billing import BASE_CURRENCY

log = logging.getLogger(__name__)


def sync_plan(plan, gateway, prices_changed):
    """Create or update the plan's product and price; without a gateway nothing happens (the first
    checkout of the plan synchronises it)."""
    if gateway is None:
        return
    if plan.base_amount == 0:
        _withdraw(plan, gateway)
        return
    if plan.gateway_product_id is None:
        plan.gateway_product_id = gateway.create_product(plan.id, plan.name, plan.description, plan.is_active)
        plan.gateway_provider = gateway.name
    else:
        gateway.update_product(plan.gateway_product_id, plan.name, plan.description, plan.is_active)
    if prices_changed or plan.gateway_price_id is None:
        previous = plan.gateway_price_id
        plan.gateway_price_id = gateway.create_price(plan.gateway_product_id, plan.id, plan.amounts, BASE_CURRENCY)
        if previous:
            gateway.set_price_active(previous, False)


def _withdraw(plan, gateway):
    """A plan that became free sells nothing at the gateway any more."""
    if plan.gateway_price_id:
        gateway.set_price_active(plan.gateway_price_id, False)
        plan.gateway_price_id = None
    if plan.gateway_product_id:
        gateway.update_product(plan.gateway_product_id, plan.name, plan.description, False)


def archive_plan(plan, gateway):
    """Stop selling a plan that is being deleted or deactivated: its product is archived (a later
    reactivation of the plan makes it active again)."""
    if not plan.gateway_product_id:
        return
    if gateway is None:
        log.warning("plan %s keeps its gateway product active: billing is not configured", plan.id)
        return
    gateway.update_product(plan.gateway_product_id, plan.name, plan.description, False)
