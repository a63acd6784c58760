"""The base of every socket (`live.sockets`): one frame parser, errors that keep the socket,
a cleanup that always runs. With WebsocketCommunicator on the real Redis channel layer."""

from __future__ import annotations

import asyncio
import time

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.urls import path

from games.routing import websocket_urlpatterns as game_routes
from games.services import now_ms
from games.tests.factories import open_game
from live.models import Connection
from live.sockets import FrameError, LiveConsumer, parse_frame


@pytest.mark.parametrize(
    ("text", "data"),
    [
        (None, b"\x00\x01"),
        ("", None),
        ("x" * 9000, None),
        ("{not json", None),
        ("[" * 100_000, None),
        ("[" * 5000 + "]" * 5000, None),
        ('["move"]', None),
        ('{"type": ["move"]}', None),
        ('{"type": {"a": 1}}', None),
        ('{"move": "e2e4"}', None),
        ("null", None),
    ],
)
def test_bad_frames_are_refused_with_a_reason(text, data):
    with pytest.raises(FrameError):
        parse_frame(text, data)


def test_a_good_frame_is_read():
    assert parse_frame('{"type": "move", "ply": 0, "move": "e2e4"}', None)["move"] == "e2e4"


class Exploding(LiveConsumer):
    accepts = frozenset({"boom"})
    cleaned: list[str] = []

    async def connect(self) -> None:
        await self.accept()

    async def on_boom(self, message) -> None:
        raise RuntimeError("a handler bug")

    async def closed(self) -> None:
        Exploding.cleaned.append(self.channel_name)


@pytest.mark.asyncio
@pytest.mark.django_db  # ordered with the database tests, before the browser's event loop starts
async def test_a_handler_that_raises_is_answered_and_the_socket_stays():
    communicator = WebsocketCommunicator(URLRouter([path("x/", Exploding.as_asgi())]), "/x/")
    assert (await communicator.connect())[0]
    await communicator.send_json_to({"type": "boom", "id": 3})
    reply = await communicator.receive_json_from(timeout=5)
    assert (reply["type"], reply["code"], reply["id"]) == ("error", "internal", 3)
    await communicator.send_json_to({"type": "ping", "id": 4})
    assert await communicator.receive_json_from(timeout=5) == {"type": "pong", "id": 4}
    await communicator.disconnect()
    assert len(Exploding.cleaned) == 1  # the cleanup ran once


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_every_bad_frame_on_a_game_socket_gets_malformed_and_the_socket_stays():
    game = await database_sync_to_async(open_game)(base_seconds=300, at_ms=now_ms())
    communicator = WebsocketCommunicator(URLRouter(game_routes), f"/ws/game/{game.pk}/")
    communicator.scope["user"] = await database_sync_to_async(lambda: game.white)()
    assert (await communicator.connect())[0]
    frames = [
        {"text": ""},
        {"bytes": b"\xff"},
        {"text": "[" * 100_000},
        {"text": '{"type": ["move"]}'},
        {"text": '{"type": "move", "ply": 0, "move": "\u00b2-1"}'},
    ]
    for frame in frames:
        await communicator.send_input({"type": "websocket.receive", **frame})
        while True:
            reply = await communicator.receive_json_from(timeout=5)
            if reply["type"] == "error":
                break
        assert reply["code"] in ("malformed", "illegal_move"), (frame, reply)
    await communicator.send_json_to({"type": "move", "ply": 0, "move": "e2e4"})
    while (reply := await communicator.receive_json_from(timeout=5)).get("ply") != 1:
        pass
    assert reply["type"] == "played"
    await communicator.disconnect()


async def white_on_a_game_socket() -> WebsocketCommunicator:
    """A new game's White on its socket, the first state read and the presence recorded."""
    game = await database_sync_to_async(open_game)(base_seconds=300)
    communicator = WebsocketCommunicator(URLRouter(game_routes), f"/ws/game/{game.pk}/")
    communicator.scope["user"] = await database_sync_to_async(lambda: game.white)()
    assert (await communicator.connect())[0]
    # The state read as it connects, then its presence's (docs/protocol.md).
    while not (await communicator.receive_json_from(timeout=5))["white"]["connected"]:
        pass
    assert await database_sync_to_async(Connection.objects.count)() == 1
    return communicator


async def no_presence_left(seconds: float = 5) -> None:
    """Until no presence row is left (up to `seconds`)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not await database_sync_to_async(Connection.objects.exists)():
            break
        await asyncio.sleep(0.05)
    assert not await database_sync_to_async(Connection.objects.exists)()


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_socket_whose_task_is_cancelled_leaves_no_presence_behind():
    """However a socket ends — here its task is cancelled, as when daphne drops it mid-send —
    the presence row it recorded goes."""
    communicator = await white_on_a_game_socket()
    communicator.future.cancel()
    with pytest.raises(asyncio.CancelledError):
        await communicator.future
    await no_presence_left()


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_socket_cancelled_while_it_cleans_up_leaves_no_presence_behind(monkeypatch):
    """The client leaves while the socket process's database threads are busy (a loaded
    server): the clean-up's call waits in their queue, the task is cancelled meanwhile
    (daphne's close timeout, a test communicator's), and the presence row goes all the same
    once a thread is free. (A queued call whose awaiting task is cancelled never runs.)"""
    import threading
    from concurrent.futures import ThreadPoolExecutor

    from live import threads

    communicator = await white_on_a_game_socket()
    submitted = []

    class Busy(ThreadPoolExecutor):
        def submit(self, fn, /, *args, **kwargs):
            submitted.append(fn)
            return super().submit(fn, *args, **kwargs)

    busy = Busy(max_workers=1)
    monkeypatch.setattr(threads, "_pool", busy)
    release = threading.Event()
    busy.submit(release.wait, 30)
    try:
        await communicator.send_input({"type": "websocket.disconnect", "code": 1000})
        for _ in range(200):  # until the clean-up's call waits behind the busy thread
            if len(submitted) > 1:
                break
            await asyncio.sleep(0.01)
        assert len(submitted) > 1
        communicator.future.cancel()
        with pytest.raises(asyncio.CancelledError):
            await communicator.future
    finally:
        release.set()
    await no_presence_left()
    busy.shutdown()


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_many_sockets_closing_at_once_while_pushes_flow_leave_no_presence():
    """200 sockets closing at once while the server is sending must leave no presence row
    behind: a ghost row keeps its player from ever losing by abandonment (RULES 3; `make
    attack`'s presence scenario counts them). Half of these sockets close cleanly, half have
    their task cancelled mid-push; none may stay "connected"."""
    from channels.layers import get_channel_layer

    from games.services import group_name

    games = [
        await database_sync_to_async(open_game)(base_seconds=300, at_ms=now_ms()) for _ in range(15)
    ]
    sockets = []
    for game in games:
        for player in (game.white, game.black):
            communicator = WebsocketCommunicator(URLRouter(game_routes), f"/ws/game/{game.pk}/")
            communicator.scope["user"] = player
            assert (await communicator.connect())[0]
            sockets.append(communicator)
    for _ in range(100):
        if await database_sync_to_async(Connection.objects.count)() == len(sockets):
            break
        await asyncio.sleep(0.05)
    assert await database_sync_to_async(Connection.objects.count)() == len(sockets)
    layer = get_channel_layer()
    running = True

    async def pushing():
        while running:
            for game in games:
                await layer.group_send(group_name(game.pk), {"type": "game.state", "text": "{}"})
            await asyncio.sleep(0)

    pusher = asyncio.create_task(pushing())
    closing = []
    for index, communicator in enumerate(sockets):
        if index % 2:
            closing.append(communicator.disconnect())
        else:
            communicator.future.cancel()
    await asyncio.gather(*closing, return_exceptions=True)
    for communicator in sockets[::2]:
        with pytest.raises(asyncio.CancelledError):
            await communicator.future
    # Up to a minute: the closes' clean-up of 200 rows beside the pushes took more than 10 s
    # on a loaded machine (a full run with the CPU busy throughout).
    try:
        await no_presence_left(60)
    finally:
        running = False
        await pusher
    for game in games:
        stored = await database_sync_to_async(type(game).objects.get)(pk=game.pk)
        assert stored.white_connections == stored.black_connections == 0


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)  # the game is made in another thread: committed
async def test_the_lobby_and_site_sockets_answer_bad_frames_and_stay_up():
    """Empty, binary and deeply nested frames are answered `malformed`, and the socket stays
    up."""
    from live.routing import websocket_urlpatterns as live_routes

    user = await database_sync_to_async(lambda: open_game(at_ms=now_ms()).white)()
    for url, routes in (("/ws/lobby/", game_routes), ("/ws/me/", live_routes)):
        communicator = WebsocketCommunicator(URLRouter(routes), url)
        communicator.scope["user"] = user
        assert (await communicator.connect())[0]
        if url == "/ws/me/":  # it first says where the game waiting for him is
            assert (await communicator.receive_json_from(timeout=5))["what"] == "mygame"
        for frame in ({"text": ""}, {"bytes": b"\x00"}, {"text": "[" * 100_000}, {"text": "{}"}):
            await communicator.send_input({"type": "websocket.receive", **frame})
            reply = await communicator.receive_json_from(timeout=5)
            assert (reply["type"], reply["code"]) == ("error", "malformed")
        await communicator.send_json_to({"type": "ping", "id": 9})
        assert await communicator.receive_json_from(timeout=5) == {"type": "pong", "id": 9}
        await communicator.disconnect()


class DatabaseAway(LiveConsumer):
    accepts = frozenset({"read"})

    async def connect(self) -> None:
        await self.accept()

    async def on_read(self, message) -> None:
        from django.db import OperationalError

        raise OperationalError("connection refused")


@pytest.mark.asyncio
@pytest.mark.django_db
async def test_a_service_away_is_answered_unavailable_and_the_socket_stays():
    communicator = WebsocketCommunicator(URLRouter([path("y/", DatabaseAway.as_asgi())]), "/y/")
    assert (await communicator.connect())[0]
    await communicator.send_json_to({"type": "read", "id": 1})
    reply = await communicator.receive_json_from(timeout=5)
    assert (reply["code"], reply["id"]) == ("unavailable", 1)
    await communicator.send_json_to({"type": "ping", "id": 2})
    assert await communicator.receive_json_from(timeout=5) == {"type": "pong", "id": 2}
    await communicator.disconnect()
