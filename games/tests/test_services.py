"""Game services: every way a game ends, clocks under a controlled clock, refusals."""

from __future__ import annotations

import pytest

from games import services
from games.models import Game, Status
from games.services import (
    GameOver,
    IllegalMoveError,
    Malformed,
    NoDrawOffer,
    NoDrawToClaim,
    NotAPlayer,
    NotYourTurn,
    PlayerBusy,
    StalePly,
    game_abandon,
    game_draw_accept,
    game_draw_claim,
    game_draw_decline,
    game_draw_offer,
    game_flag,
    game_move,
    game_presence,
    game_resign,
    games_due_process,
    presence_sweep,
)
from games.signals import game_finished
from games.tests.factories import T0, UserFactory, open_game
from live import presence
from live.models import Connection
from tests.concurrency import Raised, run_at_once

pytestmark = pytest.mark.django_db


@pytest.fixture
def finished(transactional_db):
    """Collect game_finished signals (sent on commit, so the test commits for real)."""
    received: list[int] = []

    def receiver(sender, game, **kwargs):
        received.append(game.pk)

    game_finished.connect(receiver, dispatch_uid="test-finished")
    yield received
    game_finished.disconnect(dispatch_uid="test-finished")


def play(game, moves, *, start=T0, step=1000):
    at = start
    for move in moves:
        game.refresh_from_db()
        mover = game.white_id if game.clock_running == "white" else game.black_id
        at += step
        game = game_move(game_id=game.pk, user_id=mover, expected_ply=game.ply, move=move, at_ms=at)
    return game


def test_open_starts_the_clock_of_the_side_to_move():
    game = open_game(base_seconds=300, increment_seconds=3)
    assert game.status == Status.LIVE
    assert game.clock_running == "white"
    assert game.flag_at_ms == T0 + 300_000
    english = open_game(variant_code="english")
    assert english.clock_running == "black"  # English draughts: Black moves first


def test_one_board_at_a_time():
    white, black, third = UserFactory(), UserFactory(), UserFactory()
    open_game(white=white, black=black)
    with pytest.raises(PlayerBusy):
        open_game(white=third, black=black)


def test_clock_arithmetic_across_moves():
    game = open_game(base_seconds=60, increment_seconds=2)
    w, b = game.white_id, game.black_id
    game = game_move(game_id=game.pk, user_id=w, expected_ply=0, move="e2e4", at_ms=T0 + 5_000)
    assert (game.white_ms, game.black_ms, game.clock_running) == (57_000, 60_000, "black")
    game = game_move(game_id=game.pk, user_id=b, expected_ply=1, move="e7e5", at_ms=T0 + 15_000)
    assert (game.white_ms, game.black_ms, game.clock_running) == (57_000, 52_000, "white")
    assert game.flag_at_ms == T0 + 15_000 + 57_000
    state = services.game_state(game, at_ms=T0 + 20_000)
    assert state["clock"] == {
        "white_ms": 52_000,
        "black_ms": 52_000,
        "running": "white",
        "at_ms": T0 + 20_000,
    }
    assert state["ply"] == 2 and state["moves"] == ["e2e4", "e7e5"]


def test_checkmate(finished):
    game = play(open_game(), ["f2f3", "e7e5", "g2g4", "d8h4"])
    assert (game.status, game.result, game.reason) == ("finished", "0-1", "checkmate")
    assert game.clock_running == ""
    assert finished == [game.pk]


def test_draughts_game_plays_and_refuses_illegal():
    game = open_game(variant_code="italian")
    with pytest.raises(IllegalMoveError):
        game_move(game_id=game.pk, user_id=game.white_id, expected_ply=0, move="1-5", at_ms=T0)
    game = play(game, ["22-18"])
    assert game.ply == 1 and game.clock_running == "black"


def test_resignation(finished):
    game = open_game()
    game = game_resign(game_id=game.pk, user_id=game.white_id, at_ms=T0 + 1)
    assert (game.result, game.reason) == ("0-1", "resignation")
    assert finished == [game.pk]
    with pytest.raises(GameOver):
        game_resign(game_id=game.pk, user_id=game.black_id)


def test_draw_offer_accept_decline(finished):
    game = open_game()
    w, b = game.white_id, game.black_id
    with pytest.raises(NoDrawOffer):
        game_draw_accept(game_id=game.pk, user_id=b, at_ms=T0)
    game = game_draw_offer(game_id=game.pk, user_id=w, at_ms=T0)
    assert game.draw_offer == "white"
    game = game_draw_decline(game_id=game.pk, user_id=b, at_ms=T0)
    assert game.draw_offer == ""
    game_draw_offer(game_id=game.pk, user_id=w, at_ms=T0)
    game = game_move(game_id=game.pk, user_id=w, expected_ply=0, move="e2e4", at_ms=T0 + 1)
    assert game.draw_offer == "white"  # the offer stands until the opponent answers or moves
    game = game_move(game_id=game.pk, user_id=b, expected_ply=1, move="e7e5", at_ms=T0 + 2)
    assert game.draw_offer == ""  # playing on declines it
    game_draw_offer(game_id=game.pk, user_id=b, at_ms=T0 + 3)
    game = game_draw_accept(game_id=game.pk, user_id=w, at_ms=T0 + 4)
    assert (game.result, game.reason) == ("1/2-1/2", "agreed_draw")
    assert finished == [game.pk]


def test_mutual_offers_agree():
    game = open_game()
    game_draw_offer(game_id=game.pk, user_id=game.white_id, at_ms=T0)
    game = game_draw_offer(game_id=game.pk, user_id=game.black_id, at_ms=T0)
    assert game.result == "1/2-1/2"


def test_claim_threefold_repetition():
    knights = ["g1f3", "g8f6", "f3g1", "f6g8"] * 2
    game = play(open_game(), knights)
    with pytest.raises(NoDrawToClaim):
        fresh = open_game()
        game_draw_claim(game_id=fresh.pk, user_id=fresh.white_id, expected_ply=0, at_ms=T0)
    game = game_draw_claim(
        game_id=game.pk, user_id=game.white_id, expected_ply=game.ply, at_ms=T0 + 10_000
    )
    assert (game.result, game.reason) == ("1/2-1/2", "threefold_repetition")


def test_flag_processed_once(finished):
    game = open_game(base_seconds=60, increment_seconds=0)
    for user in (game.white_id, game.black_id):
        game_presence(game_id=game.pk, user_id=user, key=f"socket-{user}", connected=True, at_ms=T0)
    assert games_due_process(at_ms=T0 + 59_999) == []
    assert games_due_process(at_ms=T0 + 60_000) == [game.pk]
    assert games_due_process(at_ms=T0 + 61_000) == []
    assert game_flag(game_id=game.pk, at_ms=T0 + 62_000) is False
    game.refresh_from_db()
    assert (game.result, game.reason, game.white_ms) == ("0-1", "timeout", 0)
    assert finished == [game.pk]


def test_flag_against_insufficient_material_is_a_draw():
    # White (K+Q) flags against a lone king: Black cannot win, so a draw (FIDE 6.9).
    game = open_game(start_fen="8/8/8/4k3/8/8/8/4K2Q w - - 0 1", base_seconds=10)
    game_presence(
        game_id=game.pk,
        user_id=game.white_id,
        key=f"socket-{game.white_id}",
        connected=True,
        at_ms=T0,
    )
    assert games_due_process(at_ms=T0 + 10_000) == [game.pk]
    game.refresh_from_db()
    assert (game.result, game.reason) == ("1/2-1/2", "timeout_vs_insufficient_material")


def test_move_after_flag_ends_game_instead():
    """The fallen flag is committed (and pushed); the move itself is refused."""
    game = open_game(base_seconds=10, increment_seconds=0)
    w = game.white_id
    game_presence(game_id=game.pk, user_id=w, key="w", connected=True, at_ms=T0)
    with pytest.raises(GameOver):
        game_move(game_id=game.pk, user_id=w, expected_ply=0, move="e2e4", at_ms=T0 + 10_001)
    game.refresh_from_db()
    assert (game.result, game.reason, game.ply) == ("0-1", "timeout", 0)


def test_never_sat_ends_0_0_once(finished):
    game = open_game(base_seconds=60, increment_seconds=0)
    assert games_due_process(at_ms=T0 + 60_000) == [game.pk]
    assert games_due_process(at_ms=T0 + 60_000) == []
    game.refresh_from_db()
    assert (game.result, game.reason) == ("0-0", "both_absent")
    assert finished == [game.pk]


def test_abandonment_after_30_seconds_once(finished):
    game = open_game(base_seconds=600)
    w, b = game.white_id, game.black_id
    for user in (w, b):
        game_presence(game_id=game.pk, user_id=user, key=f"socket-{user}", connected=True, at_ms=T0)
    game_move(game_id=game.pk, user_id=w, expected_ply=0, move="e2e4", at_ms=T0 + 1_000)
    # Black has not moved yet: Black's absence is not abandonment (its clock just runs).
    game_presence(game_id=game.pk, user_id=b, key=f"socket-{b}", connected=False, at_ms=T0 + 2_000)
    assert due(T0 + 40_000) == []
    game_presence(game_id=game.pk, user_id=b, key=f"socket-{b}", connected=True, at_ms=T0 + 41_000)
    # White has moved: away for 30 s loses.
    game_presence(game_id=game.pk, user_id=w, key=f"socket-{w}", connected=False, at_ms=T0 + 50_000)
    assert due(T0 + 79_999) == []
    game_presence(game_id=game.pk, user_id=w, key=f"socket-{w}", connected=True, at_ms=T0 + 79_000)
    game_presence(game_id=game.pk, user_id=w, key=f"socket-{w}", connected=False, at_ms=T0 + 80_000)
    assert due(T0 + 100_000) == []
    assert due(T0 + 110_000) == [game.pk]
    assert due(T0 + 111_000) == []
    assert game_abandon(game_id=game.pk, at_ms=T0 + 112_000) is False
    game.refresh_from_db()
    assert (game.result, game.reason) == ("0-1", "abandonment")
    assert finished == [game.pk]


def test_presence_marks_sat_and_counts_connections():
    game = open_game()
    spectator = UserFactory()
    assert (
        game_presence(
            game_id=game.pk, user_id=spectator.pk, key=f"socket-{spectator.pk}", connected=True
        )
        is None
    )
    w = game.white_id
    game_presence(game_id=game.pk, user_id=w, key="tab-1", connected=True, at_ms=T0)
    game_presence(game_id=game.pk, user_id=w, key="tab-2", connected=True, at_ms=T0)
    game = game_presence(game_id=game.pk, user_id=w, key="tab-1", connected=False, at_ms=T0 + 5)
    assert (game.white_sat, game.white_connections, game.white_away_since_ms) == (True, 1, None)
    game = game_presence(game_id=game.pk, user_id=w, key="tab-2", connected=False, at_ms=T0 + 9)
    assert (game.white_connections, game.white_away_since_ms) == (0, T0 + 9)
    assert not game.black_sat


def test_refusals_change_nothing():
    game = open_game()
    w, b = game.white_id, game.black_id
    spectator = UserFactory()
    with pytest.raises(NotYourTurn):
        game_move(game_id=game.pk, user_id=b, expected_ply=0, move="e7e5", at_ms=T0)
    with pytest.raises(NotAPlayer):
        game_move(game_id=game.pk, user_id=spectator.pk, expected_ply=0, move="e2e4", at_ms=T0)
    with pytest.raises(NotAPlayer):
        game_move(game_id=game.pk, user_id=None, expected_ply=0, move="e2e4", at_ms=T0)
    with pytest.raises(IllegalMoveError):
        game_move(game_id=game.pk, user_id=w, expected_ply=0, move="e2e5", at_ms=T0)
    with pytest.raises(StalePly):
        game_move(game_id=game.pk, user_id=w, expected_ply=3, move="e2e4", at_ms=T0)
    for bad_move in (None, "", 42, ["e2e4"], "x" * 500):
        with pytest.raises(Malformed):
            game_move(game_id=game.pk, user_id=w, expected_ply=0, move=bad_move, at_ms=T0)
    for bad_ply in (None, "0", 0.0, True):
        with pytest.raises(Malformed):
            game_move(game_id=game.pk, user_id=w, expected_ply=bad_ply, move="e2e4", at_ms=T0)
    with pytest.raises(services.GameNotFound):
        game_move(game_id=10**9, user_id=w, expected_ply=0, move="e2e4", at_ms=T0)
    game.refresh_from_db()
    assert (game.ply, game.moves, game.status, game.white_ms) == (0, [], "live", 60_000)


@pytest.mark.django_db(transaction=True)
def test_double_submitted_move_exactly_one_wins():
    """Two concurrent requests for the same ply on real PostgreSQL: one wins, one is stale."""
    game = open_game(at_ms=services.now_ms())

    def submit() -> str:
        game_move(game_id=game.pk, user_id=game.white_id, expected_ply=0, move="e2e4")
        return "ok"

    outcomes = run_at_once(submit, submit, errors=True)
    stale = [o for o in outcomes if isinstance(o, Raised) and isinstance(o.error, StalePly)]
    assert outcomes.count("ok") == 1 and len(stale) == 1, outcomes
    game = Game.objects.get(pk=game.pk)
    assert (game.ply, game.moves) == (1, ["e2e4"])


def due(at_ms: int) -> list[int]:
    """The tick at `at_ms`, with every open socket's process alive (its heartbeat just ran)."""
    presence.refresh(keys=list(Connection.objects.values_list("key", flat=True)), at_ms=at_ms)
    return games_due_process(at_ms=at_ms)


def test_presence_of_a_dead_process_is_swept_and_abandonment_fires(finished):
    game = open_game(base_seconds=600)
    w, b = game.white_id, game.black_id
    game_presence(game_id=game.pk, user_id=w, connected=True, key="server1!w", at_ms=T0)
    game_presence(game_id=game.pk, user_id=b, connected=True, key="server2!b", at_ms=T0)
    game_move(game_id=game.pk, user_id=w, expected_ply=0, move="e2e4", at_ms=T0 + 1_000)
    # Server 2 keeps beating; server 1 dies at T0 + 5 s without closing White's socket.
    presence.refresh(keys=["server1!w", "server2!b"], at_ms=T0 + 5_000)
    for at in range(T0 + 15_000, T0 + 36_000, 10_000):
        presence.refresh(keys=["server2!b"], at_ms=at)
        assert games_due_process(at_ms=at) == []
    game.refresh_from_db()
    assert game.white_connections == 1  # not yet stale (seen 30 s ago at most)
    presence.refresh(keys=["server2!b"], at_ms=T0 + 36_000)
    assert games_due_process(at_ms=T0 + 36_000) == [game.pk]
    game.refresh_from_db()
    # Away from the last heartbeat (T0 + 5 s): 30 s later White has abandoned.
    assert (game.white_connections, game.white_away_since_ms) == (0, T0 + 5_000)
    assert (game.black_connections, game.black_away_since_ms) == (1, None)
    assert (game.result, game.reason) == ("0-1", "abandonment")
    assert finished == [game.pk]
    assert list(Connection.objects.values_list("key", flat=True)) == ["server2!b"]
    assert presence_sweep(at_ms=T0 + 37_000) == []


def test_presence_sweep_keeps_a_player_with_another_live_socket():
    game = open_game(base_seconds=600)
    w = game.white_id
    game_presence(game_id=game.pk, user_id=w, connected=True, key="dead!1", at_ms=T0)
    game_presence(game_id=game.pk, user_id=w, connected=True, key="alive!1", at_ms=T0)
    presence.refresh(keys=["alive!1"], at_ms=T0 + 31_000)
    assert presence_sweep(at_ms=T0 + 31_000) == [game.pk]
    game.refresh_from_db()
    assert (game.white_connections, game.white_away_since_ms) == (1, None)
    game = game_presence(
        game_id=game.pk,
        user_id=w,
        connected=False,
        key="alive!1",
        at_ms=T0 + 32_000,
    )
    assert (game.white_connections, game.white_away_since_ms) == (0, T0 + 32_000)


def test_every_pushed_change_has_a_newer_version():
    """STYLE 4: presence and draw offers do not move the ply, but each change pushed carries a
    higher version, so a client can drop a state that arrives late."""
    game = open_game()
    w, b = game.white_id, game.black_id
    versions = [game.version]
    steps = [
        lambda: game_presence(game_id=game.pk, user_id=w, connected=True, key="w", at_ms=T0),
        lambda: game_draw_offer(game_id=game.pk, user_id=w, at_ms=T0),
        lambda: game_draw_decline(game_id=game.pk, user_id=b, at_ms=T0),
        lambda: game_move(game_id=game.pk, user_id=w, expected_ply=0, move="e2e4", at_ms=T0 + 1),
        lambda: game_presence(game_id=game.pk, user_id=w, connected=False, key="w", at_ms=T0 + 2),
        lambda: game_resign(game_id=game.pk, user_id=b, at_ms=T0 + 3),
    ]
    for step in steps:
        versions.append(step().version)
        assert services.game_state(Game.objects.get(pk=game.pk))["version"] == versions[-1]
    assert versions == sorted(set(versions)) and len(versions) == len(steps) + 1
    # A refused action changes nothing, the version included.
    with pytest.raises(GameOver):
        game_resign(game_id=game.pk, user_id=w)
    assert Game.objects.get(pk=game.pk).version == versions[-1]


@pytest.mark.django_db(transaction=True)
def test_two_posts_at_the_cap_let_only_one_in():
    """Fails if the challenger's row lock is removed from challenge_create."""
    from games.models import Challenge
    from games.services import MAX_OPEN_CHALLENGES, challenge_create

    user = UserFactory()
    kwargs = dict(
        challenger_id=user.pk,
        variant_code="chess",
        base_seconds=300,
        increment_seconds=0,
        color="random",
        rated=True,
    )
    for _ in range(MAX_OPEN_CHALLENGES - 1):
        challenge_create(**kwargs)
    run_at_once(lambda: challenge_create(**kwargs), lambda: challenge_create(**kwargs), errors=True)
    assert Challenge.objects.filter(challenger=user).count() == MAX_OPEN_CHALLENGES
