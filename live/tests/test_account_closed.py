"""Every open socket of an account deleted, or deactivated by the staff, closes with 4403
(`live.pushes.account_closed_on_commit`, the group every signed-in socket joins in
`live.sockets.LiveConsumer`): a page left open no longer acts for an account that is gone.
WebsocketCommunicator on the real Redis channel layer; the sites' real routes."""

from __future__ import annotations

import asyncio

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.test import Client
from django.urls import reverse

from accounts.services import user_delete
from accounts.tests.factories import UserFactory
from chat.models import Message
from config.routing import websocket_urlpatterns
from games.tests.factories import open_game
from tournaments.tests.factories import TournamentFactory

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

application = URLRouter(websocket_urlpatterns)


async def opened(path: str, user) -> WebsocketCommunicator:
    communicator = WebsocketCommunicator(application, path)
    communicator.scope["user"] = user
    connected, _ = await communicator.connect()
    assert connected
    return communicator


async def close_code(communicator, timeout: float = 5.0) -> int | None:
    """The code the server closed the socket with, reading past what it sent before."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        left = deadline - asyncio.get_running_loop().time()
        output = await communicator.receive_output(timeout=max(left, 0.01))
        if output["type"] == "websocket.close":
            return output.get("code")


def _places():
    tournament = TournamentFactory()
    return open_game(), tournament


async def every_page_of(user, game, tournament) -> list[WebsocketCommunicator]:
    return [
        await opened("/ws/me/", user),
        await opened(f"/ws/game/{game.pk}/", user),
        await opened(f"/ws/chat/tournament/{tournament.pk}/", user),
        await opened(f"/ws/tournaments/{tournament.pk}/", user),
    ]


async def test_deleting_an_account_closes_every_socket_of_it_and_no_other():
    game, tournament = await database_sync_to_async(_places)()
    leaving, staying = await database_sync_to_async(UserFactory.create_batch)(2)
    theirs = await every_page_of(leaving, game, tournament)
    others = await opened(f"/ws/chat/tournament/{tournament.pk}/", staying)
    await others.receive_json_from(timeout=5)  # the chat's opening

    await database_sync_to_async(user_delete)(user_id=leaving.pk)
    for socket in theirs:
        assert await close_code(socket) == 4403
    # Another player's page stays, and the room holds no line of the deleted account.
    await others.send_json_to({"type": "ping", "id": 1})
    assert await others.receive_json_from(timeout=5) == {"type": "pong", "id": 1}
    stored = Message.objects.filter(author=leaving).exists
    assert not await database_sync_to_async(stored)()
    await others.disconnect()


def _deactivate_in_the_admin(user_ids: list[int]) -> int:
    staff = UserFactory(is_staff=True, is_superuser=True)
    client = Client()
    client.force_login(staff)
    response = client.post(
        reverse("admin:accounts_user_changelist"),
        {"action": "deactivate", "_selected_action": [str(pk) for pk in user_ids]},
    )
    return response.status_code


async def test_deactivating_accounts_in_the_admin_closes_their_sockets():
    game, tournament = await database_sync_to_async(_places)()
    leaving = await database_sync_to_async(UserFactory)()
    theirs = await every_page_of(leaving, game, tournament)
    assert await database_sync_to_async(_deactivate_in_the_admin)([leaving.pk]) == 302
    for socket in theirs:
        assert await close_code(socket) == 4403
