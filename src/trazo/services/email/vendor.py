"""The e-mail backend chosen by an administrator in the integrations area, when there is one."""
import logging

from flask import current_app

from ...core.crypto import DecryptionError
from ...core.vendors import active_vendor_config
from .backends import SmtpBackend
from .resend import ResendBackend

log = logging.getLogger("trazo.email")


def active_email_backend():
    """The backend of the default e-mail vendor, or None (then the settings decide)."""
    try:
        active = active_vendor_config("email")
    except DecryptionError:
        log.exception("the default e-mail vendor cannot be decrypted with ENCRYPTION_KEYS; using the settings")
        return None
    if active is None:
        return None
    vendor_type, config = active
    deadline = current_app.config["EMAIL_TIMEOUT"]
    if vendor_type == "resend":
        return ResendBackend(config["from_email"], config["api_key"], config.get("api_base"), deadline)
    return SmtpBackend(config["from_email"], config["host"], config.get("port", 25), config.get("username", ""),
                       config.get("password", ""), config.get("starttls", False), current_app.config["SMTP_TIMEOUT"],
                       deadline)
