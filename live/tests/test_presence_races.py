"""Presence rows under sockets of one player closing at the same moment (tabs closed together),
on PostgreSQL: threads released by one barrier, and sockets of the site closed at once."""

from __future__ import annotations

import asyncio
import logging
import time

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator

from accounts.tests.factories import UserFactory
from live import presence
from live.consumers import SITE_TOPIC
from live.models import Connection
from live.routing import websocket_urlpatterns
from tests.concurrency import run_at_once

pytestmark = pytest.mark.django_db(transaction=True)


def test_sockets_of_one_player_leaving_at_once_leave_one_lingering_row():
    """Each socket's row became the player's lingering row; two at once broke the key's
    uniqueness (IntegrityError on `live_connection_key`), once per pair of closes."""
    player = UserFactory()
    keys = [f"socket-{n}" for n in range(6)]
    # Times of now: the sweep of a site running beside the suite on this database (the
    # heartbeat of the browser tests' worker) deletes rows older than twice the stale time.
    opened_ms = int(time.time() * 1000)
    for key in keys:
        presence.opened(key=key, topic=SITE_TOPIC, user_id=player.pk, at_ms=opened_ms)
    left_ms = opened_ms + 1000
    run_at_once(
        *(
            lambda key=key: presence.left(
                key=key, topic=SITE_TOPIC, user_id=player.pk, at_ms=left_ms
            )
            for key in keys
        )
    )
    rows = list(Connection.objects.values_list("key", "user_id", "seen_ms"))
    assert rows == [(f"{presence.LINGER_PREFIX}{SITE_TOPIC}:{player.pk}", player.pk, left_ms)]


@pytest.mark.asyncio
async def test_a_players_site_sockets_closing_together_log_no_failure(caplog):
    """Five `/ws/me/` sockets of one player closed at once: no "cleanup failed" (a traceback per
    collision before), and the player lingers on the site as one row."""
    player = await database_sync_to_async(UserFactory)()
    sockets = []
    for _ in range(5):
        socket = WebsocketCommunicator(URLRouter(websocket_urlpatterns), "/ws/me/")
        socket.scope["user"] = player
        assert (await socket.connect())[0]
        sockets.append(socket)
    for socket in sockets:  # its row is written after the handshake: the ping's answer follows
        await socket.send_json_to({"type": "ping", "id": 1})
        assert await socket.receive_json_from(timeout=5) == {"type": "pong", "id": 1}
    assert await database_sync_to_async(presence.count)(topic=SITE_TOPIC, user_id=player.pk) == 5
    with caplog.at_level(logging.WARNING):
        await asyncio.gather(*(socket.disconnect() for socket in sockets))
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []
    rows = await database_sync_to_async(lambda: list(Connection.objects.values_list("key")))()
    assert rows == [(f"{presence.LINGER_PREFIX}{SITE_TOPIC}:{player.pk}",)]
