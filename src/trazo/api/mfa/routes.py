"""Multi-factor authentication routes (token rules: docs/api.md)."""
from ...auth import current_user
from ...errors import ErrorSchema
from ...extensions import limiter
from ...ratelimit import limit
from ..blueprint import ADMIN, PUBLIC, Blueprint
from ..common import MessageSchema
from . import admin, export, login, service
from .schemas import (
    ActivationResultSchema,
    ActivationSchema,
    AdminSearchQuerySchema,
    AdminUsersPageSchema,
    AdminUsersQuerySchema,
    DefaultMethodSchema,
    DisableSchema,
    IdentitySchema,
    LoginStepSchema,
    RecoveryCodesSchema,
    ResendResultSchema,
    StatusSchema,
    SwitchMethodSchema,
    SwitchResultSchema,
    TotpSetupSchema,
    VerifyResultSchema,
    VerifySchema,
)

blp = Blueprint("mfa", __name__, description="Multi-factor authentication")


# -- the second step of a sign-in (mfa_token in the body) ------------------------------

@blp.route("/verify", methods=["POST"], auth=PUBLIC)
@limiter.limit(limit("MFA_VERIFY"))
@blp.arguments(VerifySchema)
@blp.response(200, VerifyResultSchema)
@blp.alt_response(401, schema=ErrorSchema, description="Wrong code, or the login expired")
def verify(data):
    """Finish a sign-in with a TOTP, e-mail or recovery code"""
    return login.verify(data)


@blp.route("/switch-method", methods=["POST"], auth=PUBLIC)
@blp.arguments(SwitchMethodSchema)
@blp.response(200, SwitchResultSchema)
@blp.alt_response(401, schema=ErrorSchema, description="The login expired")
def switch_method(data):
    """Use another second factor for the sign-in in progress"""
    return login.switch_method(data)


@blp.route("/resend-email-code", methods=["POST"], auth=PUBLIC)
@blp.arguments(LoginStepSchema)
@blp.response(200, ResendResultSchema)
def resend_email_code(data):
    """Send a new e-mail code for the sign-in in progress"""
    return login.resend_email_code(data)


# -- the user's settings ---------------------------------------------------------------

@blp.route("/status")
@blp.response(200, StatusSchema)
def status():
    """Read my MFA settings"""
    return service.status(current_user)


@blp.route("/setup-totp", methods=["POST"], recent_sign_in=True)
@blp.arguments(IdentitySchema)
@blp.response(200, TotpSetupSchema)
def setup_totp(data):
    """Create a pending TOTP secret and its QR code"""
    return service.setup_totp(current_user)


@blp.route("/enable-totp", methods=["POST"], recent_sign_in=True)
@blp.arguments(ActivationSchema)
@blp.response(200, ActivationResultSchema)
@blp.alt_response(400, schema=ErrorSchema, description="No pending secret or wrong code")
def enable_totp(data):
    """Confirm the pending TOTP secret with a code and turn TOTP on"""
    return service.enable_totp(current_user, data["code"], data["set_as_default"])


@blp.route("/enable-email", methods=["POST"], recent_sign_in=True)
@blp.arguments(IdentitySchema)
@blp.response(200, MessageSchema)
def enable_email(data):
    """E-mail a code that turns e-mail MFA on"""
    return service.enable_email(current_user)


@blp.route("/verify-email-activation", methods=["POST"], recent_sign_in=True)
@blp.arguments(ActivationSchema)
@blp.response(200, ActivationResultSchema)
@blp.alt_response(400, schema=ErrorSchema, description="No code, expired or wrong code")
def verify_email_activation(data):
    """Turn e-mail MFA on with the e-mailed code"""
    return service.verify_email_activation(current_user, data["code"], data["set_as_default"])


@blp.route("/disable", methods=["POST"])
@blp.arguments(DisableSchema)
@blp.response(200, MessageSchema)
@blp.alt_response(403, schema=ErrorSchema, description="Wrong password, or no password and no recent sign-in")
def disable(data):
    """Turn one MFA method off"""
    return service.disable(current_user, data["method"], data["password"])


@blp.route("/regenerate-recovery-codes", methods=["POST"])
@blp.arguments(IdentitySchema)
@blp.response(200, RecoveryCodesSchema)
@blp.alt_response(403, schema=ErrorSchema, description="Wrong password, or no password and no recent sign-in")
def regenerate_recovery_codes(data):
    """Replace my recovery codes"""
    return service.regenerate_recovery_codes(current_user, data["password"])


@blp.route("/default-method", methods=["PUT"])
@blp.arguments(DefaultMethodSchema)
@blp.response(200, MessageSchema)
@blp.alt_response(403, schema=ErrorSchema, description="Wrong password, or no password and no recent sign-in")
def default_method(data):
    """Choose the method a sign-in asks for first"""
    return service.set_default_method(current_user, data["method"], data["password"])


# -- administrators --------------------------------------------------------------------

@blp.route("/admin/users", auth=ADMIN)
@blp.arguments(AdminUsersQuerySchema, location="query")
@blp.response(200, AdminUsersPageSchema)
def admin_users(query):
    """List users with their MFA state and usage"""
    return admin.list_users(query["page"], query["page_size"], query["search"])


@blp.route("/admin/users/export", auth=ADMIN)
@blp.arguments(AdminSearchQuerySchema, location="query")
@blp.response(200, {"type": "string", "format": "binary"}, content_type=export.XLSX_MIMETYPE,
              description="XLSX workbook")
def admin_users_export(query):
    """Download the users as an XLSX workbook"""
    return export.users_workbook(query["search"])


@blp.route("/admin/users/<user_id>/reset-mfa", methods=["POST"], auth=ADMIN, not_found="Unknown user")
@blp.response(200, MessageSchema)
def admin_reset_mfa(user_id):
    """Turn every MFA method of a user off"""
    return admin.reset_mfa(current_user, user_id)
