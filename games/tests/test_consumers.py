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


def game_pushes_refused(monkeypatch) -> None:
    """From now on the channel layer refuses to publish a game's state, as with Redis away:
    each socket must give its own client the state it could not push."""
    from channels.layers import get_channel_layer

    layer = get_channel_layer()
    real_send = layer.group_send

    async def redis_away(group, message):
        if message.get("type") == "game.state":
            raise ConnectionError("Redis away")
        return await real_send(group, message)

    monkeypatch.setattr(layer, "group_send", redis_away)


async def receive_until(communicator, predicate, timeout: float = 5.0) -> dict:
    """The first message matching `predicate` (earlier ones, e.g. presence, are skipped)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        left = deadline - asyncio.get_running_loop().time()
        message = await communicator.receive_json_from(timeout=max(left, 0.01))
        if predicate(message):
            return message


def at_ply(ply: int):
    """A full state or a move's delta at this ply (docs/protocol.md)."""
    return lambda m: m["type"] in ("state", "played") and m["ply"] == ply


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
        assert moved["clock"]["running"] == "black"
        if moved["type"] == "state":
            # A presence change pushed right after the move reads the whole game: also right.
            assert moved["moves"] == ["e2e4"]
            continue
        # A move travels as what it changed: the move, its notation, position and clocks.
        assert (moved["type"], moved["move"], moved["notation"]) == ("played", "e2e4", ["e4", "e4"])
        assert "moves" not in moved

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
    # The state read as it connects comes first; its presence follows, newer (docs/protocol.md).
    resumed = await receive_until(b, lambda m: at_ply(1)(m) and m["black"]["connected"])
    assert resumed["moves"] == ["e2e4"]
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
    # The handshake is accepted, then closed with the code, so a browser sees 4404.
    connected, _ = await communicator.connect()
    assert connected
    assert await communicator.receive_output(timeout=5) == {"type": "websocket.close", "code": 4404}


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
    from live import presence
    from live.models import Connection
    from live.presence import ProcessConnections

    monkeypatch.setattr(presence, "HEARTBEAT_SECONDS", 0.05)
    game, white, _black = await new_game()
    w = await connect(game.pk, white)
    await receive_until(w, lambda m: m["type"] == "state" and m["white"]["connected"])
    rows = await database_sync_to_async(
        lambda: list(Connection.objects.values_list("key", "topic", "user_id", "seen_ms"))
    )()
    assert len(rows) == 1 and rows[0][1:3] == (f"game:{game.pk}", white.pk)
    key, _topic, _user, first_seen = rows[0]
    assert key in ProcessConnections.keys

    def refreshed() -> bool:
        return Connection.objects.values_list("seen_ms", flat=True).get(key=key) > first_seen

    for _ in range(100):  # the heartbeat beats every 50 ms here
        if await database_sync_to_async(refreshed)():
            break
        await asyncio.sleep(0.05)
    assert await database_sync_to_async(refreshed)()
    await w.disconnect()
    assert key not in ProcessConnections.keys and ProcessConnections.task is None
    assert not await database_sync_to_async(Connection.objects.exists)()


async def test_a_watching_socket_follows_the_game_and_never_sits_its_player():
    """`?watch` (an event's or a match's top boards): the game's own player watching from such
    a page is not present at it — never sat (RULES 3, 16.5) — and acts on nothing; their moves
    from the board still reach the board that watches."""
    from live.models import Connection

    game, white, black = await new_game()
    communicator = WebsocketCommunicator(application, f"/ws/game/{game.pk}/?watch")
    communicator.scope["user"] = white
    connected, _ = await communicator.connect()
    assert connected
    first = await communicator.receive_json_from(timeout=5)
    assert first["type"] == "state" and not first["white"]["connected"]
    await communicator.send_json_to({"type": "move", "ply": 0, "move": "e2e4", "id": 1})
    refused = await receive_until(communicator, lambda m: m["type"] == "error")
    assert (refused["code"], refused.get("id")) == ("watching", 1)
    assert not await database_sync_to_async(Connection.objects.exists)()
    stored = await database_sync_to_async(Game.objects.get)(pk=game.pk)
    assert (stored.ply, stored.white_sat, stored.black_sat) == (0, False, False)
    # Played from the player's own board, the move reaches the watching one.
    board = await connect(game.pk, white)
    await board.send_json_to({"type": "move", "ply": 0, "move": "e2e4"})
    await receive_until(communicator, at_ply(1))
    await board.disconnect()
    await communicator.disconnect()
    stored = await database_sync_to_async(Game.objects.get)(pk=game.pk)
    assert (stored.ply, stored.white_sat, stored.black_sat) == (1, True, False)


async def test_a_connect_reads_the_game_once_and_sends_it_first(monkeypatch):
    """A round start connects every player at once: each socket reads its game once (before,
    twice), its first message is that state, and a player's presence follows as a newer one.
    With Redis away the presence's state still reaches the player's own socket."""

    from games import consumers

    reads = []
    real_state = consumers.state_read

    def counted(game_id):
        reads.append(game_id)
        return real_state(game_id)

    monkeypatch.setattr(consumers, "state_read", counted)
    game, white, _black = await new_game()
    w = await connect(game.pk, white)
    first = await w.receive_json_from(timeout=5)
    assert (first["type"], first["ply"], first["white"]["connected"]) == ("state", 0, False)
    sat = await receive_until(w, lambda m: m["type"] == "state" and m["white"]["connected"])
    assert sat["version"] > first["version"]
    watcher = await connect(game.pk, AnonymousUser())
    assert (await watcher.receive_json_from(timeout=5))["white"]["connected"]
    assert reads == [game.pk, game.pk]  # one read a socket
    await w.disconnect()

    game_pushes_refused(monkeypatch)
    again = await connect(game.pk, white)
    await receive_until(again, lambda m: m["type"] == "state" and m["white"]["connected"])
    await again.disconnect()
    await watcher.disconnect()


async def test_the_mover_gets_the_committed_state_when_the_push_fails(monkeypatch):
    """With Redis away, the mover of a committed move still gets its state: the failed push
    must not leave them with neither a state nor an error reply."""

    game, white, _black = await new_game()
    w = await connect(game.pk, white)
    await receive_until(w, at_ply(0))
    game_pushes_refused(monkeypatch)
    await w.send_json_to({"type": "move", "ply": 0, "move": "e2e4"})
    moved = await receive_until(w, at_ply(1))
    assert moved["move"] == "e2e4"
    stored = await database_sync_to_async(Game.objects.get)(pk=game.pk)
    assert stored.ply == 1
    await w.disconnect()


async def test_a_socket_process_plays_from_memory_from_the_first_move():
    """A player's socket reads the game on connect and the process remembers it from that
    read (games.services.memory): the first moves over the socket are written from memory, and
    the players see them as ever."""
    from games.services import memory

    game, white, black = await new_game()
    w, b = await connect(game.pk, white), await connect(game.pk, black)
    # Both seated first (each presence change is a write of the row, remembered too).
    await receive_until(
        w, lambda m: m["type"] == "state" and m["white"]["connected"] and m["black"]["connected"]
    )
    before = memory.counts["remembered"]
    await w.send_json_to({"type": "move", "ply": 0, "move": "e2e4"})
    await receive_until(b, at_ply(1))
    await b.send_json_to({"type": "move", "ply": 1, "move": "e7e5"})
    moved = await receive_until(w, at_ply(2))
    assert (moved["type"], moved["move"]) == ("played", "e7e5")
    assert memory.counts["remembered"] == before + 2, memory.counts
    stored = await database_sync_to_async(Game.objects.get)(pk=game.pk)
    assert (stored.ply, stored.moves) == (2, ["e2e4", "e7e5"])
    await w.disconnect()
    await b.disconnect()


async def seated(moves=("e2e4", "e7e5")):
    """Two players connected and seated, `moves` played over the sockets (from memory)."""
    game, white, black = await new_game()
    w, b = await connect(game.pk, white), await connect(game.pk, black)
    await receive_until(
        w, lambda m: m["type"] == "state" and m["white"]["connected"] and m["black"]["connected"]
    )
    for ply, move in enumerate(moves):
        mover, other = (w, b) if ply % 2 == 0 else (b, w)
        await mover.send_json_to({"type": "move", "ply": ply, "move": move})
        await receive_until(other, at_ply(ply + 1))
    return game, w, b


async def seated_at_ply_2():
    return await seated()


@database_sync_to_async
def stored_ply(game_id: int) -> int:
    return Game.objects.get(pk=game_id).ply


async def test_a_row_held_too_long_answers_busy_from_the_loop_and_the_game_goes_on(monkeypatch):
    from live import locks
    from tests.concurrency import RowHeld

    monkeypatch.setattr(locks, "LOCK_TIMEOUT_MS", 300)  # the statement connections' own
    game, w, b = await seated_at_ply_2()
    loop = asyncio.get_running_loop()
    held = await loop.run_in_executor(None, RowHeld(Game.objects.filter(pk=game.pk)).start)
    try:
        await w.send_json_to({"type": "move", "ply": 2, "move": "g1f3", "id": 5})
        reply = await receive_until(w, lambda m: m["type"] == "error")
        assert (reply["code"], reply["id"]) == ("busy", 5)
    finally:
        await loop.run_in_executor(None, held.release)
    assert await stored_ply(game.pk) == 2
    await w.send_json_to({"type": "move", "ply": 2, "move": "g1f3"})
    moved = await receive_until(b, at_ply(3))
    assert moved["move"] == "g1f3"
    await w.disconnect()
    await b.disconnect()


async def test_a_move_that_outlives_its_answer_is_played_once_and_pushed(settings):
    """A move whose statement is still waiting (here for a row held elsewhere) when its time is
    up (SOCKET_ANSWER_SECONDS): the mover is answered `unavailable` in time, the socket stays;
    once the row is free the move is written, once, and its state pushed to both players as
    ever: nothing committed goes unsaid (live.threads, `late`)."""
    from tests.concurrency import RowHeld

    settings.SOCKET_ANSWER_SECONDS = 1.0  # the row lock's own wait (LOCK_TIMEOUT_MS) is 5 s
    game, w, b = await seated_at_ply_2()
    loop = asyncio.get_running_loop()
    held = await loop.run_in_executor(None, RowHeld(Game.objects.filter(pk=game.pk)).start)
    try:
        await w.send_json_to({"type": "move", "ply": 2, "move": "g1f3", "id": 6})
        reply = await receive_until(w, lambda m: m["type"] in ("error", "played"), timeout=2)
        assert (reply["type"], reply["code"], reply["id"]) == ("error", "unavailable", 6)
        assert (reply["ply"], reply["version"]) == (None, None)  # not read: the client syncs
    finally:
        await loop.run_in_executor(None, held.release)
    for communicator in (b, w):
        moved = await receive_until(communicator, at_ply(3))
        assert moved["move"] == "g1f3"
    assert await stored_ply(game.pk) == 3
    await w.send_json_to({"type": "ping", "id": 1})
    assert (await receive_until(w, lambda m: m["type"] == "pong"))["id"] == 1
    await w.disconnect()
    await b.disconnect()


async def test_a_connection_lost_under_the_move_is_an_outage_answered(monkeypatch):
    """The socket thread's connection ends while the move's statement (from memory) waits, here
    for a row held elsewhere: the mover is told `unavailable` (no crash, the socket stays), the
    game is forgotten, and the move sent again is played once the row is free."""
    from tests.concurrency import RowHeld

    game, w, b = await seated_at_ply_2()
    loop = asyncio.get_running_loop()
    held = await loop.run_in_executor(None, RowHeld(Game.objects.filter(pk=game.pk)).start)
    try:
        await w.send_json_to({"type": "move", "ply": 2, "move": "g1f3", "id": 9})
        pids = []
        for _ in range(100):  # until the move's UPDATE waits for the row
            pids = await busy_statement_pids(exclude=set())
            if pids:
                break
            await asyncio.sleep(0.02)
        assert pids
        await terminate(pids, wait=False)
        reply = await receive_until(w, lambda m: m["type"] in ("error", "played"))
        assert (reply["type"], reply["code"], reply["id"]) == ("error", "unavailable", 9)
    finally:
        await loop.run_in_executor(None, held.release)
    assert await stored_ply(game.pk) == 2
    await w.send_json_to({"type": "move", "ply": 2, "move": "g1f3"})
    assert (await receive_until(b, at_ply(3)))["move"] == "g1f3"
    await w.send_json_to({"type": "ping", "id": 1})
    assert (await receive_until(w, lambda m: m["type"] == "pong"))["id"] == 1
    await w.disconnect()
    await b.disconnect()


@database_sync_to_async
def terminate(pids, *, wait: bool = True) -> None:
    """End these backends (`wait`: until they are gone, as after a restart)."""
    import time

    from django.db import connection

    with connection.cursor() as cursor:
        for pid in pids:
            cursor.execute("SELECT pg_terminate_backend(%s)", [pid])
        for _ in range(200 if wait else 0):
            cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = ANY(%s)", [pids])
            if cursor.fetchone()[0] == 0:
                return
            time.sleep(0.02)


@database_sync_to_async
def busy_statement_pids(exclude) -> list[int]:
    """Backends waiting on a lock with the move's UPDATE from memory."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
            " AND datname = current_database()"
            " AND query LIKE 'UPDATE%%row_stamp%%'"
        )
        return [pid for (pid,) in cursor.fetchall() if pid not in exclude]


async def test_takeback_more_time_and_abort_over_the_socket():
    """docs/protocol.md: the requests and answers of a casual game, the `takeback_declined`
    news, a refusal as an `error` with the ply and version, and an abort everyone sees."""
    game, white, black = await new_game(rated=False)
    w, b = await connect(game.pk, white), await connect(game.pk, black)
    state = await receive_until(w, at_ply(0))
    assert (state["takebacks"], state["abortable"], state["takeback"]) == (True, True, None)
    await w.send_json_to({"type": "move", "ply": 0, "move": "e2e4"})
    await receive_until(b, at_ply(1))
    await b.send_json_to({"type": "takeback_offer", "ply": 1, "id": 5})
    error = await receive_until(b, lambda m: m["type"] == "error")
    assert (error["code"], error["ply"], error["id"]) == ("no_takeback", 1, 5)
    await w.send_json_to({"type": "takeback_offer", "ply": 1})
    asked = await receive_until(b, lambda m: m["type"] == "state" and m["takeback"] == "white")
    await b.send_json_to({"type": "takeback_decline"})
    declined = await receive_until(w, lambda m: m["type"] == "takeback_declined")
    assert (declined["offer"], declined["version"]) == ("white", asked["version"] + 1)
    await w.send_json_to({"type": "more_time"})
    given = await receive_until(
        b, lambda m: m["type"] == "state" and m["version"] > asked["version"] + 1
    )
    assert given["clock"]["black_ms"] > state["clock"]["black_ms"]
    await b.send_json_to({"type": "abort", "ply": 1})
    ended = await receive_until(w, lambda m: m["type"] == "state" and m["status"] == "finished")
    assert (ended["result"], ended["reason"]) == ("", "aborted")
    await w.disconnect()
    await b.disconnect()


async def test_a_typed_move_is_read_by_the_server_and_bad_input_changes_nothing():
    """The text mode's `move` with `text` (docs/protocol.md): Italian or English letters, the
    reading's refusals with their codes, the ambiguous capture's paths; the socket stays up."""
    game, white, black = await new_game()
    w = await connect(game.pk, white)
    await receive_until(w, at_ply(0))
    await w.send_json_to({"type": "move", "ply": 0, "text": "Cf3", "lang": "it"})
    moved = await receive_until(w, at_ply(1))
    assert moved.get("move", moved.get("last_move")) == "g1f3"
    b = await connect(game.pk, black)
    await receive_until(b, at_ply(1))
    for text, code in (("hello", "unreadable_move"), ("Nf4", "illegal_move"), ("", "malformed")):
        await b.send_json_to({"type": "move", "ply": 1, "text": text, "lang": "en", "id": text})
        error = await receive_until(b, lambda m: m["type"] == "error")
        assert (error["code"], error["id"], error["ply"]) == (code, text, 1)
    await b.send_json_to({"type": "move", "ply": 0, "text": "Nf6"})
    assert (await receive_until(b, lambda m: m["type"] == "error"))["code"] == "stale_ply"
    await w.send_json_to({"type": "move", "ply": 1, "text": "e4"})
    assert (await receive_until(w, lambda m: m["type"] == "error"))["code"] == "not_your_turn"
    await b.send_json_to({"type": "move", "ply": 1, "text": "Nf6", "lang": "en"})
    assert (await receive_until(b, at_ply(2)))["fen"].startswith("rnbqkb1r/pppppppp/5n2")

    italian, white2, _ = await new_game(variant_code="italian", start_fen="W:W30:B18,19,26,27,1")
    d = await connect(italian.pk, white2)
    await receive_until(d, at_ply(0))
    await d.send_json_to({"type": "move", "ply": 0, "text": "30x14"})
    error = await receive_until(d, lambda m: m["type"] == "error")
    assert (error["code"], error["choices"]) == ("ambiguous_move", ["30x21x14", "30x23x14"])
    await d.send_json_to({"type": "move", "ply": 0, "text": "30x23x14"})
    assert (await receive_until(d, at_ply(1)))["notation"][-1] in ("30x23x14", ["30x23x14"] * 2)
    for communicator in (w, b, d):
        await communicator.disconnect()
