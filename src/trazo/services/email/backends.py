"""E-mail backends: `console` logs the message, `smtp` delivers it."""
import logging
import smtplib
from dataclasses import dataclass
from email.message import EmailMessage as MimeMessage
from email.utils import formatdate, make_msgid

from .. import outbound

log = logging.getLogger("trazo.email")


class EmailDeliveryError(RuntimeError):
    """The backend could not hand the message over."""


@dataclass(frozen=True)
class EmailMessage:
    """What a backend sends."""

    to: str
    subject: str
    text: str
    html: str | None = None


def to_mime(message, sender):
    mime = MimeMessage()
    mime["Subject"] = message.subject
    mime["From"] = sender
    mime["To"] = message.to
    mime["Date"] = formatdate(localtime=False)
    mime["Message-ID"] = make_msgid(domain=sender.rsplit("@", 1)[-1].strip("> ") or "localhost")
    mime.set_content(message.text)
    if message.html:
        mime.add_alternative(message.html, subtype="html")
    return mime


class ConsoleBackend:
    """Logs the message instead of sending it. Bodies carry reset links and sign-in codes, so only
    a development or test server (show_body) writes them; production logs recipient and subject."""

    name = "console"

    def __init__(self, sender, show_body=False):
        self.sender = sender
        self.show_body = show_body

    def send(self, message):
        if self.show_body:
            log.info("e-mail to %s: %s\n%s", message.to, message.subject, message.text)
        else:
            log.info("e-mail to %s: %s (body withheld: e-mail delivery is not configured)", message.to,
                     message.subject)


class SmtpBackend:
    """`timeout` bounds each socket operation, `deadline` the whole delivery (a server that
    trickles its replies never times out an operation)."""

    name = "smtp"

    def __init__(self, sender, host, port=25, username="", password="", starttls=False, timeout=15, deadline=30):
        self.sender = sender
        self.host, self.port = host, int(port)
        self.username, self.password = username, password
        self.starttls, self.timeout, self.deadline = starttls, timeout, deadline

    def send(self, message):
        try:
            with (outbound.deadline(self.deadline, integration="email"),
                  smtplib.SMTP(self.host, self.port, timeout=self.timeout) as smtp):
                if self.starttls:
                    smtp.starttls(context=outbound.ssl_context())
                if self.username:
                    smtp.login(self.username, self.password)
                smtp.send_message(to_mime(message, self.sender))
        except (OSError, smtplib.SMTPException) as exc:
            raise EmailDeliveryError(f"SMTP delivery to {self.host}:{self.port} failed: {exc}") from exc


def configured_backend(config):
    """The backend chosen by settings (EMAIL_BACKEND, SMTP_*)."""
    sender = config["MAIL_FROM"]
    if config["EMAIL_BACKEND"] == "smtp" and config["SMTP_HOST"]:
        return SmtpBackend(sender, config["SMTP_HOST"], config["SMTP_PORT"], config["SMTP_USERNAME"],
                           config["SMTP_PASSWORD"], config["SMTP_STARTTLS"], config["SMTP_TIMEOUT"],
                           config["EMAIL_TIMEOUT"])
    return ConsoleBackend(sender, show_body=not config["ENV_PRODUCTION"])
