"""The vendors an administrator can configure, their fields, validation and masking."""
from dataclasses import dataclass

from flask_babel import gettext as _

from ...core.crypto import mask
from ...core.vendors import EMAIL, OAUTH, PAYMENT
from ...errors import ValidationFailed

MASK_CHARACTER = "\u2022"
MASK_PREFIX = MASK_CHARACTER * 12
MAX_VALUE_LENGTH = 4096


@dataclass(frozen=True)
class Field:
    name: str
    required: bool = False
    secret: bool = False
    kind: str = "text"  # text | sender | url | host | port | flag

    @property
    def is_destination(self):
        """Where the vendor's secrets are sent (or, for a redirect URI, where its codes go)."""
        return self.kind in ("url", "host", "port")


@dataclass(frozen=True)
class VendorType:
    name: str
    category: str
    label: str
    fields: tuple

    def field(self, name):
        return next((field for field in self.fields if field.name == name), None)


CATALOG = {vendor.name: vendor for vendor in (
    VendorType("resend", EMAIL, "Resend", (
        Field("api_key", required=True, secret=True), Field("from_email", required=True, kind="sender"),
        Field("api_base", kind="url"))),
    VendorType("smtp", EMAIL, "SMTP", (
        Field("host", required=True, kind="host"), Field("port", kind="port"), Field("username"),
        Field("password", secret=True), Field("starttls", kind="flag"),
        Field("from_email", required=True, kind="sender"))),
    VendorType("stripe", PAYMENT, "Stripe", (
        Field("secret_key", required=True, secret=True), Field("publishable_key", required=True, secret=True),
        Field("webhook_secret", required=True, secret=True), Field("api_base", kind="url"))),
    VendorType("google", OAUTH, "Google", (
        Field("client_id", required=True), Field("client_secret", required=True, secret=True),
        Field("redirect_uri", required=True, kind="url"), Field("allowed_scopes"), Field("metadata_url", kind="url"))),
    VendorType("github", OAUTH, "GitHub", (
        Field("client_id", required=True), Field("client_secret", required=True, secret=True),
        Field("redirect_uri", required=True, kind="url"), Field("oauth_base", kind="url"),
        Field("api_base", kind="url"))),
)}


def vendor_type(name, category=None):
    """The catalog entry of `name`; 422 when unknown or not of `category`."""
    found = CATALOG.get(name)
    if found is None:
        raise ValidationFailed("vendor_type", _("Unknown vendor type. Known types: %(types)s",
                                                types=", ".join(sorted(CATALOG))))
    if category is not None and found.category != category:
        raise ValidationFailed("category", _("%(vendor)s belongs to the %(category)s category",
                                             vendor=found.label, category=found.category))
    return found


def masked_config(kind, config):
    """Each secret as twelve bullets and its last 4 characters (nothing of a short one): the browser client
    skips values starting with a bullet when it saves, so a masked value sent back never overwrites it."""
    return {name: _shown(kind.field(name), value) for name, value in config.items()}


def _shown(field, value):
    secret = field and field.secret and value not in (None, "")
    return mask(value, head=0, tail=4, cover=MASK_PREFIX, short_cover=MASK_PREFIX) if secret else value


def _clean_value(field, value):
    """The stored form of one value, or raise a 422 naming the field."""
    def invalid(message):
        error = ValidationFailed("config", message)
        error.detail[0]["loc"].append(field.name)
        return error

    if field.kind == "flag":
        if isinstance(value, bool):
            return value
        if str(value).strip().lower() in ("true", "1", "yes", "on", "false", "0", "no", "off"):
            return str(value).strip().lower() in ("true", "1", "yes", "on")
        raise invalid(_("Not a valid boolean."))
    if field.kind == "port":
        try:
            port = int(value)
        except (TypeError, ValueError):
            port = 0
        if isinstance(value, bool) or not 1 <= port <= 65535:
            raise invalid(_("Must be a port number between 1 and 65535."))
        return port
    if not isinstance(value, str | int | float) or isinstance(value, bool):
        raise invalid(_("Not a valid string."))
    text = str(value).strip()
    if len(text) > MAX_VALUE_LENGTH:
        raise invalid(_("Must be at most %(count)s characters long.", count=MAX_VALUE_LENGTH))
    if field.kind == "url" and not text.startswith(("https://", "http://")):
        raise invalid(_("Must be an http or https URL."))
    if field.kind == "sender" and "@" not in text:
        raise invalid(_("Must be an e-mail address, optionally with a name: Name <address@example.com>."))
    return text


def missing_fields(kind, config):
    """The required fields `config` lacks (secrets cleared by a change of address among them)."""
    return [field.name for field in kind.fields if field.required and config.get(field.name) in (None, "")]


def _destination(kind, config):
    return {field.name: config.get(field.name) for field in kind.fields if field.is_destination}


def merged_config(kind, submitted, current=None):
    """`current` updated with `submitted`: unknown keys dropped, null or "" removes an optional key,
    a masked value sent back leaves the secret as it is. A changed host or URL clears every secret
    not entered again in the same request: a secret only ever goes where it was entered for.
    422 when this change leaves a required field missing (cleared secrets aside)."""
    config = dict(current or {})
    entered = set()
    for name, value in (submitted or {}).items():
        field = kind.field(name)
        if field is None:
            continue
        if value is None or (isinstance(value, str) and not value.strip()):
            config.pop(name, None)
            continue
        if field.secret and isinstance(value, str) and value.startswith(MASK_CHARACTER):
            continue
        config[name] = _clean_value(field, value)
        entered.add(name)
    cleared = set()
    if current is not None and _destination(kind, config) != _destination(kind, current):
        cleared = {field.name for field in kind.fields if field.secret and field.name not in entered}
        for name in cleared:
            config.pop(name, None)
    already_missing = set(missing_fields(kind, current)) if current is not None else set()
    missing = [name for name in missing_fields(kind, config) if name not in cleared | already_missing]
    if missing:
        raise ValidationFailed("config", _("Missing required fields for %(vendor)s: %(fields)s",
                                           vendor=kind.name, fields=", ".join(missing)))
    return config
