"""A league played to its end over the sockets (RULES 16.8): four clubs, four boards, a round
robin of three rounds on the FSI table. Every game is played at its two players' sockets (the
loser resigns, or a draw is offered and accepted there); the games' ends reach their matches
through the settle task and the events router, and the matches' ends move the league through
its tick. One line-up out of order is refused (RULES 16.2) and one board left empty is lost by
forfeit (RULES 16.4). The standings, match points, board points, tiebreaks and board prizes are
counted by hand below; every game played is rated as it ends, the forfeit never (RULES 16.8)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from asgiref.sync import async_to_sync
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.utils import timezone

from events.pairing.trf import read_trf
from games.models import Game
from games.routing import websocket_urlpatterns as game_routes
from ratings.models import RatingChange
from teams import leagues, services
from teams.league_tables import league_tables
from teams.league_trf import league_tournament, league_trf
from teams.models import Board, League, TeamMatch
from teams.tests.factories import side
from teams.tests.test_leagues import league_data

application = URLRouter(game_routes)

# Per round, per match (first-named, second-named by league number), each board's result from
# the first-named team's side: W won, L lost, D drawn, "-" the first-named team's board empty.
# RULES 16.3: the first-named team has White on board 1, colours alternating down.
PLAN = {
    1: {(1, 4): "WWLD", (2, 3): "WLWL"},
    2: {(4, 3): "WWD-", (1, 2): "LLWD"},
    3: {(2, 4): "DDDD", (3, 1): "WDLW"},
}


async def _connect(game_id: int, user) -> WebsocketCommunicator:
    socket = WebsocketCommunicator(application, f"/ws/game/{game_id}/")
    socket.scope["user"] = user
    assert (await socket.connect())[0]
    return socket


async def _until(socket, test) -> dict:
    while True:
        message = await socket.receive_json_from(timeout=10)
        if test(message):
            return message


async def _play(game_id: int, white, black, outcome: str) -> None:
    """`outcome`: "white", "black" (who wins: the other resigns) or "draw" (White offers,
    Black accepts), all at the two players' sockets."""
    w, b = await _connect(game_id, white), await _connect(game_id, black)
    # Both seated (RULES 3): a game one player never sat at is not rated.
    for socket in (w, b):
        await _until(
            socket,
            lambda m: (
                m.get("type") == "state"
                and all(m[colour]["connected"] for colour in ("white", "black"))
            ),
        )
    if outcome == "draw":
        await w.send_json_to({"type": "draw_offer"})
        await _until(b, lambda m: m.get("type") == "state" and m.get("draw_offer"))
        await b.send_json_to({"type": "draw_accept"})
    else:
        await (b if outcome == "white" else w).send_json_to({"type": "resign"})
    # The end, and the game settled: every receiver of its end ran (the match's scoring, the
    # rating). The two may come in either order.
    seen: set[str] = set()
    while seen != {"ended", "settled"}:
        message = await w.receive_json_from(timeout=10)
        if message.get("type") == "state" and message.get("status") != "live":
            seen.add("ended")
        elif message.get("type") == "settled":
            seen.add("settled")
    await w.disconnect()
    await b.disconnect()


async def _play_all(plays) -> None:
    for play in plays:
        await _play(*play)


@pytest.mark.django_db(transaction=True)
def test_a_league_of_four_clubs_played_to_its_end_over_the_sockets():
    # Ratings far apart, so that nine games each never reorder a line-up (RULES 16.2).
    sides = [side([2000 - 10 * k, 1800 - 10 * k, 1600 - 10 * k, 1400 - 10 * k]) for k in range(4)]
    data = league_data(sides, first_round_at=timezone.now() + timedelta(days=2))
    league = leagues.league_create(by=sides[0].captain, data=data)
    leagues.league_start(league_id=league.pk, by=sides[0].captain)
    league.refresh_from_db()
    team_of = {t.number: t for t in league.teams.all()}
    side_of = {n: next(s for s in sides if s.club == t.club) for n, t in team_of.items()}
    users = {p.pk: p for s in sides for p in [s.captain, *s.players]}

    for number, plan in PLAN.items():
        row = league.round_rows.get(number=number)
        matches = {
            (m.first_team.number, m.second_team.number): m
            for m in row.matches.select_related("first_team", "second_team")
        }
        assert set(matches) == set(plan)  # the FSI table for 4 (RULES 16.8)
        for (first, second), match in matches.items():
            for n in (first, second):
                players = [p.pk for p in side_of[n].players]
                if number == 1 and n == 1:
                    # RULES 16.2: board 3's player on board 1 is two boards away: refused.
                    with pytest.raises(services.TeamError) as refused:
                        services.lineup_set(
                            match_id=match.pk,
                            by=side_of[n].captain,
                            player_ids=[players[2], players[0], players[1], players[3]],
                        )
                    assert refused.value.code == "order"
                    assert not match.lineups.exists()
                if plan[(first, second)].endswith("-") and n == first:
                    players = players[:3]  # board 4 left empty: lost by forfeit (RULES 16.4)
                services.lineup_set(match_id=match.pk, by=side_of[n].captain, player_ids=players)
        # The round's start, now: the games' clocks run on the real time the sockets see.
        row.matches.update(starts_at=timezone.now())
        plays = []
        for key, match in matches.items():
            assert services.match_start(match_id=match.pk) is not None
            for board in Board.objects.filter(match=match).order_by("number"):
                result = plan[key][board.number - 1]
                if result == "-":
                    assert board.game1_id is None and board.done and not board.played1
                    continue
                game = Game.objects.get(pk=board.game1_id)
                first_white = game.white_id == board.first_player_id
                outcome = {
                    "W": "white" if first_white else "black",
                    "L": "black" if first_white else "white",
                    "D": "draw",
                }[result]
                plays.append((game.pk, users[game.white_id], users[game.black_id], outcome))
        async_to_sync(_play_all)(plays)
        for match in matches.values():
            match.refresh_from_db()
            assert match.status == TeamMatch.Status.FINISHED, match
        leagues.leagues_due_process(now=timezone.now() + timedelta(seconds=1))

    league.refresh_from_db()
    assert league.status == League.Status.FINISHED

    # By hand (board points in the site's units, 2 a game won; match points 2/1/0):
    #   R1 T1–T4 WWLD 5–3 (2–0), T2–T3 WLWL 4–4 (1–1)
    #   R2 T4–T3 WWD- 5–3 (2–0: board 4 T3's by forfeit), T1–T2 LLWD 3–5 (0–2)
    #   R3 T2–T4 DDDD 4–4 (1–1), T3–T1 WDLW 5–3 (2–0)
    # T1: 2+0+0 = 2 MP, 5+3+3 = 11 BP    T2: 1+2+1 = 4 MP, 4+5+4 = 13 BP
    # T3: 1+0+2 = 3 MP, 4+3+5 = 12 BP    T4: 0+2+1 = 3 MP, 3+5+4 = 12 BP
    # T3 and T4 level on both: direct encounter, T4 beat T3 in round 2 (2 against 0).
    # Buchholz (opponents' final MP): T2 3+2+3 = 8, T4 2+3+4 = 9, T3 4+3+2 = 9, T1 3+4+3 = 10.
    # Sonneborn-Berger (own BP × opponent's MP): T2 4·3+5·2+4·3 = 34,
    #   T4 3·2+5·3+4·4 = 37, T3 4·4+3·3+5·2 = 35, T1 5·3+3·4+3·3 = 36.
    tables = league_tables(league)
    got = [
        (
            tr.team.number,
            tr.row.match_points,
            tr.row.board_points,
            tr.row.direct_encounter,
            tr.row.buchholz,
            tr.row.sonneborn_berger,
            (tr.row.won, tr.row.drawn, tr.row.lost),
        )
        for tr in tables.standings
    ]
    assert got == [
        (2, 4, 13, None, 8, 34, (1, 2, 0)),
        (4, 3, 12, 2, 9, 37, (1, 1, 1)),
        (3, 3, 12, 0, 9, 35, (1, 1, 1)),
        (1, 2, 11, None, 10, 36, (1, 0, 2)),
    ]
    # Board prizes (RULES 16.8: at least ⌈3 × 1 ÷ 2⌉ = 2 games on the board):
    # board 1: T2's player W, W, D = 5 of 6 (83%); board 4: T3's player W, (forfeit), W =
    # 4 of 4 (100%, two games: enough).
    prizes = {p.board: p for p in tables.prizes}
    assert tables.prize_minimum == 2
    assert [w[:3] for w in prizes[1].winners] == [
        (side_of[2].players[0].username, team_of[2].name, 3)
    ]
    assert prizes[1].percent == "83%"
    assert [w[:3] for w in prizes[4].winners] == [
        (side_of[3].players[3].username, team_of[3].name, 2)
    ]
    assert prizes[4].percent == "100%"

    # The league's TRF: its games and its four 013 team records, read back equal by our reader.
    text = league_trf(league)
    assert read_trf(text) == league_tournament(league)
    back = read_trf(text)
    assert [t.name for t in back.teams] == [team_of[n].name for n in (1, 2, 3, 4)]
    assert all(len(t.players) == 4 for t in back.teams)
    assert len([line for line in text.splitlines() if line.startswith("013 ")]) == 4
    assert len(back.games) == 23
    # The forfeited board: T3's board-4 player scored it without an opponent in round 2.
    [bye] = back.byes
    t3_board4 = back.teams[2].players[3]
    assert (bye.round, bye.player, bye.points) == (2, t3_board4, 2)
    assert (
        dict((e.number, e.name) for e in back.entrants)[t3_board4] == side_of[3].players[3].username
    )

    # RULES 16.8: every game played rated as it ended (its own period), the forfeit never.
    played = Game.objects.filter(
        pk__in=Board.objects.filter(match__league_round__league=league).values("game1")
    )
    assert played.count() == 23  # 24 boards, one forfeited
    assert all(g.rated for g in played)
    assert (
        RatingChange.objects.filter(rating__variant="chess", rating__cadence="blitz").count() == 46
    )
