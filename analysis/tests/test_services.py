"""A game's computer analysis asked for and run (analysis/services.py, RULES 14): who may ask,
the day's bound, asking twice, the engine missing or crashing mid-game (fails cleanly, can be
asked again), the worker's run with the real Stockfish, the annotated PGN."""

from __future__ import annotations

import io
from datetime import timedelta

import chess.pgn
import pytest
from django.contrib.contenttypes.models import ContentType
from django.utils import timezone

from accounts.tests.factories import UserFactory
from analysis import selectors, services
from analysis.models import AnalysisRequest, GameAnalysis
from analysis.services import AnalysisRefused
from analysis.tests.engines import crashing_engine
from arena.models import Arena
from arena.tests.factories import ArenaFactory
from games.models import Game
from games.rules import variant
from games.services import game_move, game_presence, game_resign
from games.tests.factories import T0, open_game
from tests.concurrency import run_at_once

pytestmark = pytest.mark.django_db

SCHOLAR = ["e2e4", "e7e5", "f1c4", "b8c6", "d1h5", "g8f6", "h5f7"]  # 3...Nf6?? 4.Qxf7#
State = GameAnalysis.State


@pytest.fixture(autouse=True)
def quick_engine(settings):
    settings.ANALYSIS_NODES = 40_000


def played(moves: list[str], variant_code: str = "chess") -> Game:
    """A finished game of `moves` (resigned by the side to move if no rule ended it)."""
    game = open_game(variant_code=variant_code, rated=False)
    for user in (game.white_id, game.black_id):
        game_presence(game_id=game.pk, user_id=user, key=f"s-{user}", connected=True, at_ms=T0)
    rules, fen = variant(variant_code), game.fen
    for ply, move in enumerate(moves):
        mover = game.white_id if rules.side_to_move(fen).value == "white" else game.black_id
        game_move(game_id=game.pk, user_id=mover, expected_ply=ply, move=move, at_ms=T0 + ply)
        fen = rules.apply(fen, move)
    game.refresh_from_db()
    if game.is_live:
        game_resign(game_id=game.pk, user_id=game.white_id, at_ms=T0 + 1000)
        game.refresh_from_db()
    return game


def ask(user, game, django_capture_on_commit_callbacks, run: bool = True):
    """A request; with `run`, its task runs inline after the commit, as the worker would."""
    with django_capture_on_commit_callbacks(execute=run):
        asked = services.analysis_request(user=user, game_id=game.pk)
    asked.analysis.refresh_from_db()
    return asked


def test_a_player_asks_and_the_run_marks_the_losing_blunder(django_capture_on_commit_callbacks):
    game = played(SCHOLAR)
    asked = ask(game.black, game, django_capture_on_commit_callbacks)
    analysis = asked.analysis
    assert asked.new and analysis.state == State.DONE and analysis.engine == "stockfish"
    assert analysis.nodes == 40_000 and len(analysis.positions) == len(SCHOLAR) + 1
    assert analysis.moves[5]["mark"] == "blunder"  # 3...Nf6??
    assert all(m["mark"] != "blunder" for m in analysis.moves[0::2])  # none of White's
    # Signs from White's side: White mates in one after 3...Nf6; Black is mated at the end.
    assert analysis.positions[6]["mate"] == 1
    assert analysis.positions[7]["mate"] == 0 and analysis.positions[7]["cp"] > 0
    assert analysis.white_accuracy > analysis.black_accuracy
    # The page's data: the mark named, and the engine's better move written as players do.
    panel = selectors.panel(game, analysis, "en")
    assert panel["moves"][5]["symbol"] == "??" and panel["moves"][5]["word"] == "Errore grave"
    assert panel["moves"][5]["best"] and panel["moves"][5]["best"][0] != "Nf6"
    assert panel["positions"][6]["text"] == "#1"
    assert ("Errore grave", 0, 1) in panel["counts"]


def test_the_annotated_pgn_has_evals_marks_and_best_lines(django_capture_on_commit_callbacks):
    game = played(SCHOLAR)
    analysis = ask(game.white, game, django_capture_on_commit_callbacks).analysis
    from games.selectors import game_export

    text = game_export(
        game, site="https://circolo.test/", analysed=selectors.annotated_line(game, analysis)
    )
    read = chess.pgn.read_game(io.StringIO(text))
    assert not read.errors
    nodes = list(read.mainline())
    assert [n.move.uci() for n in nodes] == SCHOLAR
    assert nodes[0].eval() is not None  # [%eval] after every move
    assert nodes[5].eval().white().mate() == 1
    assert chess.pgn.NAG_BLUNDER in nodes[5].nags and "Errore grave" in nodes[5].comment
    # The engine's line where 3...Nf6 was played, as a variation.
    assert len(nodes[5].parent.variations) == 2


def test_asking_twice_costs_nothing_and_queues_nothing_more(django_capture_on_commit_callbacks):
    game = played(SCHOLAR)
    first = ask(game.white, game, django_capture_on_commit_callbacks, run=False)
    again = ask(game.white, game, django_capture_on_commit_callbacks, run=False)
    assert first.new and not again.new and first.analysis.pk == again.analysis.pk
    assert again.analysis.state == State.QUEUED
    other = ask(game.black, game, django_capture_on_commit_callbacks, run=False)
    assert not other.new
    assert AnalysisRequest.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_two_players_asking_at_once_make_one_analysis(settings, monkeypatch):
    """Fails if the analysis row were made without its unique constraint's retry: both
    requests would insert, and one would raise an IntegrityError. The run is not sent on
    commit here: the suite's eager task would fail it at once (no engine), and a failed
    analysis is queued again by the second request, which would then be new too."""
    settings.STOCKFISH_PATH = "/bin/true"
    monkeypatch.setattr(services, "_send", lambda analysis_id: None)
    game = played(SCHOLAR)
    results = run_at_once(
        lambda: services.analysis_request(user=game.white, game_id=game.pk),
        lambda: services.analysis_request(user=game.black, game_id=game.pk),
    )
    assert {r.analysis.pk for r in results} == {GameAnalysis.objects.get().pk}
    assert sorted(r.new for r in results) == [False, True]


def test_the_day_bounds_the_requests_and_a_failed_one_does_not_count(
    settings, django_capture_on_commit_callbacks, tmp_path
):
    settings.ANALYSIS_DAILY = 1
    player = UserFactory()
    first, second = played(SCHOLAR), played(SCHOLAR)
    Game.objects.filter(pk__in=[first.pk, second.pk]).update(white=player)
    first.refresh_from_db()
    second.refresh_from_db()
    settings.STOCKFISH_PATH = crashing_engine(tmp_path)
    failed = ask(player, first, django_capture_on_commit_callbacks).analysis
    assert failed.state == State.FAILED and failed.error
    settings.STOCKFISH_PATH = "/usr/games/stockfish"
    ask(player, second, django_capture_on_commit_callbacks, run=False)  # counted
    with pytest.raises(AnalysisRefused) as refused:
        ask(player, first, django_capture_on_commit_callbacks, run=False)
    assert refused.value.code == "throttled" and "24 ore" in refused.value.message
    # A day later the player may ask again.
    later = timezone.now() + timedelta(days=1, minutes=1)
    assert services.analysis_request(user=player, game_id=first.pk, now=later).new


def test_an_engine_crashing_mid_game_fails_cleanly_and_may_be_asked_again(
    settings, django_capture_on_commit_callbacks, tmp_path
):
    game = played(SCHOLAR)
    settings.STOCKFISH_PATH = crashing_engine(tmp_path)
    analysis = ask(game.white, game, django_capture_on_commit_callbacks).analysis
    assert analysis.state == State.FAILED and analysis.positions == []
    assert not AnalysisRequest.objects.filter(counted=True).exists()
    settings.STOCKFISH_PATH = "/usr/games/stockfish"
    again = ask(game.white, game, django_capture_on_commit_callbacks)
    assert again.new and again.analysis.state == State.DONE
    assert again.analysis.moves[5]["mark"] == "blunder"


def test_without_engine_the_request_is_refused_as_unavailable(settings):
    settings.STOCKFISH_PATH = "/nonexistent/stockfish"
    game = played(SCHOLAR)
    with pytest.raises(AnalysisRefused) as refused:
        services.analysis_request(user=game.white, game_id=game.pk)
    assert refused.value.code == "unavailable"
    assert not GameAnalysis.objects.exists()


def test_an_engine_gone_between_request_and_run_fails_the_analysis(
    settings, django_capture_on_commit_callbacks
):
    game = played(SCHOLAR)
    asked = ask(game.white, game, django_capture_on_commit_callbacks, run=False)
    settings.STOCKFISH_PATH = "/nonexistent/stockfish"
    analysis = services.analysis_run(analysis_id=asked.analysis.pk)
    assert analysis.state == State.FAILED and "no engine" in analysis.error


def test_who_may_ask(django_capture_on_commit_callbacks):
    game = played(SCHOLAR)
    with pytest.raises(AnalysisRefused) as refused:
        services.analysis_request(user=UserFactory(), game_id=game.pk)
    assert refused.value.code == "not_allowed"
    # RULES 14.7: the organizer of the game's event, and the staff.
    arena = ArenaFactory()
    Game.objects.filter(pk=game.pk).update(
        event_type=ContentType.objects.get_for_model(Arena), event_id=arena.pk
    )
    assert ask(arena.opened_by, game, django_capture_on_commit_callbacks, run=False).new
    staff = UserFactory(is_staff=True)
    assert not ask(staff, game, django_capture_on_commit_callbacks, run=False).new


def test_a_live_game_and_a_game_without_moves_are_not_analysed():
    live = open_game()
    with pytest.raises(AnalysisRefused) as refused:
        services.analysis_request(user=live.white, game_id=live.pk)
    assert refused.value.code == "not_finished"
    empty = played([])
    with pytest.raises(AnalysisRefused) as refused:
        services.analysis_request(user=empty.white, game_id=empty.pk)
    assert refused.value.code == "no_moves"


def test_a_draughts_game_is_checked_and_the_move_allowing_a_shot_marked(
    django_capture_on_commit_callbacks, settings
):
    """RULES 14.10 through the request and the run: Italian draughts from a position where
    19-15 lets Black's 12 take two men (analysis/tests/test_draughts_check.py SHOTS)."""
    settings.ANALYSIS_DRAUGHTS_NODES = 4000
    game = open_game(variant_code="italian", rated=False, start_fen="W:W5,19,22:B4,6,12,21")
    for user in (game.white_id, game.black_id):
        game_presence(game_id=game.pk, user_id=user, key=f"s-{user}", connected=True, at_ms=T0)
    game_move(game_id=game.pk, user_id=game.white_id, expected_ply=0, move="19-15", at_ms=T0)
    game_resign(game_id=game.pk, user_id=game.white_id, at_ms=T0 + 1000)
    game.refresh_from_db()
    analysis = ask(game.white, game, django_capture_on_commit_callbacks).analysis
    assert analysis.state == State.DONE and analysis.engine == "draughts-check"
    assert analysis.nodes == 4000
    (move,) = analysis.moves
    assert move["mark"] == "blunder" and move["loss"] >= 1.8
    assert move["refutation"][0] == "12x19x26"
    assert analysis.white_accuracy is None and analysis.black_accuracy is None


def test_a_run_is_safe_twice_and_a_lost_run_is_taken_again(django_capture_on_commit_callbacks):
    game = played(SCHOLAR)
    done = ask(game.white, game, django_capture_on_commit_callbacks).analysis
    assert services.analysis_run(analysis_id=done.pk).finished_at == done.finished_at
    # A run whose worker died: "running" since long ago. Asking again queues it afresh.
    long_ago = timezone.now() - timedelta(hours=1)
    GameAnalysis.objects.filter(pk=done.pk).update(state=State.RUNNING, started_at=long_ago)
    again = ask(game.white, game, django_capture_on_commit_callbacks, run=False)
    assert again.new and again.analysis.state == State.QUEUED
    # …while a run that started just now is left to finish.
    GameAnalysis.objects.filter(pk=done.pk).update(state=State.RUNNING, started_at=timezone.now())
    assert not ask(game.white, game, django_capture_on_commit_callbacks, run=False).new
    assert services.analysis_run(analysis_id=done.pk).state == State.RUNNING
