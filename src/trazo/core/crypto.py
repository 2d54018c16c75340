"""Secrets at rest: Fernet through MultiFernet (ENCRYPTION_KEYS, first key encrypts) and masking."""
import json

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from flask import current_app


class DecryptionError(RuntimeError):
    """A stored secret cannot be decrypted with any configured key."""


def _cipher():
    keys = current_app.config["ENCRYPTION_KEYS"]
    return MultiFernet([Fernet(key.encode() if isinstance(key, str) else key) for key in keys])


def encrypt(plaintext):
    return _cipher().encrypt(plaintext.encode()).decode()


def decrypt(token):
    try:
        return _cipher().decrypt(token.encode()).decode()
    except InvalidToken as exc:
        raise DecryptionError("stored secret cannot be decrypted with ENCRYPTION_KEYS") from exc


def encrypt_json(value):
    return encrypt(json.dumps(value, separators=(",", ":"), sort_keys=True))


def decrypt_json(token):
    return json.loads(decrypt(token))


def rotate(token):
    """Re-encrypt with the first (newest) key."""
    return _cipher().rotate(token.encode()).decode()


SHORT_SECRET = 8  # characters: a secret this short shows none of them


def mask(plaintext, *, head=4, tail=3, cover="...", short_cover="***"):
    """The one masking rule for a secret shown back to its owner (docs/glossary.md, "Mask"): "" for no
    secret, `short_cover` for a short one, else its first `head` and last `tail` characters around
    `cover`. AI keys use the defaults (`sk-a...xyz`); vendor settings show twelve bullets and the last 4
    (api/integrations/catalog.py), which the browser client knows not to save back."""
    text = "" if plaintext is None else str(plaintext)
    if not text:
        return ""
    if len(text) <= SHORT_SECRET:
        return short_cover
    return text[:head] + cover + text[len(text) - tail:]
