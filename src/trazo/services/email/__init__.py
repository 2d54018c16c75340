"""Outgoing e-mail: localized templates, a pluggable backend, delivery off the request thread."""
from .delivery import EmailMessage, send_email, send_template

__all__ = ["EmailMessage", "send_email", "send_template"]
