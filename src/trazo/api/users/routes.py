"""Users and authentication routes (token rules: docs/api.md)."""
from flask.views import MethodView

from ...auth import current_user
from ...errors import ErrorSchema
from ...extensions import limiter
from ...ratelimit import limit
from ..blueprint import PUBLIC, Blueprint
from ..common import LoginResultSchema, MessageSchema
from . import reset, service
from .schemas import (
    AdminCountSchema,
    ChangePasswordResultSchema,
    ChangePasswordSchema,
    DeleteAccountSchema,
    InstallationStatusSchema,
    LoginSchema,
    NotificationsSchema,
    NotificationsUpdateSchema,
    ProfileUpdateSchema,
    RegisterSchema,
    ResetConfirmSchema,
    ResetRequestSchema,
    UserSchema,
)

blp = Blueprint("users", __name__, url_prefix="/users", description="Accounts and sign-in")


@blp.route("/installation-status", auth=PUBLIC)
@blp.response(200, InstallationStatusSchema)
def installation_status():
    """Tell whether the installation still needs its first account"""
    return service.installation_status()


@blp.route("/admin-count", auth=PUBLIC)
@blp.response(200, AdminCountSchema)
def admin_count():
    """Count the administrators"""
    return service.admin_count()


@blp.route("/register", methods=["POST"], auth=PUBLIC)
@limiter.limit(limit("REGISTER"))
@blp.arguments(RegisterSchema)
@blp.response(201, UserSchema)
@blp.alt_response(400, schema=ErrorSchema, description="E-mail already registered")
def register(data):
    """Create an account (the first one becomes the administrator)"""
    return service.register(data)


@blp.route("/login", methods=["POST"], auth=PUBLIC)
@limiter.limit(limit("LOGIN"))
@blp.arguments(LoginSchema)
@blp.response(200, LoginResultSchema)
@blp.alt_response(401, schema=ErrorSchema, description="Incorrect e-mail or password")
def login(data):
    """Sign in with e-mail and password"""
    return service.login(data["email"], data["password"])


@blp.route("/reset-password-request", methods=["POST"], auth=PUBLIC)
@limiter.limit(limit("RESET_REQUEST"))
@blp.arguments(ResetRequestSchema)
@blp.response(200, MessageSchema)
def reset_password_request(data):
    """E-mail a password reset link"""
    return reset.request_password_reset(data["email"])


@blp.route("/reset-password-confirm", methods=["POST"], auth=PUBLIC)
@limiter.limit(limit("RESET_CONFIRM"))
@blp.arguments(ResetConfirmSchema)
@blp.response(200, MessageSchema)
@blp.alt_response(400, schema=ErrorSchema, description="Invalid or expired token")
def reset_password_confirm(data):
    """Set a new password with the e-mailed token"""
    return reset.confirm_password_reset(data["email"], data["token"], data["new_password"])


@blp.route("/me")
class Me(MethodView):
    @blp.response(200, UserSchema)
    def get(self):
        """Read my profile"""
        return service.profile(current_user)

    @blp.arguments(ProfileUpdateSchema)
    @blp.response(200, UserSchema)
    def put(self, data):
        """Update my profile"""
        return service.update_profile(current_user, data)

    @blp.arguments(DeleteAccountSchema)
    @blp.response(200, MessageSchema)
    @blp.alt_response(403, schema=ErrorSchema,
                      description="Wrong password, no recent sign-in, or the only administrator")
    @blp.alt_response(409, schema=ErrorSchema, description="The last owner of team workspaces others still use: "
                      "the detail names them (docs/teams.md)")
    def delete(self, data):
        """Delete my account, its personal workspace and the team workspaces only it belongs to"""
        return service.delete_account(current_user, data["confirmation_phrase"],
                                      data.get("password") or data.get("current_password"))


@blp.route("/me/notifications")
class MyNotifications(MethodView):
    @blp.response(200, NotificationsSchema)
    def get(self):
        """Read which comment e-mails I receive (docs/comments.md)"""
        return current_user

    @blp.arguments(NotificationsUpdateSchema)
    @blp.response(200, NotificationsSchema)
    def put(self, data):
        """Turn comment e-mails on or off (the fields sent change)"""
        return service.update_notifications(current_user, data)


@blp.route("/change-password", methods=["PUT"])
@blp.arguments(ChangePasswordSchema)
@blp.response(200, ChangePasswordResultSchema)
@blp.alt_response(400, schema=ErrorSchema, description="Current password missing or incorrect")
def change_password(data):
    """Change my password (answers a fresh token)"""
    return service.change_password(current_user, data.get("current_password"), data["new_password"],
                                   data["revoke_tokens"])
