"""The stored AI settings a call reads: the user's provider entries (addressed by their index in the
list), the provider a call uses, and whether generated code is repaired automatically."""
import re

from flask_babel import gettext as _
from sqlalchemy import select

from ...errors import BadRequest, NotFound
from ...extensions import db
from ...models.ai import AIProvider, AISettings
from ...services.ai.catalog import PROVIDER_TYPES
from ...services.ai.client import ProviderConfig
from .. import crypto

INDEX = re.compile(r"^\d{1,6}$")


def provider_entries(user, lock=False):
    """The user's provider entries in list order (an entry's index is its place in this list)."""
    statement = (select(AIProvider).where(AIProvider.user_id == user.id)
                 .order_by(AIProvider.position, AIProvider.id))
    return list(db.session.scalars(statement.with_for_update() if lock else statement))


def _parse_index(provider_index):
    if isinstance(provider_index, int) and not isinstance(provider_index, bool):
        return provider_index if provider_index >= 0 else None
    text = str(provider_index)
    return int(text) if INDEX.match(text) else None


def entry_at(entries, provider_index):
    """The entry at `provider_index` (an int, or the text of the URL), else NotFound."""
    index = _parse_index(provider_index)
    if index is None or index >= len(entries):
        raise NotFound(_("Provider at index %(index)s not found", index=provider_index))
    return entries[index]


def _config(entry, model=None):
    return ProviderConfig(provider=entry.provider, api_key=crypto.decrypt(entry.api_key_encrypted),
                          model=model or entry.model, base_url=entry.base_url)


class NoActiveProvider(NotFound):
    """No active provider can answer: none at all, or none of the requested type (`provider`).

    A 404, so the browser client opens its "add a provider" dialog.
    """

    def __init__(self, detail, provider=None):
        super().__init__(detail)
        self.provider = provider


def resolve_provider(user, provider_index=None, provider=None, short_text=False):
    """The config to call: the entry at `provider_index`, else the first active entry of type
    `provider`, else the default (or first active) entry. 404 for an index out of range and when
    no active provider fits (`short_text` words that without the hint about the settings)."""
    entries = provider_entries(user)
    if provider_index is not None:
        entry = entry_at(entries, provider_index)
        if not entry.is_active:
            raise BadRequest(_("The AI provider at index %(index)s is disabled.", index=provider_index))
        return _config(entry)
    active = [entry for entry in entries if entry.is_active]
    if provider is not None:
        active = [entry for entry in active if entry.provider == provider]
        if not active:
            raise NoActiveProvider(_("No active %(provider)s provider is configured. Add it in the AI settings.",
                                     provider=PROVIDER_TYPES[provider].label if provider in PROVIDER_TYPES
                                     else provider), provider)
    if not active:
        raise NoActiveProvider(_("No active AI provider configured.") if short_text else
                               _("No active AI provider configured. Please add an API key in settings."))
    return _config(next((entry for entry in active if entry.is_default), active[0]))


def auto_fix_enabled(user):
    """Whether code that fails the syntax check is sent back once for repair (on until turned off)."""
    settings = db.session.scalar(select(AISettings).where(AISettings.user_id == user.id))
    return True if settings is None else settings.auto_fix_generated
