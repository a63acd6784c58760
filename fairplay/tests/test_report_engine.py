"""The report's engine figures on the database (RULES 15.2, 15.3, 14.7): read from the stored
analyses of an event's chess games and set against the event's field; a game not analysed
gives no figure, not 0, and the report says how many are; the organizer asks for the
analyses from the report, outside the day's bound; and with the real Stockfish, a player
who plays the engine's moves agrees with it more and loses less than one who does not."""

from __future__ import annotations

import random
from datetime import timedelta

import chess
import chess.engine
import pytest
from django.urls import reverse

from accounts.tests.factories import UserFactory
from analysis import services as analysis_services
from analysis.models import AnalysisRequest, GameAnalysis
from analysis.services import AnalysisRefused, event_analyses_request
from arena.models import Arena
from arena.tests.factories import ArenaFactory
from fairplay import selectors
from fairplay.figures import Figure
from fairplay.tests.factories import fabricated_event, finished_game, with_analyses
from games.models import Game
from games.services import game_move, game_open, game_presence, game_resign
from games.tests.factories import T0

pytestmark = pytest.mark.django_db
State = GameAnalysis.State


def row_of(report, user):
    (row,) = [row for row in report.rows if row.player_id == user.pk]
    return row


def test_the_engine_player_is_flagged_beside_the_machine_flat_one(
    client, django_assert_num_queries
):
    arena, people, machine = fabricated_event()
    engine_player = people[0]  # thinks like a person, plays like the engine
    with_analyses(arena, random.Random(5), engine_player)
    selectors.event_report("arena", arena)  # the content types cached
    # Games, analyses, focus losses, names, marks: whatever the event's size.
    with django_assert_num_queries(5):
        report = selectors.event_report("arena", arena)
    assert {row.player_id for row in report.rows if row.report.flagged} == {
        machine.pk,
        engine_player.pk,
    }
    row = row_of(report, engine_player)
    assert row.scored("agreement").outlier and not row.scored("variation").outlier
    assert row.scored("loss").value == min(r.scored("loss").value for r in report.rows)
    # Nobody else's engine figure is an outlier; every player has both, from 6 analysed games.
    others = [r for r in report.rows if r.player_id != engine_player.pk]
    assert not any(r.scored(f).outlier for r in others for f in ("agreement", "loss"))
    assert all(r.analysed == r.chess_games == 6 for r in report.rows)
    assert report.analyses.games == report.analyses.done == len(Game.objects.all())
    client.force_login(arena.opened_by)
    page = client.get(reverse("fairplay:report", args=["arena", arena.pk])).content.decode()
    assert 'data-testid="ask-analyses"' not in page  # all analysed: nothing to ask
    assert page.count('class="num outlier" data-figure="agreement"') == 1


def three_games():
    """An arena of three finished chess games with moves, by four players: the first
    analysed, the second's analysis queued, the third never asked for."""
    arena = ArenaFactory(status=Arena.Status.FINISHED)
    a, b, c, d = (UserFactory() for _ in range(4))
    games = [
        finished_game(arena, a, b, [3000] * 30, [4000] * 30),
        finished_game(arena, c, d, [3000] * 30, [4000] * 30),
        finished_game(arena, a, c, [3000] * 30, [4000] * 30),
    ]
    with_analyses(arena, random.Random(1))
    GameAnalysis.objects.filter(game=games[1]).update(state=State.QUEUED, positions=[])
    GameAnalysis.objects.filter(game=games[2]).delete()
    return arena, (a, b, c, d), games


def test_a_game_not_analysed_gives_no_figure_and_the_report_says_so(client):
    arena, (a, b, c, d), _games = three_games()
    report = selectors.event_report("arena", arena)
    assert (report.analyses.games, report.analyses.done, report.analyses.pending) == (3, 1, 1)
    assert report.analyses.to_ask == 1
    # b played the analysed game only, d the queued one only: a figure for b, none for d
    # (not 0); a has one of two games analysed and is read from that one.
    assert row_of(report, b).scored("agreement") is not None
    assert row_of(report, d).scored("agreement") is None
    assert row_of(report, d).report.figures.values.get(Figure.LOSS) is None
    assert (row_of(report, a).analysed, row_of(report, a).chess_games) == (1, 2)
    client.force_login(arena.opened_by)
    page = client.get(reverse("fairplay:report", args=["arena", arena.pk])).content.decode()
    assert "Analisi al computer: 1 di 3 partite a scacchi analizzate." in page
    assert "In corso: 1." in page
    assert "0/1 analizzate" in page and "1/2 analizzate" in page
    assert "Chiedi l'analisi della partita non analizzata" in page


def test_the_organizer_asks_for_the_events_analyses_outside_the_day_bound(
    client, settings, django_capture_on_commit_callbacks
):
    arena, (a, *_rest), games = three_games()
    url = reverse("fairplay:analyses", args=["arena", arena.pk])
    # A player of the event may not (the report is not theirs: 404), nothing is queued.
    client.force_login(a)
    assert client.post(url).status_code == 404
    assert not GameAnalysis.objects.filter(game=games[2]).exists()
    # No engine: refused with the reason, nothing queued.
    organizer = arena.opened_by
    client.force_login(organizer)
    settings.STOCKFISH_PATH = "/nonexistent/stockfish"
    response = client.post(url, follow=True)
    assert "non è disponibile" in response.content.decode()
    assert not GameAnalysis.objects.filter(game=games[2]).exists()
    settings.STOCKFISH_PATH = "/usr/games/stockfish"
    # The organizer has used the day's requests: the event's do not count (RULES 14.6, 14.7).
    settings.ANALYSIS_DAILY = 1
    AnalysisRequest.objects.create(
        player=organizer,
        analysis=GameAnalysis.objects.get(game=games[0]),
        asked_at=games[0].created_at,
    )
    with django_capture_on_commit_callbacks(execute=False) as sent:
        response = client.post(url, follow=True)
    assert "Chiesta l&#x27;analisi di 1 partita" in response.content.decode()
    asked = GameAnalysis.objects.get(game=games[2])
    assert asked.state == State.QUEUED and asked.requested_by == organizer
    assert AnalysisRequest.objects.get(analysis=asked).counted is False
    assert sent  # the run is sent to the worker after the commit
    # The done one is left as it is, the queued one is not queued twice; asked again, nothing.
    assert GameAnalysis.objects.get(game=games[0]).state == State.DONE
    assert AnalysisRequest.objects.filter(analysis__game=games[1]).count() == 0
    response = client.post(url, follow=True)
    assert "Nessuna partita da analizzare" in response.content.decode()
    assert AnalysisRequest.objects.filter(player=organizer).count() == 2
    # Failed analyses are asked for again, several at once.
    GameAnalysis.objects.filter(game__in=[games[0], games[2]]).update(state=State.FAILED)
    with django_capture_on_commit_callbacks(execute=False):
        response = client.post(url, follow=True)
    assert "Chiesta l&#x27;analisi di 2 partite" in response.content.decode()
    assert GameAnalysis.objects.filter(state=State.QUEUED).count() == 3
    assert AnalysisRequest.objects.filter(player=organizer, counted=False).count() == 3
    # The staff may too (RULES 14.7); anybody else is refused by the service itself.
    staff = UserFactory(is_staff=True)
    assert event_analyses_request(user=staff, kind="arena", event_id=arena.pk).queued == 0
    with pytest.raises(AnalysisRefused):
        event_analyses_request(user=a, kind="arena", event_id=arena.pk)


def test_an_analysis_whose_worker_was_lost_is_to_ask_again(client, settings):
    """Queued longer than ANALYSIS_STALE_SECONDS (its task lost, or never sent): not "in
    corso" for ever, but to ask for, and the organizer's button is there and queues it."""
    arena, _people, games = three_games()
    report = selectors.event_report("arena", arena)
    assert (report.analyses.pending, report.analyses.to_ask) == (1, 1)
    stale = games[1].created_at - timedelta(seconds=settings.ANALYSIS_STALE_SECONDS + 60)
    GameAnalysis.objects.filter(game=games[1]).update(requested_at=stale, started_at=None)
    report = selectors.event_report("arena", arena)
    assert (report.analyses.pending, report.analyses.to_ask) == (0, 2)
    client.force_login(arena.opened_by)
    page = client.get(reverse("fairplay:report", args=["arena", arena.pk])).content.decode()
    assert 'data-testid="ask-analyses"' in page
    asked = event_analyses_request(user=arena.opened_by, kind="arena", event_id=arena.pk)
    assert (asked.queued, asked.left) == (2, 0)
    assert GameAnalysis.objects.get(game=games[1]).requested_at > stale


def test_a_request_queues_a_bounded_number_and_says_what_is_left(
    client, monkeypatch, django_capture_on_commit_callbacks
):
    """RULES 14.7: EVENT_BATCH games a request at most, in the games' order; the page says
    how many are left, and the next request takes them."""
    monkeypatch.setattr(analysis_services, "EVENT_BATCH", 2)
    arena, _people, games = three_games()
    GameAnalysis.objects.filter(game__in=games).delete()
    client.force_login(arena.opened_by)
    url = reverse("fairplay:analyses", args=["arena", arena.pk])
    with django_capture_on_commit_callbacks(execute=False):
        page = client.post(url, follow=True).content.decode()
    assert "Chiesta l&#x27;analisi di 2 partite" in page and "Ne resta 1 da chiedere" in page
    queued = set(GameAnalysis.objects.values_list("game_id", flat=True))
    assert queued == {games[0].pk, games[1].pk}
    with django_capture_on_commit_callbacks(execute=False):
        page = client.post(url, follow=True).content.decode()
    assert "Chiesta l&#x27;analisi di 1 partita" in page and "Ne rest" not in page
    assert GameAnalysis.objects.filter(state=State.QUEUED).count() == 3


NODES = 20_000  # a small budget: the test is about the figures' direction, not their depth


def engine_game(engine: chess.engine.SimpleEngine, plies: int) -> list[str]:
    """A game where White plays the engine's first choice and Black its second."""
    board, moves = chess.Board(), []
    while len(moves) < plies and not board.is_game_over():
        lines = engine.analyse(board, chess.engine.Limit(nodes=NODES), multipv=2)
        move = (
            lines[0]["pv"][0] if board.turn == chess.WHITE or len(lines) < 2 else lines[1]["pv"][0]
        )
        moves.append(move.uci())
        board.push(move)
    return moves


def test_with_stockfish_the_engines_moves_agree_more_and_lose_less(
    settings, django_capture_on_commit_callbacks
):
    settings.ANALYSIS_NODES = NODES
    with chess.engine.SimpleEngine.popen_uci(settings.STOCKFISH_PATH) as engine:
        engine.configure({"Threads": 1, "Hash": 16})
        moves = engine_game(engine, plies=44)
    arena = ArenaFactory(status=Arena.Status.FINISHED)
    white, black = UserFactory(), UserFactory()
    game = game_open(
        white_id=white.pk,
        black_id=black.pk,
        variant_code="chess",
        base_seconds=600,
        increment_seconds=0,
        rated=False,
        event=arena,
        at_ms=T0,
    )
    for user in (white, black):
        game_presence(
            game_id=game.pk, user_id=user.pk, key=f"s-{user.pk}", connected=True, at_ms=T0
        )
    for ply, move in enumerate(moves):
        mover = white if ply % 2 == 0 else black
        game_move(
            game_id=game.pk, user_id=mover.pk, expected_ply=ply, move=move, at_ms=T0 + 1000 * ply
        )
    if Game.objects.get(pk=game.pk).is_live:
        game_resign(game_id=game.pk, user_id=black.pk, at_ms=T0 + 100_000)
    with django_capture_on_commit_callbacks(execute=True):
        asked = event_analyses_request(user=arena.opened_by, kind="arena", event_id=arena.pk)
        assert (asked.queued, asked.left) == (1, 0)
    assert GameAnalysis.objects.get(game=game).state == State.DONE  # run by the real engine
    report = selectors.event_report("arena", arena)
    by_engine, by_second = row_of(report, white), row_of(report, black)
    assert by_engine.report.figures.engine_moves >= 5 and by_second.report.figures.engine_moves >= 5
    assert by_engine.scored("agreement").value >= 0.6
    assert by_second.scored("agreement").value < by_engine.scored("agreement").value
    assert by_second.scored("loss").value > by_engine.scored("loss").value
    # Two players: no field, so the figures are shown, not compared (RULES 15.3).
    assert by_engine.scored("agreement").z is None
