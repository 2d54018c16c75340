"""The two hashes of high-entropy secrets (docs/glossary.md, "Hashes"; docs/security.md).

- `keyed_hash`: HMAC-SHA-256 under the app's SECRET_KEY, for secrets only this deployment should be able
  to check: password-reset tokens, second-factor codes, a share grant's code fingerprint.
- `digest`: plain SHA-256, for personal tokens (`trz_...`): 256 random bits need no key and no slow hash,
  and the stored value stays checkable after a SECRET_KEY rotation.

Passwords are never hashed here: they use argon2id (core/accounts/passwords.py).
"""
import hashlib
import hmac

from flask import current_app


def keyed_hash(text):
    """Hex HMAC-SHA-256 of `text` under SECRET_KEY."""
    key = current_app.config["SECRET_KEY"].encode()
    return hmac.new(key, text.encode(), hashlib.sha256).hexdigest()


def digest(text):
    """Hex SHA-256 of `text` (UTF-8; a lone surrogate is hashed, not refused)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
