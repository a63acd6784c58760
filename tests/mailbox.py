"""A real SMTP server for the suite (aiosmtpd on a free port, in a thread of the test process):
the site's mails are sent to it by Django's SMTP backend — from the test process or from the
real worker — and read back here. It can be stopped and started again on the same port (the
SMTP server down for a while), and it refuses, for good (550), every recipient at
`refused.example` (an address that does not exist)."""

from __future__ import annotations

import email
import email.policy
import threading
import time
from dataclasses import dataclass
from email.message import EmailMessage

from aiosmtpd.controller import Controller

from harness import free_port

REFUSED_DOMAIN = "refused.example"


@dataclass
class Received:
    to: list[str]
    message: EmailMessage

    @property
    def subject(self) -> str:
        # A subject with a letter outside ASCII ("lunedì") is sent as an encoded word on a
        # folded line of its own ("Subject:" then " =?utf-8?q?…?="), which `email`'s parser
        # reads with the fold's space in front; a mail reader shows it without.
        return str(self.message["Subject"]).strip()

    def part(self, kind: str) -> str:
        found = self.message.get_body(preferencelist=(kind,))
        return found.get_content() if found is not None else ""

    @property
    def text(self) -> str:
        return self.part("plain")

    @property
    def html(self) -> str:
        return self.part("html")


class _Handler:
    def __init__(self, box: Mailbox) -> None:
        self.box = box

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address.lower().endswith("@" + REFUSED_DOMAIN):
            return "550 5.1.1 No such mailbox"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        with self.box.lock:
            self.box.received.append(Received(list(envelope.rcpt_tos), message))
        return "250 Message accepted"


class Mailbox:
    def __init__(self) -> None:
        self.port = free_port()
        self.host = "127.0.0.1"
        self.lock = threading.Lock()
        self.received: list[Received] = []
        self._controller: Controller | None = None

    def start(self) -> None:
        self._controller = Controller(_Handler(self), hostname=self.host, port=self.port)
        self._controller.start()

    def ensure_started(self) -> None:
        if self._controller is None:
            self.start()

    def stop(self) -> None:
        if self._controller is not None:
            self._controller.stop()
            self._controller = None

    def clear(self) -> None:
        with self.lock:
            self.received.clear()

    def to(self, address: str) -> list[Received]:
        with self.lock:
            return [r for r in self.received if address in r.to]

    def wait_for(self, address: str, count: int = 1, timeout: float = 20.0) -> list[Received]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = self.to(address)
            if len(found) >= count:
                return found
            time.sleep(0.05)
        raise TimeoutError(f"{count} mail(s) to {address} not received in {timeout}s")

    def settings(self) -> dict:
        """Django settings that send to this server."""
        return {
            "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "EMAIL_HOST": self.host,
            "EMAIL_PORT": self.port,
            "EMAIL_USE_TLS": False,
            "EMAIL_USE_SSL": False,
            "EMAIL_HOST_USER": "",
            "EMAIL_HOST_PASSWORD": "",
            "EMAIL_TIMEOUT": 5,
        }
