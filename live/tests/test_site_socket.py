"""`/ws/me/`, the site socket, with WebsocketCommunicator on the real Redis channel layer."""

from __future__ import annotations

import asyncio

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


async def test_a_player_between_two_pages_stays_online_for_one_stale_window():
    """Going from one page to the next closes the site socket before the next page opens its
    own: the page rendered in between must still show the player online."""
    from accounts.selectors import online_ids
    from live import presence
    from live.models import Connection

    anna = await database_sync_to_async(UserFactory)()
    for _page in range(3):  # three navigations leave one lingering row, not three
        socket = WebsocketCommunicator(application, "/ws/me/")
        socket.scope["user"] = anna
        assert (await socket.connect())[0]
        # The row is written just after the handshake is accepted: wait for it (bounded).
        for _try in range(100):
            if await database_sync_to_async(
                Connection.objects.filter(user_id=anna.pk)
                .exclude(key__startswith=presence.LINGER_PREFIX)
                .exists
            )():
                break
            await asyncio.sleep(0.02)
        assert await database_sync_to_async(online_ids)([anna.pk]) == {anna.pk}
        await socket.disconnect()
    assert await database_sync_to_async(online_ids)([anna.pk]) == {anna.pk}
    rows = await database_sync_to_async(list)(Connection.objects.filter(user_id=anna.pk))
    assert len(rows) == 1
    later = rows[0].seen_ms + presence.STALE_MS + 1
    assert (
        await database_sync_to_async(presence.online)(topic="site", user_ids=[anna.pk], at_ms=later)
        == set()
    )
    assert await database_sync_to_async(presence.sweep)(at_ms=later + presence.STALE_MS) == 1


# --- a game just opened for the player is told as the socket opens -----------------------------


def _open_game(white, black):
    from games.services import game_open

    return game_open(
        white_id=white.pk,
        black_id=black.pk,
        variant_code="chess",
        base_seconds=300,
        increment_seconds=0,
        rated=False,
    )


async def _site_socket(user) -> WebsocketCommunicator:
    socket = WebsocketCommunicator(application, "/ws/me/")
    socket.scope["user"] = user
    assert (await socket.connect())[0]
    return socket


async def test_a_game_opened_while_the_page_had_no_socket_is_told_as_it_opens():
    """The `mygame` push was sent while this page had no site socket (a page opened a second
    later, a socket down at that instant): the socket says it as it opens, so the page still
    goes to the board."""
    anna, bruno, carla = [await database_sync_to_async(UserFactory)() for _ in range(3)]
    game = await database_sync_to_async(_open_game)(anna, bruno)
    for user in (anna, bruno):
        socket = await _site_socket(user)
        assert await socket.receive_json_from(timeout=5) == {
            "type": "changed",
            "what": "mygame",
            "game": game.pk,
        }
        await socket.disconnect()
    socket = await _site_socket(carla)  # not hers
    assert await socket.receive_nothing(timeout=0.3)
    await socket.disconnect()


async def test_a_game_the_player_sat_at_is_not_told_again():
    """Once a page of theirs is at the board, their other pages stay where they are; the
    opponent who has not sat yet is still told."""
    from games.services import game_presence

    anna, bruno = [await database_sync_to_async(UserFactory)() for _ in range(2)]
    game = await database_sync_to_async(_open_game)(anna, bruno)
    await database_sync_to_async(game_presence)(
        game_id=game.pk, user_id=anna.pk, connected=True, key="anna-board"
    )
    socket = await _site_socket(anna)
    assert await socket.receive_nothing(timeout=0.3)
    await socket.disconnect()
    socket = await _site_socket(bruno)
    assert (await socket.receive_json_from(timeout=5))["game"] == game.pk
    await socket.disconnect()


async def test_an_older_or_finished_game_is_not_told():
    """After a minute nothing takes a page anywhere unasked; a finished game never."""
    from datetime import timedelta

    from django.utils import timezone

    from games.models import Game
    from games.services import game_resign

    anna, bruno, carla, dario = [await database_sync_to_async(UserFactory)() for _ in range(4)]
    older = await database_sync_to_async(_open_game)(anna, bruno)
    await database_sync_to_async(Game.objects.filter(pk=older.pk).update)(
        created_at=timezone.now() - timedelta(seconds=61)
    )
    finished = await database_sync_to_async(_open_game)(carla, dario)
    await database_sync_to_async(game_resign)(game_id=finished.pk, user_id=carla.pk)
    for user in (anna, dario):
        socket = await _site_socket(user)
        assert await socket.receive_nothing(timeout=0.3)
        await socket.disconnect()


async def test_the_socket_opens_even_when_the_news_fails():
    """The news is a help: a function that fails leaves the socket open and its presence
    recorded."""
    from live import consumers

    def broken(user_id: int) -> list[dict]:
        raise RuntimeError("no news")

    anna = await database_sync_to_async(UserFactory)()
    consumers.news_on_connect(broken)
    try:
        socket = await _site_socket(anna)
        assert await socket.receive_nothing(timeout=0.3)
        await socket.send_json_to({"type": "ping"})
        await socket.disconnect()
    finally:
        consumers._news_on_connect.remove(broken)


async def test_a_challenge_just_come_is_told_as_the_socket_opens():
    """The game page writes its notices into itself (one request a view): a challenge posted
    between that render and the site socket's joining its group is told as the socket opens,
    so the page re-fetches them; an older one the page already has is not."""
    from datetime import timedelta

    from django.utils import timezone

    from games.models import Challenge

    anna, bruno = [await database_sync_to_async(UserFactory)() for _ in range(2)]
    challenge = await database_sync_to_async(challenge_create)(
        challenger_id=anna.pk,
        opponent_id=bruno.pk,
        variant_code="chess",
        base_seconds=300,
        increment_seconds=0,
        color="random",
        rated=False,
    )
    socket = await _site_socket(bruno)
    assert await socket.receive_json_from(timeout=5) == {"type": "changed", "what": "challenges"}
    await socket.disconnect()
    socket = await _site_socket(anna)  # hers, not addressed to her
    assert await socket.receive_nothing(timeout=0.3)
    await socket.disconnect()
    await database_sync_to_async(Challenge.objects.filter(pk=challenge.pk).update)(
        created_at=timezone.now() - timedelta(seconds=31)
    )
    socket = await _site_socket(bruno)
    assert await socket.receive_nothing(timeout=0.3)
    await socket.disconnect()
