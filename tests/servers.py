"""Real servers on 127.0.0.1 that the tests talk to (no patched functions)."""
import email
import email.policy
import socket
import threading
import time
from http.server import ThreadingHTTPServer

from aiosmtpd.controller import Controller


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class LocalHttpServer:
    """A threaded HTTP server on 127.0.0.1 (a free port) answering with `handler_class`."""

    def __init__(self, handler_class):
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler_class)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def origin(self):
        return f"http://127.0.0.1:{self.httpd.server_port}"

    def start(self):
        self.thread.start()
        return self

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()


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
