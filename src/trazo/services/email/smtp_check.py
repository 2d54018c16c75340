"""A connection check for an SMTP server: connect, EHLO, STARTTLS when asked, log in when a user is set."""
import smtplib

from .. import outbound
from .backends import EmailDeliveryError


def check_smtp(host, port=25, username="", password="", starttls=False, timeout=10, deadline=30):
    """Return None when the server accepts us; raise EmailDeliveryError saying what failed.
    `timeout` bounds each socket operation, `deadline` the whole check."""
    try:
        with outbound.deadline(deadline, integration="email"), smtplib.SMTP(host, int(port), timeout=timeout) as smtp:
            code, _banner = smtp.ehlo()
            if code != 250:
                raise EmailDeliveryError(f"{host}:{port} refused EHLO ({code})")
            if starttls:
                smtp.starttls(context=outbound.ssl_context())
                smtp.ehlo()
            if username:
                smtp.login(username, password or "")
    except smtplib.SMTPAuthenticationError as exc:
        raise EmailDeliveryError(f"{host}:{port} refused the credentials ({exc.smtp_code})") from exc
    except (OSError, smtplib.SMTPException) as exc:
        raise EmailDeliveryError(f"{host}:{port} is not usable: {exc.__class__.__name__}: {exc}"[:300]) from exc
