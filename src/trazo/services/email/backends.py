"""E-mail backends: `console` logs the message, `smtp` delivers it."""
import logging
import smtplib
from email.message import EmailMessage as MimeMessage
from email.utils import formatdate, make_msgid

log = logging.getLogger("trazo.email")


class EmailDeliveryError(RuntimeError):
    """The backend could not hand the message over."""


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
    name = "console"

    def __init__(self, sender):
        self.sender = sender

    def send(self, message):
        log.info("e-mail to %s: %s\n%s", message.to, message.subject, message.text)


class SmtpBackend:
    name = "smtp"

    def __init__(self, sender, host, port=25, username="", password="", starttls=False, timeout=15):
        self.sender = sender
        self.host, self.port = host, int(port)
        self.username, self.password = username, password
        self.starttls, self.timeout = starttls, timeout

    def send(self, message):
        try:
            with smtplib.SMTP(self.host, self.port, timeout=self.timeout) as smtp:
                if self.starttls:
                    smtp.starttls()
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
                           config["SMTP_PASSWORD"], config["SMTP_STARTTLS"], config["SMTP_TIMEOUT"])
    return ConsoleBackend(sender)
