"""A team match played to its end over the sockets (RULES 16.4, 16.5), as a player plays it:
each board's two players at their game's socket, the loser resigning there; the games' ends
reach the match through their settle task and the events router; the match page's socket
hears of it. The points are counted by hand."""

from __future__ import annotations

import pytest
from asgiref.sync import async_to_sync
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.utils import timezone

from games.models import Game, GameResult
from games.routing import websocket_urlpatterns as game_routes
from teams import rules, services
from teams.models import Board, TeamMatch
from teams.routing import websocket_urlpatterns as match_routes
from teams.tests.factories import open_match, side

application = URLRouter(game_routes + match_routes)


async def _play(game_id: int, white, black, loser) -> None:
    """Both players at the board over their sockets; the loser resigns there."""
    sockets = {}
    for user in (white, black):
        socket = WebsocketCommunicator(application, f"/ws/game/{game_id}/")
        socket.scope["user"] = user
        assert (await socket.connect())[0]
        sockets[user.pk] = socket
    await sockets[loser.pk].send_json_to({"type": "resign"})
    watcher = sockets[white.pk if loser.pk == black.pk else black.pk]
    while True:
        message = await watcher.receive_json_from(timeout=10)
        if message.get("type") == "state" and message.get("status") != "live":
            assert message["reason"] == "resignation"
            break
    for socket in sockets.values():
        await socket.disconnect()


async def _play_watched(match_id: int, watcher, games: list[tuple]) -> dict:
    """The games played in turn, `(game_id, white, black, loser)`, while `watcher` has the
    match page open (one event loop for every socket): the first news its socket was told.
    (Later ones inside the same second are throttled into a trailing push, STYLE 4.)"""
    page = WebsocketCommunicator(application, f"/ws/teams/{match_id}/")
    page.scope["user"] = watcher
    assert (await page.connect())[0]
    for game in games:
        await _play(*game)
    message = await page.receive_json_from(timeout=10)
    await page.disconnect()
    return message


@pytest.mark.django_db(transaction=True)
def test_a_match_of_three_boards_played_to_the_end_over_the_sockets():
    milano, torino = side([1900, 1800]), side([2000, 1900, 1800])
    match = open_match(milano, torino, boards=3)
    a, b = milano.players
    services.lineup_set(match_id=match.pk, by=milano.captain, player_ids=[a.pk, b.pk])
    services.lineup_set(
        match_id=match.pk, by=torino.captain, player_ids=[p.pk for p in torino.players]
    )
    # The start, now (the games' clocks run from the real time the sockets see).
    TeamMatch.objects.filter(pk=match.pk).update(starts_at=timezone.now())
    services.match_start(match_id=match.pk)

    one, two, three = Board.objects.filter(match=match).order_by("number")
    assert (one.first_player_id, one.second_player_id) == (a.pk, torino.players[0].pk)
    assert (two.first_player_id, two.second_player_id) == (b.pk, torino.players[1].pk)
    # Milano named two for three boards: its board 3 is empty, lost by forfeit, no game.
    assert (three.first_player_id, three.second_player_id) == (None, torino.players[2].pk)
    assert three.game1_id is None and three.done and not three.played1

    users = {u.pk: u for u in [a, b, *torino.players]}
    # Milano wins both boards played: Torino's player resigns on each, whatever the colours.
    plays = []
    for board in (one, two):
        game = Game.objects.get(pk=board.game1_id)
        white, black = users[game.white_id], users[game.black_id]
        plays.append((game.pk, white, black, users[board.second_player_id]))
    started_version = TeamMatch.objects.get(pk=match.pk).version
    heard = async_to_sync(_play_watched)(match.pk, milano.captain, plays)

    # By hand (RULES 16.5): board 1 and 2 won by Milano, 2 each; board 3 Torino's by forfeit,
    # 2. Board points 4–2; more board points: match points 2–0.
    by_hand = {"milano": 2 + 2 + 0, "torino": 0 + 0 + 2}
    assert rules.WIN == 2
    match.refresh_from_db()
    assert match.status == TeamMatch.Status.FINISHED
    assert (match.first_points, match.second_points) == (by_hand["milano"], by_hand["torino"])
    assert (match.first_match_points, match.second_match_points) == (2, 0)
    assert match.winner_names() == [milano.club.name]
    one, two, three = Board.objects.filter(match=match).order_by("number")
    assert [(b.first_points1, b.second_points1, b.played1, b.done) for b in (one, two, three)] == [
        (2, 0, True, True),
        (2, 0, True, True),
        (0, 2, False, True),
    ]
    for board in (one, two):
        game = Game.objects.get(pk=board.game1_id)
        winner = board.first_player_id
        assert game.result == (
            GameResult.WHITE_WINS if game.white_id == winner else GameResult.BLACK_WINS
        )
    # The match page, open since the start, was told of a game's end: it re-fetches.
    assert heard["type"] == "changed"
    assert started_version < heard["version"] <= match.version
