"""The attacker's two clients, on loopback only: a websocket (bench.live's RFC 6455 client, with
what an attacker needs besides JSON text) and a small HTTP client with cookies and CSRF.

No dependency beyond the standard library: http.client for HTTP, asyncio streams for sockets.
"""

from __future__ import annotations

import asyncio
import base64
import http.client
import json
import os
import re
import struct
import urllib.parse
from dataclasses import dataclass, field
from typing import Any

from bench.live import Socket

# The site may answer a hostile value with a long header (a redirect to it): read it all.
http.client._MAXLINE = 4 * 1024 * 1024

TEXT, BINARY, CLOSE, PING, PONG, CONTINUATION = 0x1, 0x2, 0x8, 0x9, 0xA, 0x0


class HandshakeRefused(ConnectionError):
    def __init__(self, status: bytes) -> None:
        super().__init__(f"handshake refused: {status!r}")
        self.status = status


class AttackSocket(Socket):
    """bench.live.Socket plus: any frame (binary, raw text, fragments), an Origin of one's
    choosing, answers to the server's keep-alive pings, a reader task that queues messages (a
    timeout never cuts a frame in half), the close code the server sent, and an abrupt close."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        super().__init__(reader, writer)
        self.queue: asyncio.Queue[dict | str | None] = asyncio.Queue()
        self.close_code: int | None = None
        self.closed = False
        self.port = 0
        self._task: asyncio.Task | None = None

    @classmethod
    async def open(
        cls,
        port: int,
        path: str,
        cookie: str = "",
        *,
        origin: str | None = None,
        timeout: float = 10.0,
    ) -> AttackSocket:
        """Connect and start reading. `origin` None: the site's own (as a browser on it)."""
        reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        origin = f"http://127.0.0.1:{port}" if origin is None else origin
        lines = [
            f"GET {path} HTTP/1.1",
            f"Host: 127.0.0.1:{port}",
            "Upgrade: websocket",
            "Connection: Upgrade",
            f"Sec-WebSocket-Key: {key}",
            "Sec-WebSocket-Version: 13",
        ]
        if origin:
            lines.append(f"Origin: {origin}")
        if cookie:
            lines.append(f"Cookie: {cookie}")
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
        try:
            status = await asyncio.wait_for(reader.readline(), timeout)
            if b" 101 " not in status:
                writer.close()
                raise HandshakeRefused(status)
            while (await asyncio.wait_for(reader.readline(), timeout)) not in (b"\r\n", b""):
                pass
        except (TimeoutError, asyncio.IncompleteReadError, OSError):
            writer.close()
            raise
        sock = cls(reader, writer)
        sock.port = port
        sock._task = asyncio.get_running_loop().create_task(sock._read_loop())
        return sock

    # --- sending -------------------------------------------------------------------------------

    def send_frame(self, opcode: int, payload: bytes, *, fin: bool = True) -> None:
        if self.closed:
            return
        mask = os.urandom(4)
        n = len(payload)
        header = bytes([(0x80 if fin else 0) | opcode])
        if n < 126:
            header += bytes([0x80 | n])
        elif n < 65536:
            header += bytes([0x80 | 126]) + struct.pack("!H", n)
        else:
            header += bytes([0x80 | 127]) + struct.pack("!Q", n)
        masked = _mask(payload, mask)
        try:
            self.writer.write(header + mask + masked)
        except (OSError, RuntimeError):
            self.closed = True

    def send(self, message: Any) -> None:
        self.send_frame(TEXT, json.dumps(message).encode())

    def send_text(self, text: str) -> None:
        """Raw text, whatever it holds (it must be valid UTF-8, as RFC 6455 requires)."""
        self.send_frame(TEXT, text.encode())

    def send_binary(self, data: bytes) -> None:
        self.send_frame(BINARY, data)

    async def drain(self) -> None:
        try:
            await self.writer.drain()
        except (OSError, RuntimeError):
            self.closed = True

    # --- receiving -----------------------------------------------------------------------------

    async def next(self, timeout: float) -> dict | str | None:
        """The next message (a dict, or the raw text if it was not JSON), None once closed;
        raises TimeoutError when nothing came."""
        if self.closed and self.queue.empty():
            return None
        return await asyncio.wait_for(self.queue.get(), timeout)

    async def _read_loop(self) -> None:
        parts: list[bytes] = []
        try:
            while True:
                head = await self.reader.readexactly(2)
                fin, opcode, n = head[0] & 0x80, head[0] & 0x0F, head[1] & 0x7F
                if n == 126:
                    n = struct.unpack("!H", await self.reader.readexactly(2))[0]
                elif n == 127:
                    n = struct.unpack("!Q", await self.reader.readexactly(8))[0]
                payload = await self.reader.readexactly(n)
                if opcode == PING:  # daphne's keep-alive: unanswered, it closes the socket
                    self.send_frame(PONG, payload)
                    continue
                if opcode == PONG:
                    continue
                if opcode == CLOSE:
                    if len(payload) >= 2:
                        self.close_code = struct.unpack("!H", payload[:2])[0]
                    self.send_frame(CLOSE, payload[:2])
                    break
                parts.append(payload)
                if not fin:
                    continue
                data, parts = b"".join(parts), []
                text = data.decode(errors="replace")
                try:
                    message = json.loads(text)
                except ValueError:
                    message = text
                self.queue.put_nowait(message)
        except (asyncio.IncompleteReadError, OSError, asyncio.CancelledError):
            pass
        finally:
            self.closed = True
            self.queue.put_nowait(None)
            try:
                self.writer.close()
            except RuntimeError:
                pass

    # --- closing -------------------------------------------------------------------------------

    def close(self, code: int = 1000) -> None:
        """A clean close: the close frame, then the connection."""
        self.send_frame(CLOSE, struct.pack("!H", code))
        self.closed = True
        try:
            self.writer.close()
        except RuntimeError:
            pass

    def abort(self) -> None:
        """An abrupt close: no close frame, the connection reset (a tab killed, a network gone)."""
        self.closed = True
        self.writer.transport.abort()


def _mask(payload: bytes, mask: bytes) -> bytes:
    if not payload:
        return b""
    key = (mask * (len(payload) // 4 + 1))[: len(payload)]
    return (int.from_bytes(payload, "big") ^ int.from_bytes(key, "big")).to_bytes(
        len(payload), "big"
    )


# --- HTTP ---------------------------------------------------------------------------------------


@dataclass
class Response:
    status: int  # 0: no answer (connection refused or reset, timeout)
    headers: list[tuple[str, str]]
    body: bytes
    error: str = ""

    def header(self, name: str) -> str | None:
        for key, value in self.headers:
            if key.lower() == name.lower():
                return value
        return None


CSRF_INPUT = re.compile(rb'name="csrfmiddlewaretoken" value="([^"]+)"')


@dataclass
class Browser:
    """One visitor: a cookie jar, a kept-alive connection, the CSRF token of the last form.

    `source` is the loopback address requests come from (127.0.0.x): the log-in throttle counts
    per address, so probes that must not share a counter come from different ones."""

    port: int
    source: str = "127.0.0.1"
    cookies: dict[str, str] = field(default_factory=dict)
    timeout: float = 60.0
    csrf: str = ""
    _conn: http.client.HTTPConnection | None = None

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
    ) -> Response:
        all_headers = {"Host": f"127.0.0.1:{self.port}", "Accept-Language": "it"}
        if self.cookies:
            all_headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        if method != "GET":
            all_headers.setdefault("Origin", self.origin)
            all_headers["Referer"] = self.origin + "/"
        all_headers.update(headers or {})
        for attempt in range(2):
            if self._conn is None:
                self._conn = http.client.HTTPConnection(
                    "127.0.0.1", self.port, timeout=self.timeout, source_address=(self.source, 0)
                )
            try:
                self._conn.request(method, path, body=body, headers=all_headers)
                raw = self._conn.getresponse()
                data = raw.read()
                headers_out = raw.getheaders()
                if raw.will_close:
                    self.close()
                break
            except (OSError, http.client.HTTPException) as error:
                self.close()
                # A kept-alive connection the server closed meanwhile: try once more on a new
                # one, but only for a request that cannot have been processed twice.
                if attempt == 0 and isinstance(
                    error, http.client.RemoteDisconnected | BrokenPipeError
                ):
                    continue
                return Response(0, [], b"", error=f"{type(error).__name__}: {error}")
        else:  # pragma: no cover - the loop always breaks or returns
            return Response(0, [], b"", error="no answer")
        for key, value in headers_out:
            if key.lower() == "set-cookie":
                name, _, rest = value.partition("=")
                cookie_value = rest.split(";", 1)[0]
                if "max-age=0" in value.lower() or not cookie_value.strip('"'):
                    self.cookies.pop(name.strip(), None)
                else:
                    self.cookies[name.strip()] = cookie_value
        found = CSRF_INPUT.search(data)
        if found:
            self.csrf = found.group(1).decode()
        return Response(raw.status, headers_out, data)

    def get(self, path: str, headers: dict[str, str] | None = None) -> Response:
        return self.request("GET", path, headers=headers)

    def post(
        self,
        path: str,
        fields: list[tuple[str, str | bytes]] | bytes,
        *,
        content_type: str = "application/x-www-form-urlencoded",
        csrf: bool = True,
        headers: dict[str, str] | None = None,
    ) -> Response:
        """POST a form: `fields` are (name, value) pairs, values as text (encoded UTF-8, lone
        surrogates kept as the invalid bytes they make) or raw bytes; the CSRF token of the
        last page is added first unless `csrf` is False."""
        if isinstance(fields, bytes):
            body = fields
        else:
            pairs = [("csrfmiddlewaretoken", self.csrf)] if csrf and self.csrf else []
            body = encode_form(pairs + list(fields))
        all_headers = {"Content-Type": content_type} if content_type else {}
        all_headers.update(headers or {})
        return self.request("POST", path, body=body, headers=all_headers)

    def ensure_csrf(self, path: str) -> Response | None:
        """GET a page with a form (the token and the cookie), unless a token is held."""
        if self.csrf and "csrftoken" in self.cookies:
            return None
        return self.get(path)

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


def encode_form(pairs: list[tuple[str, str | bytes]]) -> bytes:
    def raw(value: str | bytes) -> bytes:
        return value if isinstance(value, bytes) else value.encode("utf-8", "surrogatepass")

    return "&".join(
        urllib.parse.quote_plus(raw(k)) + "=" + urllib.parse.quote_plus(raw(v)) for k, v in pairs
    ).encode()


def offsite(location: str | None, port: int) -> bool:
    """Whether a redirect target leaves the site: another host or port, another scheme, or a
    scheme-relative or backslash trick a browser reads as another host."""
    if not location:
        return False
    target = location.strip().replace("\\", "/")
    parts = urllib.parse.urlsplit(target)
    if parts.scheme and parts.scheme not in ("http", "https"):
        return True  # javascript:, data:, …
    if target.startswith("//"):
        return True
    return bool(parts.netloc) and parts.netloc != f"127.0.0.1:{port}"
