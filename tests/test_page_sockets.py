"""A page's one socket (config/page_sockets.py; docs/protocol.md, "Page sockets") with
WebsocketCommunicator on the real Redis channel layer: the game's (or the tournament's, the
arena's) messages as their own socket sends them, the chat's and the site's news beside them
with `on`."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser

from accounts.tests.factories import UserFactory
from arena.tests.factories import EntryFactory
from chat import services as chat_services
from config.routing import websocket_urlpatterns
from games.models import Game
from games.services import challenge_cancel, challenge_create, game_open, game_resign
from games.tests.test_consumers import game_pushes_refused, receive_until
from live.consumers import SITE_KEY_SUFFIX, SITE_TOPIC
from live.models import Connection
from live.presence import LINGER_PREFIX
from tournaments.tests.factories import TournamentFactory

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

application = URLRouter(websocket_urlpatterns)


def _game(white, black, *, rated: bool) -> Game:
    return game_open(
        white_id=white.pk,
        black_id=black.pk,
        variant_code="chess",
        base_seconds=300,
        increment_seconds=0,
        rated=rated,
    )


async def _opened(path: str, user) -> WebsocketCommunicator:
    socket = WebsocketCommunicator(application, path)
    socket.scope["user"] = user
    assert (await socket.connect())[0]
    return socket


async def _page(game_id: int, user) -> WebsocketCommunicator:
    return await _opened(f"/ws/page/game/{game_id}/", user)


def _challenge(challenger, opponent):
    return challenge_create(
        challenger_id=challenger.pk,
        opponent_id=opponent.pk,
        variant_code="chess",
        base_seconds=300,
        increment_seconds=0,
        color="random",
        rated=False,
    )


async def _settled(socket) -> None:
    """The socket's opening done: a ping is answered once it is (messages are handled in turn)."""
    await socket.send_json_to({"type": "ping", "id": "settled"})
    await receive_until(socket, lambda m: m.get("type") == "pong")


def _rows(user_id: int) -> list[tuple[str, str]]:
    return sorted(Connection.objects.filter(user_id=user_id).values_list("key", "topic"))


async def test_a_players_page_socket_carries_the_game_its_chat_and_the_site_news():
    anna, bruno, carla = await database_sync_to_async(UserFactory.create_batch)(3)
    game = await database_sync_to_async(_game)(anna, bruno, rated=True)
    # A challenge comes for her between the page's render and its socket's opening.
    challenge = await database_sync_to_async(_challenge)(carla, anna)
    before = await database_sync_to_async(lambda: Game.objects.get(pk=game.pk).version)()
    a = await _page(game.pk, anna)
    # Three messages: her first state is the one her presence pushed (the game read and its
    # state worked out once; as the game socket's states, no `on`), the chat's opening and the
    # site's news, as the site socket tells it as it opens (the challenge just come).
    first = [await a.receive_json_from(timeout=5) for _ in range(3)]
    state = next(m for m in first if m["type"] == "state")
    assert "on" not in state and state["game"] == game.pk
    assert state["white"]["connected"] and state["version"] == before + 1
    chat = next(m for m in first if m["type"] == "chat")
    assert chat["on"] == "chat"
    # RULES 9.1: a rated game's player reads only the players' room while it is played.
    assert [room["part"] for room in chat["rooms"]] == ["players"]
    news = next(m for m in first if m.get("on") == "me")
    assert news == {"type": "changed", "what": "challenges", "on": "me"}
    assert first.index(chat) < first.index(news)  # the news after the chat, sent in turn
    # No second state of hers: it is read once.
    assert await a.receive_nothing(timeout=0.3)
    rows = await database_sync_to_async(_rows)(anna.pk)
    assert {topic for _key, topic in rows} == {f"game:{game.pk}", SITE_TOPIC}
    site_key = next(key for key, topic in rows if topic == SITE_TOPIC)
    assert site_key.endswith(SITE_KEY_SUFFIX)

    # A move, as on the game socket; the chat, as on the chat socket, its replies with `on`.
    await a.send_json_to({"type": "move", "ply": 0, "move": "e2e4"})
    played = await receive_until(
        a, lambda m: m.get("type") in ("played", "state") and m["ply"] == 1
    )
    assert "on" not in played
    await a.send_json_to({"type": "say", "part": "players", "text": "Buona partita!", "id": 7})
    said = await receive_until(a, lambda m: m.get("type") == "said")
    assert said["on"] == "chat" and said["id"] == 7
    line = await receive_until(a, lambda m: m.get("type") == "line")
    assert line["on"] == "chat" and line["text"] == "Buona partita!"
    # A chat message refused is the chat's error; a game's is the game's (its ply with it).
    await a.send_json_to({"type": "say", "part": "spectators", "text": "ciao", "id": 8})
    refused = await receive_until(a, lambda m: m.get("type") == "error")
    assert refused["on"] == "chat" and refused["id"] == 8 and "ply" not in refused
    await a.send_json_to({"type": "move", "ply": 0, "move": "d2d4", "id": 9})
    stale = await receive_until(a, lambda m: m.get("type") == "error")
    assert "on" not in stale and stale["ply"] == 1 and stale["id"] == 9

    # A push to her `user.<id>` group (the challenge withdrawn) comes with `on: me`.
    await database_sync_to_async(challenge_cancel)(challenge_id=challenge.pk, user_id=carla.pk)
    pushed = await receive_until(a, lambda m: m.get("type") == "changed")
    assert pushed == {"type": "changed", "what": "challenges", "on": "me"}

    await a.disconnect()
    # Both rows gone; the site's lingers one stale window, as a site socket's does.
    rows = await database_sync_to_async(_rows)(anna.pk)
    assert rows == [(f"{LINGER_PREFIX}{SITE_TOPIC}:{anna.pk}", SITE_TOPIC)]
    refreshed = await database_sync_to_async(Game.objects.get)(pk=game.pk)
    assert refreshed.white_connections == 0


async def test_after_the_game_its_players_ask_the_chat_again_and_read_the_spectators():
    """RULES 9.1: the chat's rooms change when a rated game ends; the page's chat part asks for
    them again (`again`) on the socket it shares, and from then reads the spectators' room."""
    anna, bruno, carla = await database_sync_to_async(UserFactory.create_batch)(3)
    game = await database_sync_to_async(_game)(anna, bruno, rated=True)
    a = await _page(game.pk, anna)
    await receive_until(a, lambda m: m.get("type") == "chat")
    await database_sync_to_async(game_resign)(game_id=game.pk, user_id=bruno.pk)
    await receive_until(a, lambda m: m.get("type") == "state" and m["status"] != "live")
    await a.send_json_to({"type": "again", "on": "chat"})
    chat = await receive_until(a, lambda m: m.get("type") == "chat")
    assert chat["on"] == "chat"
    assert [room["part"] for room in chat["rooms"]] == ["players", "spectators"]
    # A spectator's line now reaches her.
    c = await _page(game.pk, carla)
    await receive_until(c, lambda m: m.get("type") == "chat")
    await c.send_json_to({"type": "say", "part": "spectators", "text": "Bella partita"})
    line = await receive_until(a, lambda m: m.get("type") == "line")
    assert line["text"] == "Bella partita" and line["on"] == "chat"
    # `again` for anything else is refused; the socket stays up.
    await a.send_json_to({"type": "again", "on": "lobby"})
    refused = await receive_until(a, lambda m: m.get("type") == "error")
    assert refused["code"] == "malformed"
    await a.send_json_to({"type": "ping", "id": 3})
    assert (await receive_until(a, lambda m: m.get("type") == "pong"))["id"] == 3
    for socket in (a, c):
        await socket.disconnect()


async def test_a_guest_gets_the_game_and_the_chat_and_no_news_or_row():
    anna, bruno = await database_sync_to_async(UserFactory.create_batch)(2)
    game = await database_sync_to_async(_game)(anna, bruno, rated=False)
    g = await _page(game.pk, AnonymousUser())
    assert (await g.receive_json_from(timeout=5))["type"] == "state"
    chat = await g.receive_json_from(timeout=5)
    assert chat["type"] == "chat" and chat["signed_in"] is False
    assert await g.receive_nothing(timeout=0.3)
    await g.send_json_to({"type": "again", "on": "me"})
    assert (await receive_until(g, lambda m: m.get("type") == "error"))["code"] == "malformed"
    await g.send_json_to({"type": "mute", "player": anna.pk, "id": 4})
    refused = await receive_until(g, lambda m: m.get("type") == "error")
    assert refused == {
        "type": "error",
        "code": "sign_in",
        "message": "sign in first",
        "id": 4,
        "on": "chat",
    }
    assert await database_sync_to_async(Connection.objects.count)() == 0
    await g.disconnect()


async def test_an_unknown_game_is_refused_with_4404():
    anna = await database_sync_to_async(UserFactory)()
    socket = WebsocketCommunicator(application, "/ws/page/game/987654/")
    socket.scope["user"] = anna
    connected, _ = await socket.connect()
    assert connected
    assert (await socket.receive_output(timeout=5))["code"] == 4404
    assert await database_sync_to_async(Connection.objects.count)() == 0


async def test_a_chat_handler_that_raises_is_answered_as_the_chats_and_the_socket_stays(
    monkeypatch,
):
    anna, bruno = await database_sync_to_async(UserFactory.create_batch)(2)
    game = await database_sync_to_async(_game)(anna, bruno, rated=False)
    a = await _page(game.pk, anna)
    await receive_until(a, lambda m: m.get("type") == "chat")

    def broken(**_kwargs):
        raise RuntimeError("the chat's service broke")

    monkeypatch.setattr(chat_services, "say", broken)
    await a.send_json_to({"type": "say", "part": "players", "text": "ciao", "id": 5})
    error = await receive_until(a, lambda m: m.get("type") == "error")
    assert error == {
        "type": "error",
        "code": "internal",
        "message": "the server could not handle this message",
        "id": 5,
        "on": "chat",
    }
    # The game goes on on the same socket.
    await a.send_json_to({"type": "move", "ply": 0, "move": "e2e4"})
    await receive_until(a, lambda m: m.get("type") in ("played", "state") and m["ply"] == 1)
    await a.disconnect()


async def test_a_tournament_page_socket_says_changed_carries_its_chat_and_the_news():
    tournament = await database_sync_to_async(TournamentFactory)()
    anna, bruno = await database_sync_to_async(UserFactory.create_batch)(2)
    a = await _opened(f"/ws/page/tournament/{tournament.pk}/", anna)
    chat = await a.receive_json_from(timeout=5)
    assert chat["type"] == "chat" and chat["on"] == "chat"
    assert [room["part"] for room in chat["rooms"]] == ["event"]
    await _settled(a)
    rows = await database_sync_to_async(_rows)(anna.pk)
    assert [topic for _key, topic in rows] == [SITE_TOPIC]
    # The tournament's own push, as its socket says it (no `on`).
    from channels.layers import get_channel_layer

    from tournaments.broadcast import group_name

    await get_channel_layer().group_send(
        group_name(tournament.pk), {"type": "tournament.changed", "round": 2}
    )
    assert await receive_until(a, lambda m: m.get("type") == "changed") == {
        "type": "changed",
        "round": 2,
    }
    # Its chat, with `on`; a guest reads it.
    g = await _opened(f"/ws/page/tournament/{tournament.pk}/", AnonymousUser())
    assert (await g.receive_json_from(timeout=5))["signed_in"] is False
    await a.send_json_to({"type": "say", "part": "event", "text": "In bocca al lupo", "id": 1})
    assert (await receive_until(a, lambda m: m.get("type") == "said"))["on"] == "chat"
    line = await receive_until(g, lambda m: m.get("type") == "line")
    assert line["text"] == "In bocca al lupo" and line["on"] == "chat"
    # A challenge to her: the site's news on this socket.
    await database_sync_to_async(_challenge)(bruno, anna)
    assert await receive_until(a, lambda m: m.get("on") == "me") == {
        "type": "changed",
        "what": "challenges",
        "on": "me",
    }
    # The organizer's chat actions answered as the chat's: she is not the organizer.
    await a.send_json_to({"type": "close", "id": 2})
    refused = await receive_until(a, lambda m: m.get("type") == "error")
    assert refused["on"] == "chat" and refused["id"] == 2
    for socket in (a, g):
        await socket.disconnect()
    rows = await database_sync_to_async(_rows)(anna.pk)
    assert rows == [(f"{LINGER_PREFIX}{SITE_TOPIC}:{anna.pk}", SITE_TOPIC)]


async def test_an_arena_page_socket_is_its_players_presence_as_the_arena_socket_is():
    """RULES 8: a player in the arena with its page open is waiting; the page socket records it
    as the arena's socket does, beside the site's row."""
    from arena.selectors import topic as arena_topic

    entry = await database_sync_to_async(EntryFactory)()
    a = await _opened(f"/ws/page/arena/{entry.arena_id}/", entry.player)
    assert (await a.receive_json_from(timeout=5))["on"] == "chat"
    await _settled(a)
    rows = await database_sync_to_async(_rows)(entry.player_id)
    assert sorted(topic for _key, topic in rows) == sorted(
        [arena_topic(entry.arena_id), SITE_TOPIC]
    )
    await a.disconnect()
    rows = await database_sync_to_async(_rows)(entry.player_id)
    assert [topic for _key, topic in rows] == [SITE_TOPIC]


async def test_an_unknown_event_is_refused_with_4404_and_records_nothing():
    anna = await database_sync_to_async(UserFactory)()
    for path in ("/ws/page/tournament/987654/", "/ws/page/arena/987654/"):
        socket = WebsocketCommunicator(application, path)
        socket.scope["user"] = anna
        assert (await socket.connect())[0]
        assert (await socket.receive_output(timeout=5))["code"] == 4404
    assert await database_sync_to_async(Connection.objects.count)() == 0


async def test_a_refused_page_socket_leaves_the_players_presence_between_pages_alone():
    """A page socket refused (no such game) wrote no site row: its close must not take away
    the row that keeps the player online between two pages (`presence.left`)."""
    anna = await database_sync_to_async(UserFactory)()
    site = await _opened("/ws/me/", anna)
    await _settled(site)
    await site.disconnect()
    lingering = [(f"{LINGER_PREFIX}{SITE_TOPIC}:{anna.pk}", SITE_TOPIC)]
    assert await database_sync_to_async(_rows)(anna.pk) == lingering
    socket = WebsocketCommunicator(application, "/ws/page/game/987654/")
    socket.scope["user"] = anna
    assert (await socket.connect())[0]
    assert (await socket.receive_output(timeout=5))["code"] == 4404
    await socket.wait()
    assert await database_sync_to_async(_rows)(anna.pk) == lingering


async def test_the_site_row_is_left_even_when_the_games_clean_up_fails(monkeypatch):
    """The game's part of the clean-up raising (its row locked too long, PostgreSQL away) must
    not leave the site's row vouched for by this process after the socket is gone."""
    from games.consumers import GameConsumer
    from live.presence import ProcessConnections

    anna, bruno = await database_sync_to_async(UserFactory.create_batch)(2)
    game = await database_sync_to_async(_game)(anna, bruno, rated=False)
    a = await _page(game.pk, anna)
    await _settled(a)
    assert any(key.endswith(SITE_KEY_SUFFIX) for key in ProcessConnections.keys)

    def broken(self, connected):
        raise RuntimeError("the game's presence could not be written")

    monkeypatch.setattr(GameConsumer, "_presence", broken)
    await a.disconnect()
    assert not ProcessConnections.keys  # neither the game's nor the site's
    rows = await database_sync_to_async(_rows)(anna.pk)
    assert (f"{LINGER_PREFIX}{SITE_TOPIC}:{anna.pk}", SITE_TOPIC) in rows


async def test_a_players_first_state_reaches_her_when_its_push_cannot_be_published(monkeypatch):
    """Her first state is the one her presence pushes: with Redis refusing the game's pushes,
    it is sent to her own socket directly (`_undelivered`), so the page still has its board."""
    anna, bruno = await database_sync_to_async(UserFactory.create_batch)(2)
    game = await database_sync_to_async(_game)(anna, bruno, rated=False)
    game_pushes_refused(monkeypatch)
    a = await _page(game.pk, anna)
    state = await receive_until(a, lambda m: m.get("type") == "state")
    assert state["white"]["connected"] and state["game"] == game.pk
    await a.disconnect()


async def test_a_spectators_page_socket_reads_the_game_and_locks_nothing(monkeypatch):
    """A spectator records no presence at the game: the game's row is not locked for them (a
    followed game's spectators arriving together would queue behind each other and its moves)."""
    from games.services import presence as game_presence_service

    anna, bruno, carla = await database_sync_to_async(UserFactory.create_batch)(3)
    game = await database_sync_to_async(_game)(anna, bruno, rated=False)
    locked = []
    real = game_presence_service.lock_game
    monkeypatch.setattr(
        game_presence_service, "lock_game", lambda game_id: locked.append(game_id) or real(game_id)
    )
    c = await _page(game.pk, carla)
    state = await c.receive_json_from(timeout=5)
    assert state["type"] == "state" and not state["white"]["connected"]
    assert (await c.receive_json_from(timeout=5))["type"] == "chat"
    await _settled(c)
    assert locked == []
    rows = await database_sync_to_async(_rows)(carla.pk)
    assert [topic for _key, topic in rows] == [SITE_TOPIC]
    await c.disconnect()
