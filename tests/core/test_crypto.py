"""Secrets at rest rotate across ENCRYPTION_KEYS and are masked from the plaintext."""
import base64

import pytest

from trazo import create_app
from trazo.core import crypto


def _key(byte):
    return base64.urlsafe_b64encode(bytes([byte]) * 32).decode()


def test_encryption_round_trip_rotation_and_masking(app_env):
    old_app = create_app(env={**app_env, "ENCRYPTION_KEYS": _key(1)})
    with old_app.app_context():
        token = crypto.encrypt("sk-abcdef0123456789xyz")
    rotated_app = create_app(env={**app_env, "ENCRYPTION_KEYS": f"{_key(2)},{_key(1)}"})
    with rotated_app.app_context():
        assert crypto.decrypt(token) == "sk-abcdef0123456789xyz"
        fresh = crypto.rotate(token)
        assert crypto.decrypt_json(crypto.encrypt_json({"a": 1})) == {"a": 1}
    new_only = create_app(env={**app_env, "ENCRYPTION_KEYS": _key(2)})
    with new_only.app_context():
        assert crypto.decrypt(fresh) == "sk-abcdef0123456789xyz"
        with pytest.raises(crypto.DecryptionError):
            crypto.decrypt(token)
    assert crypto.mask("sk-abcdef0123456789xyz") == "sk-a...xyz"
    assert crypto.mask("short") == "***" and crypto.mask("") == ""
