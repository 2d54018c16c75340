"""Composing e-mail: localized templates written to the outbox in the caller's transaction (core/mail/outbox.py),
and the backend in force (an admin-configured vendor, else the settings). Delivery is core/mail/delivery.py,
the transports are in services/email; docs/operations.md ("E-mail outbox") tells the story.
"""

import logging

from flask import current_app, render_template
from flask_babel import force_locale, get_locale

from ...services.email.backends import EmailMessage, SmtpBackend, configured_backend
from ...services.email.resend import ResendBackend
from ..crypto import DecryptionError
from ..vendors import EMAIL, active_vendor_config
from . import outbox

log = logging.getLogger("trazo.email")


def active_email_backend():
    """The backend of the default e-mail vendor, or None (then the settings decide)."""
    try:
        active = active_vendor_config(EMAIL)
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


def backend():
    """The active backend: an admin-configured vendor when one is active, else the settings."""
    return active_email_backend() or configured_backend(current_app.config)


def send_template(to, template, subject, language=None, **context):
    """Render templates/email/<template>.txt and .html in the caller's (or the given) language into the
    outbox, in the caller's transaction: the message leaves after the caller commits, never if it rolls
    back. Call it before the commit of the action it reports."""
    language = language or str(get_locale() or current_app.config["DEFAULT_LANGUAGE"])
    with force_locale(language):
        text = render_template(f"email/{template}.txt", **context)
        html = render_template(f"email/{template}.html", **context)
    outbox.enqueue(EmailMessage(to=to, subject=str(subject), text=text, html=html))
