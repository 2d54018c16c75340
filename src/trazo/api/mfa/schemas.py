"""MFA schemas, one per direction."""
import marshmallow as ma

from ...core.accounts.factors import METHODS
from ..common import BaseSchema, PageQuerySchema, PageSchema, Timestamp

MAX_TOKEN_LENGTH = 4096


def _method(**kwargs):
    return ma.fields.String(validate=ma.validate.OneOf(METHODS), **kwargs)


class SixDigitCode(ma.fields.String):
    """A 6-digit code; spaces are ignored (`123 456`)."""

    def __init__(self, **kwargs):
        super().__init__(validate=ma.validate.Regexp(r"^\d{6}$"), **kwargs)

    def _deserialize(self, value, attr, data, **kwargs):
        value = super()._deserialize(value, attr, data, **kwargs)
        return "".join(value.split())


# -- the login step --------------------------------------------------------------------

class LoginStepSchema(BaseSchema):
    mfa_token = ma.fields.String(required=True, validate=ma.validate.Length(min=1, max=MAX_TOKEN_LENGTH))


class VerifySchema(LoginStepSchema):
    code = ma.fields.String(required=True, validate=ma.validate.Length(min=1, max=64))
    method = _method(allow_none=True, load_default=None)
    is_recovery_code = ma.fields.Boolean(load_default=False)


class SwitchMethodSchema(LoginStepSchema):
    method = _method(required=True)


class VerifyResultSchema(BaseSchema):
    access_token = ma.fields.String(required=True)
    token_type = ma.fields.String(required=True)
    recovery_warning = ma.fields.String()


class SwitchResultSchema(BaseSchema):
    message = ma.fields.String(required=True)
    method = ma.fields.String()


class ResendResultSchema(BaseSchema):
    message = ma.fields.String(required=True)
    resends_remaining = ma.fields.Integer(required=True)


# -- the user's settings ---------------------------------------------------------------

class StatusSchema(BaseSchema):
    enabled = ma.fields.Boolean(required=True, attribute="mfa_enabled")
    methods = ma.fields.List(ma.fields.String(), required=True, attribute="mfa_methods")
    default_method = ma.fields.String(allow_none=True, attribute="mfa_default_method")
    recovery_codes_remaining = ma.fields.Integer(required=True)


class TotpSetupSchema(BaseSchema):
    qr_code_base64 = ma.fields.String(required=True, metadata={"description": "PNG image, base64"})
    secret_key = ma.fields.String(required=True, metadata={"description": "Base32 secret for manual entry"})


class IdentitySchema(BaseSchema):
    """Every change of the MFA settings: the current password, unless the sign-in is recent."""

    password = ma.fields.String(
        allow_none=True, load_default=None, validate=ma.validate.Length(max=1024),
        metadata={"description": "Optional: the current password. Without it the access token must come from a "
                                 "sign-in less than RECENT_SIGN_IN_SECONDS old; when sent, it must be right."})


class ActivationSchema(IdentitySchema):
    code = SixDigitCode(required=True)
    set_as_default = ma.fields.Boolean(load_default=True)


class ActivationResultSchema(BaseSchema):
    message = ma.fields.String(required=True)
    codes = ma.fields.List(ma.fields.String(), allow_none=True,
                           metadata={"description": "New recovery codes, shown only this once"})


class DisableSchema(IdentitySchema):
    method = _method(required=True)


class RecoveryCodesSchema(BaseSchema):
    codes = ma.fields.List(ma.fields.String(), required=True)


class DefaultMethodSchema(IdentitySchema):
    method = _method(required=True)


# -- administrators --------------------------------------------------------------------

class AdminUsersQuerySchema(PageQuerySchema):
    search = ma.fields.String(load_default="", validate=ma.validate.Length(max=200))


class AdminSearchQuerySchema(BaseSchema):
    search = ma.fields.String(load_default="", validate=ma.validate.Length(max=200))


class ConnectedModelSchema(BaseSchema):
    provider = ma.fields.String()
    model = ma.fields.String()
    is_default = ma.fields.Boolean()
    is_active = ma.fields.Boolean()
    display_name = ma.fields.String(allow_none=True)


class AdminUserSchema(BaseSchema):
    id = ma.fields.String(required=True)
    email = ma.fields.String(required=True)
    full_name = ma.fields.String(allow_none=True)
    role = ma.fields.String()
    is_active = ma.fields.Boolean()
    mfa_enabled = ma.fields.Boolean()
    mfa_methods = ma.fields.List(ma.fields.String())
    mfa_default_method = ma.fields.String(allow_none=True)
    recovery_codes_remaining = ma.fields.Integer()
    created_at = Timestamp()
    last_login_at = Timestamp(allow_none=True)
    plan_name = ma.fields.String(allow_none=True)
    project_count = ma.fields.Integer()
    diagram_count = ma.fields.Integer()
    diagram_type_counts = ma.fields.Dict(keys=ma.fields.String(), values=ma.fields.Integer())
    connected_ai_models = ma.fields.List(ma.fields.Nested(ConnectedModelSchema))


class AdminUsersPageSchema(PageSchema):
    items = ma.fields.List(ma.fields.Nested(AdminUserSchema), required=True)
