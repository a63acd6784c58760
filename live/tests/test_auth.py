"""A socket's user from its session cookie (live/auth.py), read once at the handshake."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import Client

from accounts.services import user_delete
from games.tests.factories import UserFactory
from live.auth import SocketAuthMiddleware
from live.models import Connection
from live.routing import websocket_urlpatterns

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

application = SocketAuthMiddleware(URLRouter(websocket_urlpatterns))


def signed_in_cookie(user) -> str:
    client = Client()
    client.force_login(user)
    return client.cookies[settings.SESSION_COOKIE_NAME].value


def site_socket(cookie: str | None) -> WebsocketCommunicator:
    headers = [(b"cookie", f"{settings.SESSION_COOKIE_NAME}={cookie}".encode())] if cookie else []
    return WebsocketCommunicator(application, "/ws/me/", headers=headers)


async def test_the_session_cookie_names_the_player():
    anna = await database_sync_to_async(UserFactory)()
    socket = site_socket(await database_sync_to_async(signed_in_cookie)(anna))
    connected, _ = await socket.connect()
    assert connected
    assert await socket.receive_nothing(timeout=0.2)  # accepted and kept: a player
    # Her presence on the site is recorded under her id.
    here = Connection.objects.filter(user_id=anna.pk, topic="site").exists
    assert await database_sync_to_async(here)()
    await socket.disconnect()


@pytest.mark.parametrize("cookie", [None, "not-a-session"])
async def test_no_session_is_a_guest_refused_by_the_site_socket(cookie):
    socket = site_socket(cookie)
    await socket.connect()
    assert await socket.receive_output(timeout=5) == {"type": "websocket.close", "code": 4401}


async def test_a_deleted_account_s_session_is_a_guest():
    """Deleting an account ends its sessions (an unusable password changes the session hash):
    a socket opened with one of them is a guest's."""
    bruno = await database_sync_to_async(UserFactory)()
    cookie = await database_sync_to_async(signed_in_cookie)(bruno)
    await database_sync_to_async(user_delete)(user_id=bruno.pk)
    socket = site_socket(cookie)
    await socket.connect()
    assert await socket.receive_output(timeout=5) == {"type": "websocket.close", "code": 4401}
