"""Plans, subscriptions, administration of plans, and the payment webhook."""
from . import plan_views, subscription_views, webhook_views  # noqa: F401  (each module adds its routes)
from .blueprints import admin_plans_blp, plans_blp, subscriptions_blp, webhooks_blp

__all__ = ["admin_plans_blp", "plans_blp", "subscriptions_blp", "webhooks_blp"]
