"""autobahn's debug lines cost nothing unless debug logging is on (issue 17, bench/live.py).

autobahn, under daphne, logs a debug line for every chunk a websocket receives and every frame
it sends, and builds the line's arguments before the logger decides to drop it: the name of
the method and the peer, coloured with click (`autobahn.util.hltype`, `hlval`). With debug off,
as always in production, that was 3.6 % of a busy daphne's time for nothing. Here the two
modules that do it on every frame get helpers that hand the objects themselves to the logger,
which turns them into text only for a line it writes (uncoloured).

Installed by `config.asgi` when daphne is the server.
"""

from __future__ import annotations

from typing import Any


def _name(obj: Any) -> Any:
    return getattr(obj, "__qualname__", obj)


def _value(value: Any, color: str = "", bold: bool = True) -> Any:
    return value


def install() -> None:
    from autobahn.twisted import websocket as twisted_websocket
    from autobahn.websocket import protocol

    for module in (twisted_websocket, protocol):
        module.hltype = _name
        module.hlval = _value
