"""After a game, on the sockets: the offerer hears that the draw was declined
(`/ws/game/<id>/`), and the lobby hears games open and end (`/ws/lobby/`, the grid's counts).
WebsocketCommunicator on the real Redis channel layer, as games/tests/test_consumers.py."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser

from games.services import game_resign, now_ms
from games.tests.factories import open_game

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

# The game socket's test helpers are test_consumers'.
from games.tests.test_consumers import application, connect, receive_until  # noqa: E402


@database_sync_to_async
def new_game():
    game = open_game(at_ms=now_ms(), base_seconds=300)
    return game, game.white, game.black


async def test_the_offerer_hears_that_the_draw_was_declined():
    """The offerer's page is told "L'avversario ha rifiutato la patta": after the
    state without the offer, a `draw_declined` of that version (docs/protocol.md)."""
    game, white, black = await new_game()
    w = await connect(game.pk, white)
    b = await connect(game.pk, black)
    await w.send_json_to({"type": "draw_offer"})
    offered = await receive_until(b, lambda m: m["type"] == "state" and m["draw_offer"])
    await b.send_json_to({"type": "draw_decline"})
    cleared = await receive_until(
        w,
        lambda m: (
            m["type"] == "state" and m["version"] > offered["version"] and m["draw_offer"] is None
        ),
    )
    told = await receive_until(w, lambda m: m["type"] == "draw_declined")
    assert told == {
        "type": "draw_declined",
        "game": game.pk,
        "version": cleared["version"],
        "ply": 0,
        "offer": "white",
    }
    # Declining again: an error to the sender, nobody is told anything, the socket stays up.
    await b.send_json_to({"type": "draw_decline", "id": 3})
    error = await receive_until(b, lambda m: m["type"] == "error")
    assert (error["code"], error["id"]) == ("no_draw_offer", 3)
    await w.send_json_to({"type": "ping", "id": 4})
    assert (await receive_until(w, lambda m: m["type"] in ("pong", "draw_declined")))["type"] == (
        "pong"
    )
    for communicator in (w, b):
        await communicator.disconnect()


async def test_lobby_hears_games_open_and_end():
    """The grid counts the games being played, so a game opening or ending tells
    the lobby (throttled: the first at once, the last of a busy second after it)."""
    from games.services import LOBBY_GROUP
    from live import heartbeat

    # A window another test of this process opened on the lobby's group is not this test's
    # (tasks run eagerly here, so a trailing push goes at once rather than at the window's
    # end): the throttle starts afresh.
    heartbeat.client().delete(
        heartbeat.prefixed(f"throttle:{LOBBY_GROUP}"), heartbeat.prefixed(f"trailing:{LOBBY_GROUP}")
    )
    lobby = WebsocketCommunicator(application, "/ws/lobby/")
    lobby.scope["user"] = AnonymousUser()
    connected, _ = await lobby.connect()
    assert connected
    game, white, _black = await new_game()
    assert await lobby.receive_json_from(timeout=5) == {"type": "changed"}
    await database_sync_to_async(game_resign)(game_id=game.pk, user_id=white.pk)
    assert await lobby.receive_json_from(timeout=5) == {"type": "changed"}
    await lobby.disconnect()
