"""Socket budgets where frames arrive (`live.sockets`, `live.budget`), with WebsocketCommunicator
on the real Redis channel layer and PostgreSQL.

Every frame of a flood is put in the server's queue before the socket's reader runs (the
communicator's queues never make the sender wait), so what the reader lets through and what it
answers is the same on every run."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser
from django.urls import path

from games.routing import websocket_urlpatterns as game_routes
from games.tests.factories import UserFactory, open_game
from live.routing import websocket_urlpatterns as live_routes
from live.sockets import LiveConsumer

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

PAD = "x" * 8000  # a frame just under the 8 KB cap (live.sockets.MAX_FRAME_CHARS)


@pytest.fixture
def small_budgets(settings):
    """Budgets small enough to meet in a test, refilled too slowly to matter during it."""
    settings.SOCKET_BUDGET_GAME = (5, 0.001)
    settings.SOCKET_BUDGET_PAGE = (3, 0.001)
    settings.SOCKET_BUDGET_PLAYER = (8, 0.001)
    settings.SOCKET_BUDGET_GUEST = (100, 0.001)
    settings.SOCKET_ABUSE = (20, 0.001)
    settings.SOCKET_QUEUE = 4
    settings.SOCKET_USER_CAP = 3
    settings.SOCKET_ABUSE_COOLDOWN = 30
    return settings


def on_a_socket(app, url: str, user=None, address: str = "203.0.113.7") -> WebsocketCommunicator:
    communicator = WebsocketCommunicator(app, url)
    communicator.scope["user"] = user or AnonymousUser()
    communicator.scope["client"] = (address, 50000)
    return communicator


async def until_closed(communicator: WebsocketCommunicator) -> tuple[list[dict[str, Any]], int]:
    """The text messages the socket got, until the server closed it, and its close code."""
    import json

    texts = []
    while True:
        output = await communicator.receive_output(timeout=5)
        if output["type"] == "websocket.close":
            return texts, output.get("code")
        texts.append(json.loads(output["text"]))


async def test_a_guest_flooding_a_game_socket_is_answered_once_and_cut_off(small_budgets, caplog):
    """300 syncs of 8 KB at once: within the budget of 5 the first is read and its copies
    coalesced into it, the flood is answered `rate_limited` once (no database read: it carries
    no version), and past 20 refusals the socket is closed with 4429 — the rest is never read.
    Today's code answered every one of the 300 with a state read from the database."""
    game = await database_sync_to_async(open_game)(base_seconds=300)
    guest = on_a_socket(URLRouter(game_routes), f"/ws/game/{game.pk}/")
    assert (await guest.connect())[0]
    assert (await guest.receive_json_from(timeout=5))["type"] == "state"
    for _ in range(300):
        await guest.send_json_to({"type": "sync", "pad": PAD})
    texts, code = await until_closed(guest)
    assert code == 4429
    assert texts == [
        {"type": "error", "code": "rate_limited", "message": "too many messages: slow down"}
    ]
    # The one sync let through is still answered, once.
    assert (await guest.receive_json_from(timeout=5))["type"] == "state"
    assert await guest.receive_nothing(timeout=0.2)
    await guest.disconnect()

    # Back at once from the same address: refused while it cools down, however fresh the
    # socket, and what it sends after is not handled (its game was never read: a traceback per
    # frame in an attack run).
    again = on_a_socket(URLRouter(game_routes), f"/ws/game/{game.pk}/")
    await again.connect()
    caplog.clear()  # the warning of the flooder's close above
    with caplog.at_level(logging.WARNING):
        await again.send_json_to({"type": "sync"})
        await again.send_json_to({"type": "move", "ply": 0, "move": "e2e4"})
        assert (await again.receive_output(timeout=5)) == {"type": "websocket.close", "code": 4429}
        assert await again.receive_nothing(timeout=0.2)
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []
    await again.disconnect()
    # Another address is served as usual.
    other = on_a_socket(URLRouter(game_routes), f"/ws/game/{game.pk}/", address="198.51.100.2")
    assert (await other.connect())[0]
    assert (await other.receive_json_from(timeout=5))["type"] == "state"
    await other.disconnect()


async def test_a_players_sockets_share_one_budget(small_budgets):
    """A player's second socket finds the budget their first used up: 8 frames in all, not 3
    per socket."""
    alice = await database_sync_to_async(UserFactory)()
    app = URLRouter(live_routes)
    first, second, third = (on_a_socket(app, "/ws/me/", user=alice) for _ in range(3))
    for socket in (first, second, third):
        assert (await socket.connect())[0]
    for n in range(3):
        await first.send_json_to({"type": "ping", "id": n})
        assert await first.receive_json_from(timeout=5) == {"type": "pong", "id": n}
    for n in range(3):
        await second.send_json_to({"type": "ping", "id": n})
        assert await second.receive_json_from(timeout=5) == {"type": "pong", "id": n}
    replies = []
    for n in range(3):
        await third.send_json_to({"type": "ping", "id": n})
        replies.append(await third.receive_json_from(timeout=5))
    assert replies[:2] == [{"type": "pong", "id": 0}, {"type": "pong", "id": 1}]
    assert replies[2]["code"] == "rate_limited"
    for socket in (first, second, third):
        await socket.disconnect()


async def test_a_player_has_at_most_the_cap_of_open_sockets(small_budgets):
    alice = await database_sync_to_async(UserFactory)()
    app = URLRouter(live_routes)
    sockets = [on_a_socket(app, "/ws/me/", user=alice) for _ in range(3)]
    for socket in sockets:
        assert (await socket.connect())[0]
    fourth = on_a_socket(app, "/ws/me/", user=alice, address="198.51.100.9")
    await fourth.connect()
    assert (await fourth.receive_output(timeout=5)) == {"type": "websocket.close", "code": 4409}
    await fourth.disconnect()
    await sockets.pop().disconnect()
    fifth = on_a_socket(app, "/ws/me/", user=alice)
    assert (await fifth.connect())[0]
    await fifth.send_json_to({"type": "ping", "id": 1})
    assert await fifth.receive_json_from(timeout=5) == {"type": "pong", "id": 1}
    for socket in [*sockets, fifth]:
        await socket.disconnect()


class Stuck(LiveConsumer):
    """A consumer whose handler waits until the test lets it go: it falls behind its client."""

    accepts = frozenset({"work"})
    budget_setting = "SOCKET_BUDGET_PLAYER"
    release: asyncio.Event
    handled: list[int] = []
    instances: list[Stuck] = []

    async def connect(self) -> None:
        Stuck.instances.append(self)
        await self.accept()

    async def on_work(self, message) -> None:
        await Stuck.release.wait()
        Stuck.handled.append(message["n"])


async def test_a_consumer_that_falls_behind_holds_at_most_its_queue(small_budgets):
    """100 frames arrive at once: 4 go to the inbox (the queue's bound), the rest is refused
    unread (and past 20 refusals the socket is closed); the handler is stuck on the first, 3
    wait behind it, and nothing piles up in memory behind the consumer."""
    Stuck.release, Stuck.handled, Stuck.instances = asyncio.Event(), [], []
    client = on_a_socket(URLRouter([path("stuck/", Stuck.as_asgi())]), "/stuck/", address="::1")
    assert (await client.connect())[0]
    for n in range(100):
        await client.send_json_to({"type": "work", "n": n})
    reply = await client.receive_json_from(timeout=5)
    assert reply["code"] == "rate_limited"
    (consumer,) = Stuck.instances
    assert consumer._gate.waiting == 3
    assert consumer._gate.refused == 21  # then closed: the rest is not even counted
    Stuck.release.set()
    texts, code = await until_closed(client)
    assert code == 4429
    await client.disconnect()
    assert Stuck.handled == [0, 1, 2, 3]
