"""daphne's sockets write at once what they can (issue 17, bench/live.py).

Twisted, under daphne, never writes in `transport.write`: it buffers the bytes, registers the
socket with the event loop for writability, and sends them on the next turn of the loop, then
unregisters it — two `epoll_ctl` calls and a loop turn for each websocket frame, a measurable
part of a move on a busy server (every move is one frame to each player and spectator). asyncio's
own transports send at once and buffer only what the kernel does not take; this does the same
for Twisted's TCP connections: when nothing is waiting in the connection's buffer, the bytes
go to the socket now, and only the rest (or everything, on any error) takes Twisted's own
path, which reports errors and closes the connection as before. TLS connections (daphne's
`ssl:` endpoints) keep Twisted's path untouched.

Installed by `config.asgi` when daphne is the server; `DAPHNE_IMMEDIATE_WRITES=0` leaves Twisted
as it is.
"""

from __future__ import annotations

import os


def install() -> bool:
    """Patch Twisted's TCP connections (once); returns whether they are patched."""
    if os.environ.get("DAPHNE_IMMEDIATE_WRITES", "1") == "0":
        return False
    from twisted.internet import tcp

    if getattr(tcp.Connection.write, "immediate", False):
        return True
    buffered = tcp.Connection.write

    def write(self, data: bytes) -> None:
        if (
            data
            and not self.TLS
            and self.connected
            and not self._writeDisconnected
            and not self._tempDataBuffer
            and self.offset >= len(self.dataBuffer)
            and type(data) is bytes
        ):
            try:
                sent = self.socket.send(data)
            except OSError:  # would block, or an error Twisted's own path reports
                sent = 0
            if sent == len(data):
                return
            data = data[sent:]
        buffered(self, data)

    write.immediate = True
    tcp.Connection.write = write
    return True
