"""Sending e-mail: the backend in force (an admin-configured vendor, else the settings), localized
templates, and delivery on a small thread pool so a slow mail server never slows a request and known
and unknown addresses answer alike. The transports themselves are in services/email."""
import logging
from concurrent.futures import ThreadPoolExecutor

from flask import current_app, render_template
from flask_babel import force_locale, get_locale

from ..services.email.backends import EmailDeliveryError, EmailMessage, SmtpBackend, configured_backend
from ..services.email.resend import ResendBackend
from .crypto import DecryptionError
from .vendors import EMAIL, active_vendor_config

log = logging.getLogger("trazo.email")
_pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="email")


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


def send_email(message):
    """Send now in tests (EMAIL_ASYNC false), otherwise in the background; failures are logged."""
    chosen = backend()
    if not current_app.config["EMAIL_ASYNC"]:
        _deliver(chosen, message)
        return
    _pool.submit(_deliver, chosen, message)


def _deliver(chosen, message):
    try:
        chosen.send(message)
    except EmailDeliveryError:
        log.exception("e-mail to %s was not delivered", message.to)


def send_template(to, template, subject, language=None, **context):
    """Render templates/email/<template>.txt and .html in the caller's (or the given) language."""
    language = language or str(get_locale() or current_app.config["DEFAULT_LANGUAGE"])
    with force_locale(language):
        text = render_template(f"email/{template}.txt", **context)
        html = render_template(f"email/{template}.html", **context)
        send_email(EmailMessage(to=to, subject=str(subject), text=text, html=html))
