"""Plan routes: the public catalog and its administration."""
from flask.views import MethodView

from ...auth import admin_required
from . import plan_admin, plans
from .blueprints import admin_plans_blp, plans_blp
from .plan_schemas import (
    AdminPlanSchema,
    PlanCreateSchema,
    PlanDeletedSchema,
    PlanPriceCreateSchema,
    PlanSchema,
    PlanUpdateSchema,
)

PUBLIC = {"security": []}


@plans_blp.route("")
@plans_blp.doc(**PUBLIC)
@plans_blp.response(200, PlanSchema(many=True))
def list_plans():
    """List the plans on sale"""
    return plans.list_active_plans()


@plans_blp.route("/<plan_id>")
@plans_blp.doc(**PUBLIC)
@plans_blp.response(200, PlanSchema)
@plans_blp.alt_response(404, "DEFAULT_ERROR", description="Unknown plan")
def get_plan(plan_id):
    """Read a plan"""
    return plans.get_plan(plan_id)


@admin_plans_blp.route("")
class AdminPlans(MethodView):
    decorators = [admin_required]

    @admin_plans_blp.response(200, AdminPlanSchema(many=True))
    @admin_plans_blp.alt_response(403, "DEFAULT_ERROR", description="Not an administrator")
    def get(self):
        """List every plan, inactive ones too"""
        return plans.list_all_plans()

    @admin_plans_blp.arguments(PlanCreateSchema)
    @admin_plans_blp.response(201, AdminPlanSchema)
    @admin_plans_blp.alt_response(400, "DEFAULT_ERROR", description="Duplicate name or code, reserved code")
    @admin_plans_blp.alt_response(403, "DEFAULT_ERROR", description="Not an administrator")
    @admin_plans_blp.alt_response(502, "DEFAULT_ERROR", description="The payment provider failed")
    def post(self, data):
        """Create a plan (synchronised with the payment provider when configured)"""
        return plan_admin.create_plan(data)


@admin_plans_blp.route("/<plan_id>")
class AdminPlan(MethodView):
    decorators = [admin_required]

    @admin_plans_blp.arguments(PlanUpdateSchema)
    @admin_plans_blp.response(200, AdminPlanSchema)
    @admin_plans_blp.alt_response(400, "DEFAULT_ERROR", description="Not allowed for this plan")
    @admin_plans_blp.alt_response(404, "DEFAULT_ERROR", description="Unknown plan")
    @admin_plans_blp.alt_response(502, "DEFAULT_ERROR", description="The payment provider failed")
    def put(self, data, plan_id):
        """Edit a plan"""
        return plan_admin.update_plan(plan_id, data)

    @admin_plans_blp.response(200, PlanDeletedSchema)
    @admin_plans_blp.alt_response(400, "DEFAULT_ERROR", description="The FREE plan")
    @admin_plans_blp.alt_response(404, "DEFAULT_ERROR", description="Unknown plan")
    def delete(self, plan_id):
        """Delete a plan, or deactivate it when it has subscriptions"""
        return plan_admin.delete_plan(plan_id)


@admin_plans_blp.route("/<plan_id>/prices", methods=["POST"])
@admin_required
@admin_plans_blp.arguments(PlanPriceCreateSchema)
@admin_plans_blp.response(201, AdminPlanSchema)
@admin_plans_blp.alt_response(400, "DEFAULT_ERROR", description="Unsupported or existing currency")
@admin_plans_blp.alt_response(404, "DEFAULT_ERROR", description="Unknown plan")
def add_price(data, plan_id):
    """Add a price in another currency to a plan"""
    return plan_admin.add_price(plan_id, data["currency"], data["amount"])


@admin_plans_blp.route("/<plan_id>/prices/<currency>", methods=["DELETE"])
@admin_required
@admin_plans_blp.response(200, AdminPlanSchema)
@admin_plans_blp.alt_response(400, "DEFAULT_ERROR", description="The USD price")
@admin_plans_blp.alt_response(404, "DEFAULT_ERROR", description="Unknown plan or currency")
def remove_price(plan_id, currency):
    """Remove a plan's price in one currency"""
    return plan_admin.remove_price(plan_id, currency)
