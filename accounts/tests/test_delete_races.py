"""Deleting an account while the player does something at the same moment (threads released by
one barrier, each on its own PostgreSQL connection, `tests.concurrency`): a tournament join,
an arena entry, a challenge accepted, a chat line. Of the deletion and the action exactly one
goes through, and neither deadlocks (`accounts.services.user_delete`, `live.locks`).

Each race is run in several trials; the deterministic tests beside them hold the row the
action waits on first (`RowHeld`), so the deletion commits while the action waits: before the
action re-checked the account under the player's row, every one of them went through after the
deletion (fails without `events.player_lock_and_check`, without the account check of
`challenge_accept`, or of `chat.services.say`)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.db import connection
from django.db.models import Q

from accounts.models import User
from accounts.services import user_delete
from accounts.tests.factories import UserFactory
from arena import services as arena_services
from arena.models import Arena, Entry
from arena.tests.factories import T0, ArenaFactory
from chat import rooms
from chat import services as chat_services
from chat.models import Message
from events.services import EventError
from games.models import Challenge, ChallengeStatus, Game, PoolEntry
from games.services import challenge_accept, challenge_create
from games.services.errors import ChallengeGone, NotAPlayer, OpponentUnavailable
from tests.concurrency import Raised, RowHeld, run_at_once
from tournaments import services as tournament_services
from tournaments.models import Registration, Tournament
from tournaments.tests.factories import TournamentFactory

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks need PostgreSQL"),
]

TRIALS = range(4)


def deleted(user_id: int) -> bool:
    return User.objects.get(pk=user_id).is_deleted


def one_of_two(results: list[object], refusals: tuple[type[BaseException], ...]) -> list[bool]:
    """Which of the two jobs went through; anything but a refusal (a deadlock, a lock timeout)
    fails the test."""
    for result in results:
        if isinstance(result, Raised):
            assert isinstance(result.error, refusals), result.error
    return [not isinstance(result, Raised) for result in results]


# --- a tournament join -------------------------------------------------------------------------


def _tournament_join(tournament: Tournament, player):
    return lambda: tournament_services.registration_join(
        tournament_id=tournament.pk, player=player, now=tournament.starts_at - timedelta(hours=1)
    )


@pytest.mark.parametrize("trial", TRIALS)
def test_a_join_and_a_deletion_at_once_never_both_go_through(trial):
    tournament, player = TournamentFactory(), UserFactory()
    results = run_at_once(
        lambda: user_delete(user_id=player.pk),
        _tournament_join(tournament, player),
        errors=True,
    )
    gone, joined = one_of_two(results, (ValidationError, EventError))
    assert gone != joined
    assert deleted(player.pk) == gone
    assert Registration.objects.filter(player=player).exists() == joined


def test_a_join_waiting_behind_the_tournament_finds_the_account_deleted():
    """The join waits for the tournament's row while the deletion commits: it is refused
    (before: the deleted account stayed registered and forfeited every round)."""
    tournament, player = TournamentFactory(), UserFactory()
    held = RowHeld(Tournament.objects.filter(pk=tournament.pk)).start()
    try:
        results = run_at_once(
            _tournament_join(tournament, player),
            lambda: (user_delete(user_id=player.pk), held.release()),
            errors=True,
        )
    finally:
        held.release()
    assert isinstance(results[0], Raised) and results[0].error.code == "account_closed"
    assert deleted(player.pk)
    assert not Registration.objects.filter(player=player).exists()


# --- an arena entry ----------------------------------------------------------------------------


def _arena_enter(arena: Arena, player):
    return lambda: arena_services.entry_enter(
        arena_id=arena.pk, player=player, now=T0 - timedelta(minutes=5)
    )


@pytest.mark.parametrize("trial", TRIALS)
def test_an_entry_and_a_deletion_at_once_never_both_go_through(trial):
    arena, player = ArenaFactory(), UserFactory()
    results = run_at_once(
        lambda: user_delete(user_id=player.pk),
        _arena_enter(arena, player),
        errors=True,
    )
    gone, entered = one_of_two(results, (ValidationError, EventError))
    assert gone != entered
    assert deleted(player.pk) == gone
    assert Entry.objects.filter(player=player).exists() == entered


def test_an_entry_waiting_behind_the_arena_finds_the_account_deleted():
    arena, player = ArenaFactory(), UserFactory()
    held = RowHeld(Arena.objects.filter(pk=arena.pk)).start()
    try:
        results = run_at_once(
            _arena_enter(arena, player),
            lambda: (user_delete(user_id=player.pk), held.release()),
            errors=True,
        )
    finally:
        held.release()
    assert isinstance(results[0], Raised) and results[0].error.code == "account_closed"
    assert not Entry.objects.filter(player=player).exists()


# --- a challenge accepted ----------------------------------------------------------------------


def _open_challenge(challenger_id: int, opponent_id: int | None = None) -> Challenge:
    return challenge_create(
        challenger_id=challenger_id,
        opponent_id=opponent_id,
        variant_code="chess",
        base_seconds=300,
        increment_seconds=0,
        color="random",
        rated=False,
    )


@pytest.mark.parametrize("trial", range(6))
def test_a_challenge_accepted_while_its_challenger_is_deleted_never_deadlocks(trial):
    """Before, the deletion locked the challenger's row and then cancelled the challenge, which
    the accept held while it waited for that row: PostgreSQL found a deadlock (6 of 8 in an
    attack run, a 503). Now one of the two goes through."""
    leaving, accepting = UserFactory(), UserFactory()
    challenge = _open_challenge(leaving.pk)
    results = run_at_once(
        lambda: user_delete(user_id=leaving.pk),
        lambda: challenge_accept(challenge_id=challenge.pk, user_id=accepting.pk),
        errors=True,
    )
    gone, accepted = one_of_two(results, (ValidationError, ChallengeGone))
    assert gone != accepted
    challenge.refresh_from_db()
    if gone:
        assert challenge.status == ChallengeStatus.CANCELLED
        assert not Game.objects.filter(white=leaving).exists()
    else:
        assert challenge.status == ChallengeStatus.ACCEPTED
        assert "partita" in str(results[0].error)  # refused: a live game (RULES 1)


@pytest.mark.parametrize("trial", range(4))
def test_accepting_someone_elses_challenge_while_being_deleted(trial):
    """The deleted player is the one accepting: no game opens for a deleted account."""
    leaving, challenger = UserFactory(), UserFactory()
    challenge = _open_challenge(challenger.pk)
    results = run_at_once(
        lambda: user_delete(user_id=leaving.pk),
        lambda: challenge_accept(challenge_id=challenge.pk, user_id=leaving.pk),
        errors=True,
    )
    gone, accepted = one_of_two(results, (ValidationError, NotAPlayer))
    assert gone != accepted
    assert Game.objects.filter(Q(white=leaving) | Q(black=leaving)).exists() == accepted


def test_a_deactivated_challengers_challenge_cannot_be_accepted():
    challenger, accepting = UserFactory(), UserFactory()
    challenge = _open_challenge(challenger.pk)
    User.objects.filter(pk=challenger.pk).update(is_active=False)
    with pytest.raises(ChallengeGone, match="closed"):
        challenge_accept(challenge_id=challenge.pk, user_id=accepting.pk)
    assert not Game.objects.exists()


# --- a chat line -------------------------------------------------------------------------------


def _say(tournament: Tournament, viewer: rooms.Viewer, text: str):
    return lambda: chat_services.say(
        kind="tournament", pk=tournament.pk, part="event", viewer=viewer, text=text
    )


@pytest.mark.parametrize("trial", TRIALS)
def test_a_chat_line_and_a_deletion_at_once_leave_no_line(trial):
    tournament, player = TournamentFactory(), UserFactory()
    viewer = rooms.viewer_of(player)
    run_at_once(
        lambda: user_delete(user_id=player.pk),
        _say(tournament, viewer, "ciao a tutti"),
        errors=True,
    )
    assert deleted(player.pk)
    assert not Message.objects.filter(author=player).exists()


def test_a_page_left_open_writes_nothing_for_a_deleted_account():
    """A socket holds its viewer from the handshake: a line sent after the deletion was stored
    under the tombstone, after the account's lines had been erased."""
    tournament, player = TournamentFactory(), UserFactory()
    viewer = rooms.viewer_of(player)
    user_delete(user_id=player.pk)
    with pytest.raises(chat_services.ChatError) as refused:
        _say(tournament, viewer, "sono ancora qui")()
    assert refused.value.code == "account_closed"
    assert not Message.objects.filter(author=player).exists()


def test_a_deleted_account_never_waits_in_a_pool():
    """The lobby page left open: a join sent after the deletion put the deleted account in the
    pool, where it could be paired."""
    from games.services import Pool, pool_join

    player = UserFactory()
    user_delete(user_id=player.pk)
    with pytest.raises(NotAPlayer, match="closed"):
        pool_join(player_id=player.pk, pool=Pool("chess", 180, 2, True))
    assert not PoolEntry.objects.filter(player=player).exists()


def test_a_closed_account_posts_no_challenge_and_is_sent_none():
    """A form sent before the deletion, handled after it: the challenge stood in the lobby for a
    deleted account (and one to a deleted account was refused only when deactivated)."""
    gone, other = UserFactory(), UserFactory()
    user_delete(user_id=gone.pk)
    with pytest.raises(NotAPlayer, match="closed"):
        _open_challenge(gone.pk)
    with pytest.raises(OpponentUnavailable):
        _open_challenge(other.pk, opponent_id=gone.pk)
    assert not Challenge.objects.exists()
