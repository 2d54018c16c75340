"""Rendering and sending. Delivery runs on a small thread pool so a slow mail server never
slows a request, and known and unknown addresses answer alike."""
import logging
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from flask import current_app, render_template
from flask_babel import force_locale, get_locale

from .backends import EmailDeliveryError, configured_backend
from .vendor import active_email_backend

log = logging.getLogger("trazo.email")
_pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="email")


@dataclass(frozen=True)
class EmailMessage:
    to: str
    subject: str
    text: str
    html: str | None = None


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
