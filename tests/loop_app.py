"""An ASGI application that answers every HTTP request with the kind of event loop it runs on
(tests/test_serve.py)."""

from __future__ import annotations

import asyncio


async def application(scope, receive, send):
    if scope["type"] != "http":
        return
    loop = type(asyncio.get_running_loop())
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send(
        {"type": "http.response.body", "body": f"{loop.__module__}.{loop.__name__}".encode()}
    )
