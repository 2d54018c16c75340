"""Users and authentication schemas, one per direction."""
from zoneinfo import available_timezones

import marshmallow as ma
from flask_babel import gettext as _
from marshmallow import ValidationError, validates, validates_schema

from ...core.accounts.passwords import MAX_LENGTH, check_policy
from ...core.accounts.users import FULL_NAME_MAX_LENGTH, check_new_password
from ..common import BaseSchema, NormalizedEmail, Timestamp

PICTURE_PREFIXES = ("data:image/png;base64,", "data:image/jpeg;base64,", "data:image/jpg;base64,",
                    "data:image/gif;base64,", "data:image/webp;base64,", "https://")
MAX_PICTURE_CHARS = 3 * 1024 * 1024


class RegisterSchema(BaseSchema):
    """The rules of a new account (`core.accounts.checked_registration` applies them outside a request)."""

    email = NormalizedEmail(required=True)
    password = ma.fields.String(required=True, load_only=True)
    full_name = ma.fields.String(allow_none=True, load_default=None,
                                 validate=ma.validate.Length(max=FULL_NAME_MAX_LENGTH))

    @validates_schema(skip_on_field_errors=False)
    def password_follows_policy(self, data, **_kwargs):
        if "password" in data:
            check_new_password(data["password"], data.get("email"))


class LoginSchema(BaseSchema):
    email = NormalizedEmail(required=True)
    password = ma.fields.String(required=True, load_only=True, validate=ma.validate.Length(max=1024))


class ResetRequestSchema(BaseSchema):
    email = NormalizedEmail(required=True)


class ResetConfirmSchema(BaseSchema):
    email = NormalizedEmail(required=True)
    token = ma.fields.String(required=True, validate=ma.validate.Length(min=1, max=256))
    new_password = ma.fields.String(required=True, load_only=True)

    @validates_schema(skip_on_field_errors=False)
    def password_follows_policy(self, data, **_kwargs):
        if "new_password" in data:
            check_new_password(data["new_password"], data.get("email"), field="new_password")


class ChangePasswordSchema(BaseSchema):
    current_password = ma.fields.String(allow_none=True, load_default=None,
                                        validate=ma.validate.Length(max=MAX_LENGTH))
    new_password = ma.fields.String(required=True)
    revoke_tokens = ma.fields.Boolean(load_default=False, metadata={
        "description": "also revoke every personal access token (they outlive a password change otherwise)"})

    @validates("new_password")
    def new_password_follows_policy(self, value, **_kwargs):
        check_policy(value)


class ChangePasswordResultSchema(BaseSchema):
    message = ma.fields.String(required=True)
    access_token = ma.fields.String()
    token_type = ma.fields.String()


class ProfileUpdateSchema(BaseSchema):
    full_name = ma.fields.String(allow_none=True, validate=ma.validate.Length(max=FULL_NAME_MAX_LENGTH))
    profile_picture = ma.fields.String(allow_none=True)
    timezone = ma.fields.String()
    # Accepted for the browser client's sake; the address is not changed through this route.
    email = NormalizedEmail(load_only=True)

    @validates("profile_picture")
    def picture_is_an_image(self, value, **_kwargs):
        if value is None:
            return
        if len(value) > MAX_PICTURE_CHARS or not value.startswith(PICTURE_PREFIXES):
            raise ValidationError(_("Must be a base64 data URL of a PNG, JPEG, GIF or WebP image, "
                                    "or an https URL, of at most 3 MiB."))

    @validates("timezone")
    def timezone_exists(self, value, **_kwargs):
        if value not in _timezones():
            raise ValidationError(_("Unknown time zone."))


_TIMEZONES = set()


def _timezones():
    if not _TIMEZONES:
        _TIMEZONES.update(available_timezones() | {"UTC"})
    return _TIMEZONES


RECENT_SIGN_IN_NOTE = ("Optional: the current password. Without it the access token must come from a sign-in "
                       "less than RECENT_SIGN_IN_SECONDS old; when sent, it must be right.")


class DeleteAccountSchema(BaseSchema):
    confirmation_phrase = ma.fields.String(required=True)
    password = ma.fields.String(allow_none=True, load_default=None, validate=ma.validate.Length(max=1024),
                                metadata={"description": RECENT_SIGN_IN_NOTE})
    current_password = ma.fields.String(allow_none=True, load_default=None, validate=ma.validate.Length(max=1024),
                                        metadata={"description": "Another name of `password`"})


class OAuthLinkSchema(BaseSchema):
    provider = ma.fields.String()
    provider_user_id = ma.fields.String()
    linked_at = Timestamp()


class UserSchema(BaseSchema):
    id = ma.fields.String(required=True)
    email = ma.fields.String(required=True)
    full_name = ma.fields.String(allow_none=True)
    profile_picture = ma.fields.String(allow_none=True)
    timezone = ma.fields.String()
    role = ma.fields.String()
    is_active = ma.fields.Boolean()
    created_at = Timestamp()
    mfa_enabled = ma.fields.Boolean()
    subscription = ma.fields.Raw(allow_none=True)
    oauth_providers = ma.fields.List(ma.fields.Nested(OAuthLinkSchema))
    can_change_password = ma.fields.Boolean(attribute="has_usable_password")


class InstallationStatusSchema(BaseSchema):
    needs_setup = ma.fields.Boolean(required=True)
    user_count = ma.fields.Integer(required=True)


class AdminCountSchema(BaseSchema):
    count = ma.fields.Integer(required=True)


class NotificationsSchema(BaseSchema):
    """Which e-mails about comments the account receives (docs/comments.md, "Mentions")."""
    comment_mentions = ma.fields.Boolean(required=True, attribute="notify_comment_mentions",
                                         metadata={"description": "E-mail me when a comment mentions me"})
    comment_replies = ma.fields.Boolean(required=True, attribute="notify_comment_replies",
                                        metadata={"description": "E-mail me replies in threads I take part in"})


class JsonBoolean(ma.fields.Boolean):
    """`true` or `false` only: no "false" string, no 0 or 1."""

    def _deserialize(self, value, attr, data, **kwargs):
        if not isinstance(value, bool):
            raise self.make_error("invalid")
        return value


class NotificationsUpdateSchema(BaseSchema):
    """A partial update: the fields sent change, at least one."""
    comment_mentions = JsonBoolean()
    comment_replies = JsonBoolean()

    @validates_schema
    def _not_empty(self, data, **_kwargs):
        if not data:
            raise ValidationError(_("Send comment_mentions, comment_replies or both"))
