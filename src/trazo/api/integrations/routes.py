"""Administrator integrations routes."""
from flask.views import MethodView
from flask_smorest import Blueprint

from ...auth import admin_required, current_user
from ..common import MessageSchema
from . import vendors
from .schemas import (
    IntegrationStatusSchema,
    MaskedConfigSchema,
    TestResultSchema,
    VendorCreateSchema,
    VendorQuerySchema,
    VendorSchema,
    VendorUpdateSchema,
)

blp = Blueprint("integrations", __name__, description="Administrator integrations")


@blp.route("/status")
@admin_required
@blp.response(200, IntegrationStatusSchema)
def status():
    """Summarize the configured vendors per category"""
    return vendors.integration_status()


@blp.route("/vendors")
class Vendors(MethodView):
    decorators = [admin_required]

    @blp.arguments(VendorQuerySchema, location="query")
    @blp.response(200, VendorSchema(many=True))
    def get(self, query):
        """List the vendors, optionally of one category"""
        return vendors.list_vendors(query.get("category"))

    @blp.arguments(VendorCreateSchema)
    @blp.response(201, VendorSchema)
    def post(self, data):
        """Configure a new vendor"""
        return vendors.create_vendor(current_user, data)


@blp.route("/vendors/<vendor_id>")
class Vendor(MethodView):
    decorators = [admin_required]

    @blp.arguments(VendorUpdateSchema)
    @blp.response(200, VendorSchema)
    @blp.alt_response(404, "DEFAULT_ERROR", description="Unknown vendor")
    def put(self, data, vendor_id):
        """Rename a vendor or change some of its settings (merged)"""
        return vendors.update_vendor(current_user, vendor_id, data)

    @blp.response(200, MessageSchema)
    @blp.alt_response(404, "DEFAULT_ERROR", description="Unknown vendor")
    def delete(self, vendor_id):
        """Delete a vendor"""
        return vendors.delete_vendor(current_user, vendor_id)


@blp.route("/vendors/<vendor_id>/config")
@admin_required
@blp.response(200, MaskedConfigSchema)
@blp.alt_response(404, "DEFAULT_ERROR", description="Unknown vendor")
def vendor_config(vendor_id):
    """Read a vendor's settings with the secrets masked"""
    return vendors.masked_vendor_config(vendor_id)


@blp.route("/vendors/<vendor_id>/test", methods=["POST"])
@admin_required
@blp.response(200, TestResultSchema)
@blp.alt_response(404, "DEFAULT_ERROR", description="Unknown vendor")
def test_vendor(vendor_id):
    """Check a vendor's settings against the vendor itself"""
    return vendors.test_vendor(current_user, vendor_id)


@blp.route("/vendors/<vendor_id>/set-default", methods=["PUT"])
@admin_required
@blp.response(200, VendorSchema)
@blp.alt_response(400, "DEFAULT_ERROR", description="Not successfully tested")
@blp.alt_response(404, "DEFAULT_ERROR", description="Unknown vendor")
def set_default(vendor_id):
    """Make a tested vendor the one its category uses"""
    return vendors.set_default(current_user, vendor_id)
