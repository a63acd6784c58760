"""Abort, takebacks and "+15 s" (docs/rules.md §3): who may, when, and what changes."""

from __future__ import annotations

import json

import pytest
from django.contrib.contenttypes.models import ContentType

from games.models import EndReason, Game, Status
from games.selectors import game_export, player_game_rows
from games.services import (
    MORE_TIME_MS,
    GameOver,
    NoAbort,
    NoMoreTime,
    NoTakeback,
    StalePly,
    game_abort,
    game_draw_offer,
    game_more_time,
    game_move,
    game_takeback_accept,
    game_takeback_decline,
    game_takeback_offer,
)
from games.tests.factories import T0, open_game
from live import pushes
from ratings.services import NotRatedReason, finished_game_of, game_not_rated_reason

pytestmark = pytest.mark.django_db


def casual(**kwargs) -> Game:
    return open_game(rated=False, base_seconds=300, increment_seconds=2, **kwargs)


def moved(game: Game, *moves: str, at: int = T0) -> Game:
    for move in moves:
        game.refresh_from_db()
        at += 1000
        mover = game.white_id if game.clock_running == "white" else game.black_id
        game_move(game_id=game.pk, user_id=mover, expected_ply=game.ply, move=move, at_ms=at)
    return Game.objects.get(pk=game.pk)


def of_an_event(game: Game) -> Game:
    """The game as if an event had opened it (any model stands for the event's kind)."""
    Game.objects.filter(pk=game.pk).update(
        event_type=ContentType.objects.get_for_model(Game), event_id=1
    )
    return Game.objects.get(pk=game.pk)


# --- abort ----------------------------------------------------------------------------------


def test_either_player_aborts_before_their_own_first_move_and_the_game_has_no_result():
    game = open_game(rated=True)
    game_abort(game_id=game.pk, user_id=game.white_id, at_ms=T0 + 500)
    game.refresh_from_db()
    assert (game.status, game.result, game.reason) == (Status.FINISHED, "", EndReason.ABORTED)
    assert game_not_rated_reason(finished_game_of(game)) is NotRatedReason.ABORTED
    # Black may still abort after White's first move, White no longer.
    later = moved(open_game(rated=True), "e2e4")
    with pytest.raises(NoAbort):
        game_abort(game_id=later.pk, user_id=later.white_id, at_ms=T0 + 2_000)
    game_abort(game_id=later.pk, user_id=later.black_id, at_ms=T0 + 2_000)
    assert Game.objects.get(pk=later.pk).reason == EndReason.ABORTED


def test_no_abort_after_ones_first_move_nor_in_an_event_and_nothing_changes():
    game = moved(open_game(), "e2e4", "e7e5")
    for user in (game.white_id, game.black_id):
        with pytest.raises(NoAbort):
            game_abort(game_id=game.pk, user_id=user, at_ms=T0 + 3_000)
    event_game = of_an_event(open_game())
    with pytest.raises(NoAbort):
        game_abort(game_id=event_game.pk, user_id=event_game.white_id, at_ms=T0 + 500)
    assert Game.objects.get(pk=event_game.pk).status == Status.LIVE
    assert Game.objects.get(pk=game.pk).version == game.version


def test_an_aborted_game_is_exported_without_a_result_and_listed_as_aborted():
    game = open_game()
    game_abort(game_id=game.pk, user_id=game.black_id, at_ms=T0 + 500)
    text = game_export(Game.objects.get(pk=game.pk), site="https://example.org")
    assert '[Result "*"]' in text and '[Termination "Abandoned"]' in text
    [row] = player_game_rows(game.white_id)
    assert row.outcome == "aborted"


# --- takeback --------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)  # the pushes go out on commit
def test_a_takeback_after_ones_own_move_undoes_it_and_the_clocks_keep_their_times():
    game = moved(casual(), "e2e4", "e7e5", "g1f3")  # White's move last: one half-move back
    before = Game.objects.get(pk=game.pk)
    game_takeback_offer(game_id=game.pk, user_id=game.white_id, expected_ply=3, at_ms=T0 + 4_500)
    assert Game.objects.get(pk=game.pk).takeback_offer == "white"
    game_draw_offer(game_id=game.pk, user_id=game.black_id, at_ms=T0 + 4_600)
    with pushes.collected() as outbox:
        game_takeback_accept(
            game_id=game.pk, user_id=game.black_id, expected_ply=3, at_ms=T0 + 5_000
        )
    after = Game.objects.get(pk=game.pk)
    assert (after.ply, after.moves, after.fen) == (2, ["e2e4", "e7e5"], before.positions[-1])
    assert len(after.positions) == len(after.notation) == len(after.clocks) == 2
    assert (after.takeback_offer, after.draw_offer, after.clock_running) == ("", "", "white")
    # Black's clock ran from 3 s to 5 s and stays so; White's is what it was at White's move.
    assert after.black_ms == before.black_ms - 2_000 and after.white_ms == before.white_ms
    state = json.loads(outbox[-1][1]["text"])
    assert (state["ply"], state["takeback"], state["turn"]) == (2, None, "white")
    # White plays another move from there.
    moved(after, "b1c3", at=T0 + 5_000)


def test_a_takeback_asked_at_ones_own_turn_undoes_the_reply_too():
    game = moved(casual(), "e2e4", "e7e5")
    game_takeback_offer(game_id=game.pk, user_id=game.white_id, expected_ply=2, at_ms=T0 + 3_000)
    game_takeback_accept(game_id=game.pk, user_id=game.black_id, expected_ply=2, at_ms=T0 + 3_500)
    after = Game.objects.get(pk=game.pk)
    assert (after.ply, after.moves, after.fen, after.clock_running) == (
        0,
        [],
        after.start_fen,
        "white",
    )


def test_takeback_refusals_change_nothing():
    game = moved(casual(), "e2e4")
    version = Game.objects.get(pk=game.pk).version
    with pytest.raises(NoTakeback):  # Black has no move of its own yet
        game_takeback_offer(game_id=game.pk, user_id=game.black_id, expected_ply=1, at_ms=T0 + 2)
    with pytest.raises(NoTakeback):  # nothing asked
        game_takeback_accept(game_id=game.pk, user_id=game.black_id, expected_ply=1, at_ms=T0 + 2)
    with pytest.raises(StalePly):
        game_takeback_offer(game_id=game.pk, user_id=game.white_id, expected_ply=0, at_ms=T0 + 2)
    game_takeback_offer(game_id=game.pk, user_id=game.white_id, expected_ply=1, at_ms=T0 + 3)
    with pytest.raises(NoTakeback):  # one request at a time
        game_takeback_offer(game_id=game.pk, user_id=game.white_id, expected_ply=1, at_ms=T0 + 4)
    with pytest.raises(NoTakeback):  # the requester cannot grant its own request
        game_takeback_accept(game_id=game.pk, user_id=game.white_id, expected_ply=1, at_ms=T0 + 4)
    assert Game.objects.get(pk=game.pk).version == version + 1
    rated = moved(open_game(rated=True), "e2e4")
    with pytest.raises(NoTakeback):
        game_takeback_offer(game_id=rated.pk, user_id=rated.white_id, expected_ply=1, at_ms=T0 + 2)
    in_event = of_an_event(moved(casual(), "e2e4"))
    with pytest.raises(NoTakeback):
        game_takeback_offer(
            game_id=in_event.pk, user_id=in_event.white_id, expected_ply=1, at_ms=T0 + 2
        )


@pytest.mark.django_db(transaction=True)  # the pushes go out on commit
def test_a_declined_takeback_tells_the_requester_and_a_move_makes_a_request_lapse():
    game = moved(casual(), "e2e4")
    game_takeback_offer(game_id=game.pk, user_id=game.white_id, expected_ply=1, at_ms=T0 + 1_500)
    with pushes.collected() as outbox:
        game_takeback_decline(game_id=game.pk, user_id=game.black_id, at_ms=T0 + 1_600)
    state, declined = (json.loads(m["text"]) for _g, m in outbox)
    assert state["takeback"] is None
    assert (declined["type"], declined["offer"], declined["version"]) == (
        "takeback_declined",
        "white",
        state["version"],
    )
    game_takeback_offer(game_id=game.pk, user_id=game.white_id, expected_ply=1, at_ms=T0 + 1_700)
    after = moved(game, "e7e5", at=T0 + 1_000)
    assert after.takeback_offer == ""
    with pytest.raises(NoTakeback):
        game_takeback_accept(game_id=game.pk, user_id=game.black_id, expected_ply=2, at_ms=T0 + 3)


# --- +15 s -----------------------------------------------------------------------------------


def test_more_time_goes_to_the_opponent_at_once():
    game = moved(casual(), "e2e4")  # Black's clock runs since T0 + 1 s
    before = Game.objects.get(pk=game.pk)
    game_more_time(game_id=game.pk, user_id=game.white_id, at_ms=T0 + 3_000)
    after = Game.objects.get(pk=game.pk)
    assert after.black_ms == before.black_ms - 2_000 + MORE_TIME_MS
    assert after.white_ms == before.white_ms and after.clock_running == "black"
    assert after.flag_at_ms == before.flag_at_ms + MORE_TIME_MS
    game_more_time(game_id=game.pk, user_id=game.black_id, at_ms=T0 + 3_000)
    assert Game.objects.get(pk=game.pk).white_ms == before.white_ms + MORE_TIME_MS


def test_more_time_only_in_casual_games_of_no_event_and_not_after_the_end():
    rated = open_game(rated=True)
    with pytest.raises(NoMoreTime):
        game_more_time(game_id=rated.pk, user_id=rated.white_id, at_ms=T0 + 1)
    game = casual()
    game_abort(game_id=game.pk, user_id=game.white_id, at_ms=T0 + 1)
    with pytest.raises(GameOver):
        game_more_time(game_id=game.pk, user_id=game.black_id, at_ms=T0 + 2)
