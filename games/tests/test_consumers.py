"""`/ws/game/<id>/` with WebsocketCommunicator on the real Redis channel layer."""

from __future__ import annotations

import asyncio

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser

from games.models import Game
from games.routing import websocket_urlpatterns
from games.services import challenge_create, now_ms
from games.tests.factories import UserFactory, open_game

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

application = URLRouter(websocket_urlpatterns)


async def connect(game_id: int, user) -> WebsocketCommunicator:
    communicator = WebsocketCommunicator(application, f"/ws/game/{game_id}/")
    communicator.scope["user"] = user
    connected, _ = await communicator.connect()
    assert connected
    return communicator


async def receive_until(communicator, predicate, timeout: float = 5.0) -> dict:
    """The first message matching `predicate` (earlier ones, e.g. presence, are skipped)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        left = deadline - asyncio.get_running_loop().time()
        message = await communicator.receive_json_from(timeout=max(left, 0.01))
        if predicate(message):
            return message


def at_ply(ply: int):
    return lambda m: m["type"] == "state" and m["ply"] == ply


@database_sync_to_async
def new_game(**kwargs):
    game = open_game(at_ms=now_ms(), base_seconds=300, **kwargs)
    return game, game.white, game.black


async def test_state_moves_broadcast_errors_and_reconnect():
    game, white, black = await new_game()
    w = await connect(game.pk, white)
    state = await receive_until(w, at_ply(0))
    assert state["fen"] == game.start_fen and state["turn"] == "white"
    assert "e2e4" in state["legal_moves"] and state["clock"]["running"] == "white"
    b = await connect(game.pk, black)
    watcher = await connect(game.pk, AnonymousUser())
    # Presence is recorded after the handshake: a later state shows both players connected.
    seen = await receive_until(
        watcher,
        lambda m: m["type"] == "state" and m["white"]["connected"] and m["black"]["connected"],
    )
    assert seen["ply"] == 0

    await w.send_json_to({"type": "move", "ply": 0, "move": "e2e4"})
    for communicator in (b, watcher, w):
        moved = await receive_until(communicator, at_ply(1))
        assert moved["last_move"] == "e2e4" and moved["moves"] == ["e2e4"]
        assert moved["clock"]["running"] == "black"

    # Errors: a reply to the sender, nothing changes, the connection stays up.
    await watcher.send_json_to({"type": "move", "ply": 1, "move": "e7e5", "id": 7})
    error = await receive_until(watcher, lambda m: m["type"] == "error")
    assert (error["code"], error["id"], error["ply"]) == ("not_a_player", 7, 1)
    await w.send_json_to({"type": "move", "ply": 1, "move": "d2d4"})
    assert (await receive_until(w, lambda m: m["type"] == "error"))["code"] == "not_your_turn"
    await b.send_json_to({"type": "move", "ply": 0, "move": "e7e5"})
    assert (await receive_until(b, lambda m: m["type"] == "error"))["code"] == "stale_ply"
    await b.send_json_to({"type": "move", "ply": 1, "move": "e7e4"})
    assert (await receive_until(b, lambda m: m["type"] == "error"))["code"] == "illegal_move"
    await b.send_to(text_data="{not json")
    assert (await receive_until(b, lambda m: m["type"] == "error"))["code"] == "malformed"
    await b.send_json_to(["move"])
    assert (await receive_until(b, lambda m: m["type"] == "error"))["code"] == "malformed"
    await b.send_json_to({"type": "move", "ply": "1", "move": "e7e5"})
    assert (await receive_until(b, lambda m: m["type"] == "error"))["code"] == "malformed"
    await b.send_json_to({"type": "ping", "id": 1})
    assert await receive_until(b, lambda m: m["type"] == "pong") == {"type": "pong", "id": 1}

    # Black loses the connection and comes back: the state resumes where the game is.
    await b.disconnect()
    away = await receive_until(w, lambda m: m["type"] == "state" and not m["black"]["connected"])
    assert away["black"]["away_since_ms"] is not None
    b = await connect(game.pk, black)
    resumed = await receive_until(b, at_ply(1))
    assert resumed["moves"] == ["e2e4"] and resumed["black"]["connected"]
    await b.send_json_to({"type": "resign"})
    over = await receive_until(watcher, lambda m: m["type"] == "state" and m["status"] != "live")
    assert (over["result"], over["reason"]) == ("1-0", "resignation")
    for communicator in (w, b, watcher):
        await communicator.disconnect()

    stored = await database_sync_to_async(Game.objects.get)(pk=game.pk)
    assert stored.white_sat and stored.black_sat
    assert stored.white_connections == stored.black_connections == 0


async def test_unknown_game_is_refused():
    user = await database_sync_to_async(UserFactory)()
    communicator = WebsocketCommunicator(application, "/ws/game/999999999/")
    communicator.scope["user"] = user
    connected, code = await communicator.connect()
    assert not connected and code == 4404


async def test_lobby_hears_challenge_changes():
    lobby = WebsocketCommunicator(application, "/ws/lobby/")
    lobby.scope["user"] = AnonymousUser()
    connected, _ = await lobby.connect()
    assert connected
    anna = await database_sync_to_async(UserFactory)()
    await database_sync_to_async(challenge_create)(
        challenger_id=anna.pk,
        variant_code="international",
        base_seconds=300,
        increment_seconds=0,
        color="random",
        rated=False,
    )
    assert await lobby.receive_json_from(timeout=5) == {"type": "changed"}
    await lobby.disconnect()


async def test_player_socket_is_a_presence_row_refreshed_by_the_heartbeat(monkeypatch):
    from games import services
    from games.consumers import Heartbeat
    from games.models import GameConnection

    monkeypatch.setattr(services, "PRESENCE_HEARTBEAT_SECONDS", 0.05)
    game, white, _black = await new_game()
    w = await connect(game.pk, white)
    await receive_until(w, lambda m: m["type"] == "state" and m["white"]["connected"])
    rows = await database_sync_to_async(
        lambda: list(GameConnection.objects.values_list("key", "color", "seen_ms"))
    )()
    assert len(rows) == 1 and rows[0][1] == "white" and rows[0][0] in Heartbeat.keys
    key, _color, first_seen = rows[0]
    await asyncio.sleep(0.3)
    seen = await database_sync_to_async(
        lambda: GameConnection.objects.values_list("seen_ms", flat=True).get(key=key)
    )()
    assert seen > first_seen
    await w.disconnect()
    assert key not in Heartbeat.keys and Heartbeat.task is None
    assert not await database_sync_to_async(GameConnection.objects.exists)()


async def test_addressed_challenge_is_pushed_to_the_addressee_only():
    from games.routing import websocket_urlpatterns as patterns
    from games.services import challenge_cancel

    app = URLRouter(patterns)
    alice, bob, carol = [await database_sync_to_async(UserFactory)() for _ in range(3)]
    sockets = {}
    for user in (alice, bob, carol):
        sockets[user.pk] = WebsocketCommunicator(app, "/ws/me/")
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
    guest = WebsocketCommunicator(app, "/ws/me/")
    guest.scope["user"] = AnonymousUser()
    connected, code = await guest.connect()
    assert not connected and code == 4401
