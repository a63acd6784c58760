"""`/ws/me/`, the site socket, with WebsocketCommunicator on the real Redis channel layer."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser

from games.services import challenge_cancel, challenge_create
from games.tests.factories import UserFactory
from live.routing import websocket_urlpatterns

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

application = URLRouter(websocket_urlpatterns)


async def test_addressed_challenge_is_pushed_to_the_addressee_only():
    alice, bob, carol = [await database_sync_to_async(UserFactory)() for _ in range(3)]
    sockets = {}
    for user in (alice, bob, carol):
        sockets[user.pk] = WebsocketCommunicator(application, "/ws/me/")
        sockets[user.pk].scope["user"] = user
        assert (await sockets[user.pk].connect())[0]
    challenge = await database_sync_to_async(challenge_create)(
        challenger_id=alice.pk,
        opponent_id=bob.pk,
        variant_code="chess",
        base_seconds=300,
        increment_seconds=0,
        color="random",
        rated=False,
    )
    assert await sockets[bob.pk].receive_json_from(timeout=5) == {
        "type": "changed",
        "what": "challenges",
    }
    assert await sockets[carol.pk].receive_nothing(timeout=0.3)
    assert await sockets[alice.pk].receive_nothing(timeout=0.1)
    # Declining tells both (the challenger's list changes too).
    await database_sync_to_async(challenge_cancel)(challenge_id=challenge.pk, user_id=bob.pk)
    for user in (alice, bob):
        assert (await sockets[user.pk].receive_json_from(timeout=5))["what"] == "challenges"
    for communicator in sockets.values():
        await communicator.disconnect()


async def test_guests_are_refused_with_4401():
    guest = WebsocketCommunicator(application, "/ws/me/")
    guest.scope["user"] = AnonymousUser()
    connected, _ = await guest.connect()
    assert connected  # accepted, then closed with the code: a browser sees 4401
    assert await guest.receive_output(timeout=5) == {"type": "websocket.close", "code": 4401}
