"""SMTP servers on 127.0.0.1: a sink that keeps what it receives (aiosmtpd), one that refuses the first
messages, and one that never answers DATA."""
import email
import email.policy
import threading
import time

from aiosmtpd.controller import Controller

from .base import TcpServer, free_port


class _MailHandler:
    def __init__(self):
        self.messages = []
        self.lock = threading.Lock()

    async def handle_DATA(self, server, session, envelope):
        parsed = email.message_from_bytes(envelope.content, policy=email.policy.default)
        text = parsed.get_body(preferencelist=("plain",))
        html = parsed.get_body(preferencelist=("html",))
        with self.lock:
            self.messages.append({
                "from": envelope.mail_from, "to": list(envelope.rcpt_tos), "subject": str(parsed["Subject"]),
                "text": text.get_content() if text else "", "html": html.get_content() if html else "",
            })
        return "250 Message accepted for delivery"


class SmtpSink:
    """An SMTP server (aiosmtpd) that keeps what it receives."""

    def __init__(self):
        self.handler = _MailHandler()
        self.controller = Controller(self.handler, hostname="127.0.0.1", port=free_port())

    def start(self):
        self.controller.start()

    def stop(self):
        self.controller.stop()

    @property
    def port(self):
        return self.controller.port

    @property
    def messages(self):
        with self.handler.lock:
            return list(self.handler.messages)

    def clear(self):
        with self.handler.lock:
            self.handler.messages.clear()

    def to(self, address):
        return [m for m in self.messages if address in m["to"]]

    def wait_for(self, address, timeout=10):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = self.to(address)
            if found:
                return found[-1]
            time.sleep(0.05)
        raise AssertionError(f"no e-mail to {address} within {timeout}s")


class _RefusingHandler(_MailHandler):
    def __init__(self, refusals):
        super().__init__()
        self.refusals = refusals
        self.refused = 0

    async def handle_DATA(self, server, session, envelope):
        with self.lock:
            if self.refused < self.refusals:
                self.refused += 1
                return "554 5.7.1 Message refused"
        return await super().handle_DATA(server, session, envelope)


class RefusingSmtpSink(SmtpSink):
    """An SMTP sink that answers 554 to the first `refusals` messages, then keeps what it receives."""

    def __init__(self, refusals):
        self.handler = _RefusingHandler(refusals)
        self.controller = Controller(self.handler, hostname="127.0.0.1", port=free_port())

    @property
    def refused(self):
        with self.handler.lock:
            return self.handler.refused


class StallingSmtp(TcpServer):
    """An SMTP server that accepts the connection, the sender and the recipients, then never answers
    DATA: a client is caught mid-delivery. `data_requested` is set when a client reaches that point."""

    def __init__(self):
        super().__init__()
        self.data_requested = threading.Event()
        self.stopped = threading.Event()

    def serve(self, connection):
        with connection, connection.makefile("rb") as lines:
            connection.sendall(b"220 stalling.test ESMTP\r\n")
            for line in lines:
                verb = line[:4].upper()
                if verb == b"DATA":
                    self.data_requested.set()
                    self.stopped.wait()  # never answers
                    return
                if verb == b"QUIT":
                    connection.sendall(b"221 bye\r\n")
                    return
                connection.sendall(b"250 ok\r\n")

    def stop(self):
        self.stopped.set()
        super().stop()
