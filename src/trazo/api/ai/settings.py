"""Per-user AI settings: provider entries (addressed by index), default provider, auto-fix.

Every write locks the user's settings row first, so two requests never edit the list by index
at the same time; API keys are encrypted and shown only as a mask of the plaintext.
"""
from dataclasses import dataclass

from flask_babel import gettext as _
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError

from ...core import crypto
from ...core.ai.calls import AIProviderError, ProviderConfig, probe
from ...core.ai.providers import entry_at, provider_entries
from ...errors import NotFound, ValidationFailed
from ...extensions import db
from ...models.ai import AIProvider, AISettings
from ...services.ai.catalog import PROVIDER_TYPES
from .schemas import MIN_KEY_LENGTH


@dataclass(frozen=True)
class ListedProvider:
    """A provider entry and its index in the user's list (the address the routes use)."""

    index: int
    entry: AIProvider


@dataclass(frozen=True)
class ProviderSettings:
    """The settings row, the provider entries in list order and the default entry's provider type."""

    settings: AISettings
    providers: list
    default_provider: str | None


def _ensure_settings(user, lock=False):
    """The user's settings row, created with the defaults on first use (race-safe)."""
    for _attempt in range(2):
        statement = select(AISettings).where(AISettings.user_id == user.id)
        found = db.session.scalar(statement.with_for_update() if lock else statement)
        if found is not None:
            return found
        db.session.add(AISettings(user_id=user.id))
        try:
            db.session.commit()
        except IntegrityError:
            db.session.rollback()  # created by a concurrent request: read it again
    return db.session.scalar(select(AISettings).where(AISettings.user_id == user.id))


def read_settings(user):
    """The user's settings (created on first read) and provider entries."""
    settings = _ensure_settings(user)
    entries = provider_entries(user)
    default = next((entry for entry in entries if entry.is_default), None)
    return ProviderSettings(settings, [ListedProvider(index, entry) for index, entry in enumerate(entries)],
                            default.provider if default else None)


def _make_default(entries, chosen):
    for entry in entries:
        entry.is_default = entry is chosen


def _keep_one_default(entries):
    if entries and not any(entry.is_default for entry in entries):
        _make_default(entries, next((entry for entry in entries if entry.is_active), entries[0]))


def _commit_and_read(user):
    db.session.commit()
    return read_settings(user)


def _config_from(data):
    spec = PROVIDER_TYPES[data["provider"]]
    return ProviderConfig(provider=spec.name, api_key=data.get("api_key") or "",
                          model=data.get("model") or spec.recommended_model,
                          base_url=data.get("base_url") if spec.base_url_setting is None else None)


def add_provider(user, data):
    """Validate the key against the provider, then append the entry (the first one is the default)."""
    config = _config_from(data)
    db.session.close()  # the provider may take AI_TIMEOUT seconds: hold no pooled connection meanwhile
    probe(config)  # a key, model or server the provider refuses is answered with the provider's reason
    _ensure_settings(user, lock=True)
    entries = provider_entries(user, lock=True)
    position = (db.session.scalar(select(func.max(AIProvider.position))
                                  .where(AIProvider.user_id == user.id)) or 0) + 1
    entry = AIProvider(user_id=user.id, position=position, provider=config.provider,
                       api_key_encrypted=crypto.encrypt(config.api_key), api_key_mask=crypto.mask(config.api_key),
                       model=config.model, base_url=config.base_url, display_name=data.get("display_name"),
                       parameters=data.get("parameters") or {}, is_active=data.get("is_active", True),
                       is_default=False)
    db.session.add(entry)
    entries.append(entry)
    if data.get("is_default") or len(entries) == 1:
        _make_default(entries, entry)
    return _commit_and_read(user)


def update_provider(user, provider_index, data):
    """Change the sent fields; a new key, model or server is validated with the provider first."""
    entry = entry_at(provider_entries(user), provider_index)
    entry_id = entry.id
    spec = PROVIDER_TYPES[entry.provider]
    new_key = data.get("api_key")
    if new_key is not None and spec.key_required and len(new_key) < MIN_KEY_LENGTH:
        raise ValidationFailed("api_key", _("The API key must have at least %(count)s characters.",
                                            count=MIN_KEY_LENGTH))
    model = data.get("model") or entry.model
    base_url = (data.get("base_url") or entry.base_url) if spec.base_url_setting is None else None
    changed = new_key is not None or model != entry.model or base_url != entry.base_url
    key = new_key if new_key is not None else crypto.decrypt(entry.api_key_encrypted)
    db.session.close()  # no connection held (nor lock taken) during the probe, which may take seconds
    if changed:
        probe(ProviderConfig(entry.provider, key, model, base_url))
    _ensure_settings(user, lock=True)
    entries = provider_entries(user, lock=True)
    entry = entry_at(entries, provider_index)
    if entry.id != entry_id:  # the list changed meanwhile: never edit another entry than the one probed
        raise NotFound(_("Provider at index %(index)s not found", index=provider_index))
    if new_key is not None:
        entry.api_key_encrypted, entry.api_key_mask = crypto.encrypt(new_key), crypto.mask(new_key)
    entry.model, entry.base_url = model, base_url
    for field in ("display_name", "parameters", "is_active"):
        if field in data:
            setattr(entry, field, data[field] if field != "parameters" else data[field] or {})
    if data.get("is_default"):
        _make_default(entries, entry)
    elif data.get("is_default") is False and entry.is_default:
        entry.is_default = False
        _keep_one_default([other for other in entries if other is not entry] or entries)
    return _commit_and_read(user)


def delete_provider(user, provider_index):
    """Remove the entry; when it was the default, the first remaining entry takes over."""
    _ensure_settings(user, lock=True)
    entries = provider_entries(user, lock=True)
    entry = entry_at(entries, provider_index)
    db.session.delete(entry)
    _keep_one_default([other for other in entries if other is not entry])
    return _commit_and_read(user)


def set_default_provider(user, provider):
    """Make the first entry of this type (an active one when there is one) the default."""
    _ensure_settings(user, lock=True)
    entries = provider_entries(user, lock=True)
    candidates = [entry for entry in entries if entry.provider == provider]
    if not candidates:
        raise NotFound(_("Provider %(provider)s not configured for user", provider=provider))
    _make_default(entries, next((entry for entry in candidates if entry.is_active), candidates[0]))
    return _commit_and_read(user)


def set_auto_fix(user, enabled):
    settings = _ensure_settings(user, lock=True)
    settings.auto_fix_generated = enabled
    return _commit_and_read(user)


def test_provider(data):
    """Try a key without saving it; the outcome is always an answer, never an error status."""
    config = _config_from(data)
    db.session.close()
    try:
        probe(config)
    except AIProviderError as exc:
        # The client knows five codes: a timeout is reported as a provider error, with its own message.
        code = "provider_error" if exc.code == "timeout" else exc.code
        return {"valid": False, "message": exc.message, "provider_name": config.provider, "error_code": code}
    return {"valid": True, "message": _("API key is valid"), "provider_name": config.provider,
            "error_code": None}
