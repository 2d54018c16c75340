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


def mask(plaintext):
    """`sk-a...xyz` from the plaintext; short secrets are fully hidden."""
    if not plaintext:
        return ""
    if len(plaintext) <= 8:
        return "***"
    return f"{plaintext[:4]}...{plaintext[-3:]}"
