"""The tournament socket says "changed" when a service announces it (STYLE 4, 5)."""

from __future__ import annotations

import asyncio
import threading

from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator

from config.asgi import application
from live import pushes
from tournaments.broadcast import group_name


async def scenario() -> dict:
    elsewhere = WebsocketCommunicator(  # another port of the same host: refused
        application,
        "/ws/tournaments/4242/",
        headers=[(b"origin", b"http://127.0.0.1:9999"), (b"host", b"127.0.0.1")],
    )
    assert (await elsewhere.connect())[0] is False
    communicator = WebsocketCommunicator(
        application,
        "/ws/tournaments/4242/",
        headers=[(b"origin", b"http://127.0.0.1"), (b"host", b"127.0.0.1")],
    )
    connected, _ = await communicator.connect()
    assert connected
    await sync_to_async(pushes.group_send)(
        group_name(4242), {"type": "tournament.changed", "round": 0}
    )
    message = await communicator.receive_json_from(timeout=5)
    await communicator.disconnect()
    return message


def test_socket_pushes_changed():
    # A thread of its own: the end-to-end tests keep Playwright's loop in the main thread.
    result: list[dict] = []
    thread = threading.Thread(target=lambda: result.append(asyncio.run(scenario())))
    thread.start()
    thread.join(timeout=20)
    assert result == [{"type": "changed", "round": 0}]
