"""How a payment gateway call fails, in neutral terms: core/billing/payments.py answers each with the API's status
and localized text (the adapter contract: services/__init__.py)."""


class PaymentFailure(Exception):
    """Any failure of the gateway or of a webhook delivery."""


class GatewayFailed(PaymentFailure):
    """The gateway refused or failed a call; `reason` is its own explanation, cut to a sane length."""

    def __init__(self, provider, reason=""):
        super().__init__(f"{provider}: {reason}")
        self.provider = provider
        self.reason = reason


class GatewayObjectMissing(GatewayFailed):
    """The gateway does not know the object asked for."""


class GatewayDeadlinePassed(PaymentFailure):
    """The gateway did not answer within the call's deadline."""

    def __init__(self, provider):
        super().__init__(f"{provider} did not answer in time")
        self.provider = provider


class WebhookSignatureMissing(PaymentFailure):
    """A webhook delivery without its signature header."""


class WebhookSignatureInvalid(PaymentFailure):
    """A webhook delivery whose signature is wrong, or older than the tolerance."""


class WebhookPayloadInvalid(PaymentFailure):
    """A signed webhook delivery that is not a JSON event."""
