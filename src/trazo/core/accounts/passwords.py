"""Password hashing (argon2id), the password policy and one-time tokens (keyed by core/hashing.py)."""
import hmac
import re
import secrets
import threading

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from flask import current_app
from flask_babel import gettext as _
from marshmallow import ValidationError

from ..hashing import keyed_hash

SPECIAL_CHARACTERS = "!@#$%^&*()_+-=[]{}|;:',.<>?/~"
MIN_LENGTH, MAX_LENGTH = 12, 128


_slots = {}


def _hashing_slot():
    """A per-process bound on concurrent argon2 work: each hash holds ARGON2_MEMORY_COST KiB, so a burst
    of logins queues here instead of multiplying the worker's memory."""
    size = current_app.config["ARGON2_MAX_CONCURRENCY"]
    if size not in _slots:
        _slots[size] = threading.BoundedSemaphore(size)
    return _slots[size]


def _hasher():
    config = current_app.config
    return PasswordHasher(time_cost=config["ARGON2_TIME_COST"], memory_cost=config["ARGON2_MEMORY_COST"],
                          parallelism=config["ARGON2_PARALLELISM"])


def hash_password(password):
    with _hashing_slot():
        return _hasher().hash(password)


def verify_password(password_hash, password):
    """True when `password` matches; a missing or foreign hash never matches."""
    if not password_hash:
        return False
    try:
        with _hashing_slot():
            return _hasher().verify(password_hash, password)
    except (VerificationError, InvalidHashError):
        return False


def needs_rehash(password_hash):
    return _hasher().check_needs_rehash(password_hash)


_DUMMY = {}


def burn_verification_time(password):
    """Spend the time of one verification so unknown accounts answer as slowly as known ones."""
    key = tuple(sorted((k, v) for k, v in current_app.config.items() if k.startswith("ARGON2_")))
    if key not in _DUMMY:
        _DUMMY[key] = hash_password(secrets.token_hex(16))
    verify_password(_DUMMY[key], password)


def check_policy(password, email=None):
    """Raise ValidationError with every broken rule of the password policy."""
    problems = []
    if len(password) < MIN_LENGTH:
        problems.append(_("Password must be at least %(count)s characters long", count=MIN_LENGTH))
    if len(password) > MAX_LENGTH:
        problems.append(_("Password must be at most %(count)s characters long", count=MAX_LENGTH))
    if not re.search(r"[A-Z]", password):
        problems.append(_("Password must contain at least one uppercase letter"))
    if not re.search(r"[a-z]", password):
        problems.append(_("Password must contain at least one lowercase letter"))
    if not re.search(r"\d", password):
        problems.append(_("Password must contain at least one digit"))
    if not any(char in SPECIAL_CHARACTERS for char in password):
        problems.append(_("Password must contain at least one special character (%(chars)s)",
                          chars=SPECIAL_CHARACTERS))
    if email and password.strip().lower() == email.strip().lower():
        problems.append(_("Password must not be the same as the email"))
    if problems:
        raise ValidationError(problems)


def new_token():
    """A URL-safe single-use token and the hash we store for it."""
    token = secrets.token_urlsafe(32)
    return token, keyed_hash(token)


def same_hash(left, right):
    return bool(left) and bool(right) and hmac.compare_digest(left, right)
