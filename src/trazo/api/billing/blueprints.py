"""The four blueprints of the billing area (registered by create_app through routes.py)."""
from flask_smorest import Blueprint

plans_blp = Blueprint("plans", __name__, description="Plans")
subscriptions_blp = Blueprint("subscriptions", __name__, description="Subscriptions and billing")
admin_plans_blp = Blueprint("admin_plans", __name__, description="Plan administration")
webhooks_blp = Blueprint("webhooks", __name__, description="Payment provider webhooks")
