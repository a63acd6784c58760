"""The arena page's socket (RULES 8): it is the player's presence on the page, it asks for a
pass when a player comes back, and it hears "changed", throttled."""

from __future__ import annotations

import asyncio

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser
from django.utils import timezone

from arena.models import Arena
from arena.routing import websocket_urlpatterns
from arena.tests.factories import ArenaFactory, EntryFactory
from live.models import Connection

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]
application = URLRouter(websocket_urlpatterns)


async def test_a_players_page_is_their_presence_and_asks_for_a_pass():
    arena = await database_sync_to_async(ArenaFactory)(
        status=Arena.Status.RUNNING, starts_at=timezone.now()
    )
    entry = await database_sync_to_async(EntryFactory)(arena=arena)
    player = await database_sync_to_async(lambda: entry.player)()
    page = WebsocketCommunicator(application, f"/ws/arenas/{arena.pk}/")
    page.scope["user"] = player
    assert (await page.connect())[0]

    def recorded():
        return list(Connection.objects.values_list("topic", "user_id"))

    def pass_asked():
        return Arena.objects.get(pk=arena.pk).pairing_due_at is not None

    # The page's presence and the pass it asks for are two steps after the accept (the
    # presence's commit, then the entry seen): wait for both, not only the first (a loaded
    # machine once looked between the two).
    for _ in range(200):
        if await database_sync_to_async(recorded)() and await database_sync_to_async(pass_asked)():
            break
        await asyncio.sleep(0.05)
    assert await database_sync_to_async(recorded)() == [(f"arena:{arena.pk}", player.pk)]
    refreshed = await database_sync_to_async(Arena.objects.get)(pk=arena.pk)
    assert refreshed.pairing_due_at is not None  # a player came back: a pass soon
    guest = WebsocketCommunicator(application, f"/ws/arenas/{arena.pk}/")
    guest.scope["user"] = AnonymousUser()
    assert (await guest.connect())[0]
    await get_channel_layer().group_send(f"arena-{arena.pk}", {"type": "arena.changed"})
    for communicator in (page, guest):
        assert await communicator.receive_json_from(timeout=5) == {"type": "changed"}
    await page.disconnect()
    await guest.disconnect()
    assert await database_sync_to_async(recorded)() == []
