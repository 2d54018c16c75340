"""Integration vendors: stored encrypted, shown masked, merged on update, default only once tested.

The encrypted store itself, which e-mail, payments and OAuth read, is `core/vendors.py`.
"""
from dataclasses import dataclass

from flask_babel import gettext as _
from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError

from ...core import crypto
from ...core.accounts import audit
from ...core.vendors import PAYMENT, decrypted_config
from ...errors import N_, BadRequest, Conflict, found_or_404
from ...extensions import db
from ...models.base import utcnow
from ...models.security import IntegrationVendor
from .catalog import OAUTH, masked_config, merged_config, missing_fields, vendor_type
from .checks import CheckFailed, run_check


@dataclass(frozen=True)
class DescribedVendor:
    """A vendor as the administrators see it: the row (VendorSchema reads its columns) and what its
    decrypted settings tell: the names of the fields set, and whether every required one is."""

    vendor: IntegrationVendor
    is_configured: bool
    config_fields: list[str]

    def __getattr__(self, name):
        return getattr(self.vendor, name)

    @property
    def is_default(self):
        return self.vendor.default_slot is not None

    @property
    def is_active_payment(self):
        return self.is_default and self.vendor.category == PAYMENT

    @property
    def is_active_oauth(self):
        return self.is_default and self.vendor.category == OAUTH


def described(vendor):
    config = decrypted_config(vendor)
    return DescribedVendor(vendor, not missing_fields(vendor_type(vendor.vendor_type), config), sorted(config))


def _slot(vendor):
    """What a default is the default of: the category, or for OAuth the category and the provider."""
    return f"{OAUTH}:{vendor.vendor_type}" if vendor.category == OAUTH else vendor.category


def _get(vendor_id):
    return found_or_404(db.session.get(IntegrationVendor, vendor_id), N_("Vendor configuration not found"))


def _audit(admin, event, vendor, **details):
    audit.record(event, user=admin, details={"vendor_id": vendor.id, "vendor_type": vendor.vendor_type,
                                             "category": vendor.category, **details})


def list_vendors(category=None):
    query = select(IntegrationVendor).order_by(IntegrationVendor.category, IntegrationVendor.created_at)
    if category:
        query = query.where(IntegrationVendor.category == category)
    return [described(vendor) for vendor in db.session.scalars(query)]


def create_vendor(admin, data):
    kind = vendor_type(data["vendor_type"], data["category"])
    config = merged_config(kind, data["config"])
    vendor = IntegrationVendor(vendor_type=kind.name, category=kind.category,
                               display_name=data.get("display_name") or kind.label,
                               encrypted_config=crypto.encrypt_json(config), created_by=admin.id)
    db.session.add(vendor)
    db.session.commit()
    _audit(admin, "vendor_created", vendor)
    return described(vendor)


def update_vendor(admin, vendor_id, data):
    """Rename and/or change some settings (merged into the stored ones); new settings need a new test,
    and a vendor left without its secrets (a changed address clears them) stops being a default."""
    vendor = _get(vendor_id)
    changed = []
    if data.get("display_name"):
        vendor.display_name = data["display_name"]
        changed.append("display_name")
    if data.get("config") is not None:
        kind = vendor_type(vendor.vendor_type)
        current = decrypted_config(vendor)
        config = merged_config(kind, data["config"], current)
        if config != current:
            vendor.encrypted_config = crypto.encrypt_json(config)
            vendor.connection_tested, vendor.last_test_success, vendor.last_test_at = False, None, None
            if missing_fields(kind, config):
                vendor.default_slot = None
            changed.append("config")
    vendor.updated_at = utcnow()
    db.session.commit()
    _audit(admin, "vendor_updated", vendor, changed=changed)
    return described(vendor)


def delete_vendor(admin, vendor_id):
    """Delete a vendor; when it was a default, the newest successfully tested one of its slot takes over."""
    vendor = _get(vendor_id)
    described(vendor)  # the settings must decrypt (DecryptionError otherwise), as in every vendor route
    slot, details = vendor.default_slot, {"vendor_id": vendor.id, "vendor_type": vendor.vendor_type,
                                          "category": vendor.category}
    db.session.delete(vendor)
    db.session.flush()
    if slot is not None:
        candidates = select(IntegrationVendor).where(IntegrationVendor.category == vendor.category,
                                                     IntegrationVendor.last_test_success.is_(True))
        if vendor.category == OAUTH:
            candidates = candidates.where(IntegrationVendor.vendor_type == vendor.vendor_type)
        successor = db.session.scalar(candidates.order_by(IntegrationVendor.last_test_at.desc()).limit(1))
        if successor is not None:
            successor.default_slot = slot
    db.session.commit()
    audit.record("vendor_deleted", user=admin, details=details)
    return {"message": _("Vendor deleted successfully")}


def masked_vendor_config(vendor_id):
    vendor = _get(vendor_id)
    return {"vendor_id": vendor.id, "config": masked_config(vendor_type(vendor.vendor_type), decrypted_config(vendor))}


def test_vendor(admin, vendor_id):
    """Run the vendor's connection check and remember the outcome (nothing is sent while a
    required setting, such as a secret cleared by a change of address, is missing)."""
    vendor = _get(vendor_id)
    kind = vendor_type(vendor.vendor_type)
    label = kind.label
    config, tested = decrypted_config(vendor), vendor.encrypted_config
    missing = missing_fields(kind, config)
    db.session.close()  # the vendor is called with no database connection held
    try:
        if missing:
            raise CheckFailed(f"not set (enter them again): {', '.join(missing)}")
        run_check(kind.name, config)
        success, detail = True, None
    except CheckFailed as exc:
        success, detail = False, str(exc)
    vendor = _get(vendor_id)
    if vendor.encrypted_config == tested:  # settings changed meanwhile are still untested
        vendor.connection_tested, vendor.last_test_success, vendor.last_test_at = True, success, utcnow()
        db.session.commit()
    _audit(admin, "vendor_tested", vendor, success=success)
    if success:
        return {"success": True, "message": _("Connection to %(vendor)s successful", vendor=label),
                "error_detail": None}
    return {"success": False, "message": _("Connection test failed for %(vendor)s", vendor=label),
            "error_detail": detail}


def set_default(admin, vendor_id):
    """Make a successfully tested vendor the one its category (OAuth: its provider) uses."""
    vendor = _get(vendor_id)
    if not (vendor.connection_tested and vendor.last_test_success):
        raise BadRequest(_("The vendor must be tested successfully first"))
    slot = _slot(vendor)
    db.session.execute(update(IntegrationVendor).where(IntegrationVendor.default_slot == slot,
                                                       IntegrationVendor.id != vendor.id)
                       .values(default_slot=None).execution_options(synchronize_session="fetch"))
    vendor.default_slot = slot
    try:
        db.session.commit()
    except IntegrityError:
        db.session.rollback()
        raise Conflict(_("Another default was set at the same time. Please try again.")) from None
    _audit(admin, "vendor_default_set", vendor)
    return described(vendor)


def integration_status():
    vendors = db.session.scalars(select(IntegrationVendor)).all()

    def summary(category):
        mine = [vendor for vendor in vendors if vendor.category == category]
        default = next((vendor for vendor in mine if vendor.default_slot), None)
        return mine, default

    email, email_default = summary("email")
    payment, payment_default = summary("payment")
    oauth, _default = summary(OAUTH)
    return {
        "email": {"configured_count": len(email), "has_default": email_default is not None,
                  "default_vendor": email_default.display_name if email_default else None},
        "payment": {"configured_count": len(payment), "has_active": payment_default is not None,
                    "active_vendor": payment_default.display_name if payment_default else None},
        "oauth": {"configured_count": len(oauth),
                  "active_providers": sorted(vendor.vendor_type for vendor in oauth if vendor.default_slot)},
    }

