"""Administrator integrations routes."""
from flask.views import MethodView

from ...auth import current_user
from ...errors import ErrorSchema
from ..blueprint import ADMIN, Blueprint
from ..common import MessageSchema
from . import service
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


@blp.route("/status", auth=ADMIN)
@blp.response(200, IntegrationStatusSchema)
def status():
    """Summarize the configured vendors per category"""
    return service.integration_status()


@blp.route("/vendors", auth=ADMIN)
class Vendors(MethodView):
    @blp.arguments(VendorQuerySchema, location="query")
    @blp.response(200, VendorSchema(many=True))
    def get(self, query):
        """List the vendors, optionally of one category"""
        return service.list_vendors(query.get("category"))

    @blp.arguments(VendorCreateSchema)
    @blp.response(201, VendorSchema)
    def post(self, data):
        """Configure a new vendor"""
        return service.create_vendor(current_user, data)


@blp.route("/vendors/<vendor_id>", auth=ADMIN, not_found="Unknown vendor")
class Vendor(MethodView):
    @blp.arguments(VendorUpdateSchema)
    @blp.response(200, VendorSchema)
    def put(self, data, vendor_id):
        """Rename a vendor or change some of its settings (merged)"""
        return service.update_vendor(current_user, vendor_id, data)

    @blp.response(200, MessageSchema)
    def delete(self, vendor_id):
        """Delete a vendor"""
        return service.delete_vendor(current_user, vendor_id)


@blp.route("/vendors/<vendor_id>/config", auth=ADMIN, not_found="Unknown vendor")
@blp.response(200, MaskedConfigSchema)
def vendor_config(vendor_id):
    """Read a vendor's settings with the secrets masked"""
    return service.masked_vendor_config(vendor_id)


@blp.route("/vendors/<vendor_id>/test", methods=["POST"], auth=ADMIN, not_found="Unknown vendor")
@blp.response(200, TestResultSchema)
def test_vendor(vendor_id):
    """Check a vendor's settings against the vendor itself"""
    return service.test_vendor(current_user, vendor_id)


@blp.route("/vendors/<vendor_id>/set-default", methods=["PUT"], auth=ADMIN, not_found="Unknown vendor")
@blp.response(200, VendorSchema)
@blp.alt_response(400, schema=ErrorSchema, description="Not successfully tested")
def set_default(vendor_id):
    """Make a tested vendor the one its category uses"""
    return service.set_default(current_user, vendor_id)
