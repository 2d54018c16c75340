"""The payment provider's webhook: authenticated by its signature, not a token, and not
rate-limited by address (the provider's deliveries share few addresses)."""
from flask import request

from . import webhook
from .blueprints import webhooks_blp as blp
from .subscription_schemas import WebhookResultSchema

SIGNED_EVENT = {"required": True, "description": "A payment provider event, signed in the Stripe-Signature header",
                "content": {"application/json": {"schema": {"type": "object"}}}}


@blp.route("/<provider>", methods=["POST"])
@blp.doc(security=[], requestBody=SIGNED_EVENT)
@blp.response(200, WebhookResultSchema)
@blp.alt_response(400, "DEFAULT_ERROR", description="Unparsable event")
@blp.alt_response(401, "DEFAULT_ERROR", description="Missing or invalid signature")
@blp.alt_response(404, "DEFAULT_ERROR", description="Unknown provider")
@blp.alt_response(409, "DEFAULT_ERROR", description="Raced with another event; the provider delivers it again")
@blp.alt_response(422, "UNPROCESSABLE_ENTITY", description="A body that is not acceptable JSON")
@blp.alt_response(503, "DEFAULT_ERROR", description="Billing is not configured")
def receive(provider):
    """Receive a payment provider event ("payment" is the configured provider)"""
    return webhook.receive(provider, request.get_data(cache=False), request.headers.get("Stripe-Signature"))
