"""`/ws/chat/<place>/<id>/` with WebsocketCommunicator on the real Redis channel layer
(docs/protocol.md, "Chat socket")."""

from __future__ import annotations

import asyncio

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser

from accounts.tests.factories import UserFactory
from chat import services
from chat.models import Message
from chat.routing import websocket_urlpatterns
from games.services import game_resign, now_ms
from games.tests.factories import open_game
from tournaments.tests.factories import TournamentFactory

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

application = URLRouter(websocket_urlpatterns)


async def connect(path: str, user) -> tuple[WebsocketCommunicator, dict]:
    communicator = WebsocketCommunicator(application, path)
    communicator.scope["user"] = user
    connected, _ = await communicator.connect()
    assert connected
    opening = await communicator.receive_json_from(timeout=5)
    assert opening["type"] == "chat"
    return communicator, opening


async def next_of(communicator, kind: str, timeout: float = 5.0) -> dict:
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        left = deadline - asyncio.get_running_loop().time()
        message = await communicator.receive_json_from(timeout=max(left, 0.01))
        if message["type"] == kind:
            return message


async def nothing_more(communicator) -> None:
    assert await communicator.receive_nothing(timeout=0.3)


async def test_an_event_room_live_with_mute_errors_and_closing():
    tournament = await database_sync_to_async(TournamentFactory)()
    organizer = tournament.opened_by
    anna, bruno = await database_sync_to_async(UserFactory.create_batch)(2)
    path = f"/ws/chat/tournament/{tournament.pk}/"
    a, opening = await connect(path, anna)
    assert opening["rooms"] == [
        {"part": "event", "writable": True, "closed": False, "closable": False, "lines": []}
    ]
    b, _ = await connect(path, bruno)
    guest, guest_opening = await connect(path, AnonymousUser())
    assert guest_opening["signed_in"] is False
    o, organizer_opening = await connect(path, organizer)
    assert organizer_opening["rooms"][0]["closable"] is True

    await a.send_json_to({"type": "say", "part": "event", "text": "<b>ciao</b>", "id": 1})
    # The reply and the room's push, in either order (the push goes through Redis).
    first, second = [await a.receive_json_from(timeout=5) for _ in range(2)]
    said, own = sorted([first, second], key=lambda message: message["type"] != "said")
    assert said == {"type": "said", "line": own["line"], "id": 1}
    assert own["text"] == "<b>ciao</b>"
    for socket in (b, guest, o):
        line = await next_of(socket, "line")
        assert (line["text"], line["author"]["name"]) == ("<b>ciao</b>", anna.username)

    # Bruno mutes Anna: her next line reaches everyone but him; his socket stays up.
    await b.send_json_to({"type": "mute", "player": anna.pk})
    muted = await next_of(b, "muted")
    assert muted["players"] == [{"id": anna.pk, "name": anna.username}]
    await a.send_json_to({"type": "say", "part": "event", "text": "di nuovo"})
    assert (await next_of(guest, "line"))["text"] == "di nuovo"
    await nothing_more(b)
    b2, reopened = await connect(path, bruno)  # kept on the account: a new page too
    assert [line["text"] for line in reopened["rooms"][0]["lines"]] == []

    # Refusals are replies; the socket stays open.
    await guest.send_json_to({"type": "say", "part": "event", "text": "io?", "id": 7})
    assert await next_of(guest, "error") == {
        "type": "error", "code": "sign_in", "message": "sign in to write", "id": 7
    }  # fmt: skip
    await a.send_json_to({"type": "say", "part": "event", "text": "x" * 201})
    assert (await next_of(a, "error"))["code"] == "too_long"
    await a.send_json_to({"type": "close"})
    assert (await next_of(a, "error"))["code"] == "not_organizer"

    # The organizer closes the room: every page is told; nothing more is written.
    await o.send_json_to({"type": "close"})
    for socket in (a, guest, o):
        assert await next_of(socket, "closed") == {
            "type": "closed",
            "part": "event",
            "closed": True,
        }
    await a.send_json_to({"type": "say", "part": "event", "text": "chiusa?"})
    assert (await next_of(a, "error"))["code"] == "closed"
    await o.send_json_to({"type": "open"})
    opened = await next_of(guest, "closed")
    assert [line["text"] for line in opened["lines"]] == ["<b>ciao</b>", "di nuovo"]
    for socket in (a, b, b2, guest, o):
        await socket.disconnect()


async def test_a_mute_holds_in_every_tab_of_the_player():
    """RULES 9.5: Bruno has the room open in two tabs and mutes Anna in one; the other is told
    and drops her lines too (before, it went on showing them until reloaded)."""
    tournament = await database_sync_to_async(TournamentFactory)()
    anna, bruno = await database_sync_to_async(UserFactory.create_batch)(2)
    path = f"/ws/chat/tournament/{tournament.pk}/"
    a, _ = await connect(path, anna)
    first_tab, _ = await connect(path, bruno)
    second_tab, _ = await connect(path, bruno)
    await first_tab.send_json_to({"type": "mute", "player": anna.pk})
    assert (await next_of(first_tab, "muted"))["players"][0]["id"] == anna.pk
    told = await next_of(second_tab, "muted")
    assert told["players"] == [{"id": anna.pk, "name": anna.username}]
    await a.send_json_to({"type": "say", "part": "event", "text": "mi senti?"})
    assert (await next_of(a, "line"))["text"] == "mi senti?"
    await nothing_more(second_tab)
    await nothing_more(first_tab)  # the tab that muted: its own answer was enough

    await second_tab.send_json_to({"type": "unmute", "player": anna.pk})
    assert (await next_of(first_tab, "muted"))["players"] == []
    await a.send_json_to({"type": "say", "part": "event", "text": "e ora?"})
    assert (await next_of(first_tab, "line"))["text"] == "e ora?"
    for socket in (a, first_tab, second_tab):
        await socket.disconnect()


async def test_a_rated_games_players_and_spectators_have_their_own_rooms():
    game = await database_sync_to_async(open_game)(at_ms=now_ms(), rated=True)
    watcher = await database_sync_to_async(UserFactory)()
    path = f"/ws/chat/game/{game.pk}/"
    w, w_open = await connect(path, game.white)
    assert [room["part"] for room in w_open["rooms"]] == ["players"]
    b, _ = await connect(path, game.black)
    s, s_open = await connect(path, watcher)
    assert [room["part"] for room in s_open["rooms"]] == ["spectators"]

    await s.send_json_to({"type": "say", "part": "spectators", "text": "Cf3 vince!"})
    assert (await next_of(s, "line"))["part"] == "spectators"
    await w.send_json_to({"type": "say", "part": "players", "text": "buona partita"})
    assert (await next_of(b, "line"))["text"] == "buona partita"
    assert (await next_of(w, "line"))["text"] == "buona partita"
    await nothing_more(s)  # the players' room is theirs
    await nothing_more(b)  # and the audience's word never reached them

    await database_sync_to_async(game_resign)(game_id=game.pk, user_id=game.black_id)
    w2, after = await connect(path, game.white)
    rooms = {room["part"]: room for room in after["rooms"]}
    assert [line["text"] for line in rooms["spectators"]["lines"]] == ["Cf3 vince!"]
    for socket in (w, b, s, w2):
        await socket.disconnect()


async def test_a_removed_line_leaves_the_pages_and_an_unknown_place_is_refused():
    tournament = await database_sync_to_async(TournamentFactory)()
    anna = await database_sync_to_async(UserFactory)()
    a, _ = await connect(f"/ws/chat/tournament/{tournament.pk}/", anna)
    await a.send_json_to({"type": "say", "part": "event", "text": "ops"})
    line = await next_of(a, "line")
    await database_sync_to_async(services.remove_lines)([line["line"]])
    assert await next_of(a, "removed") == {"type": "removed", "line": line["line"]}
    assert await database_sync_to_async(Message.objects.filter(removed=True).count)() == 1
    await a.disconnect()

    for path in ("/ws/chat/tournament/999999999/", "/ws/chat/nonsense/1/"):
        communicator = WebsocketCommunicator(application, path)
        communicator.scope["user"] = anna
        await communicator.connect()
        assert await communicator.receive_output(timeout=5) == {
            "type": "websocket.close", "code": 4404
        }  # fmt: skip


async def test_every_reply_repeats_the_request_id_and_a_line_never_takes_it():
    """A client matches replies by its own `id`: mute, unmute and report answered without it,
    and a pushed line carried its number in `id`, where a client would take it for a reply."""
    tournament = await database_sync_to_async(TournamentFactory)()
    anna, bruno = await database_sync_to_async(UserFactory.create_batch)(2)
    path = f"/ws/chat/tournament/{tournament.pk}/"
    a, _ = await connect(path, anna)
    b, _ = await connect(path, bruno)
    await a.send_json_to({"type": "say", "part": "event", "text": "ciao", "id": 11})
    line = await next_of(b, "line")
    assert "id" not in line and isinstance(line["line"], int)
    await b.send_json_to({"type": "mute", "player": anna.pk, "id": 12})
    assert (await next_of(b, "muted"))["id"] == 12
    await b.send_json_to({"type": "unmute", "player": anna.pk, "id": 13})
    assert (await next_of(b, "muted"))["id"] == 13
    await b.send_json_to({"type": "report", "line": line["line"], "id": 14})
    assert await next_of(b, "reported") == {"type": "reported", "line": line["line"], "id": 14}
    await b.send_json_to({"type": "mute", "player": 0, "id": 15})
    assert (await next_of(b, "error"))["id"] == 15
    for socket in (a, b):
        await socket.disconnect()
