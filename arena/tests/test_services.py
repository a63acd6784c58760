"""Opening, editing and entering arenas (RULES 1, 7.2, 7.3, 8) and boost (RULES 8), on
PostgreSQL: every refusal says why and changes nothing."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.tests.factories import UserFactory
from arena import running, services
from arena.models import Arena, Entry, EntryState, PauseReason
from arena.services import ArenaError, ArenaOptions
from arena.tests.factories import T0, ArenaFactory, EntryFactory, ms, on_page, tick
from games import services as games
from games.models import Game, Status
from ratings.models import Rating
from tests.concurrency import run_at_once
from tournaments.services import tournament_create
from tournaments.tests.test_services import opts as tournament_opts

pytestmark = pytest.mark.django_db


def opts(**overrides) -> ArenaOptions:
    values = dict(
        name="Arena della sera",
        description="",
        variant="chess",
        base_seconds=180,
        increment_seconds=2,
        starts_at=timezone.now() + timedelta(hours=1),
        opening_mode="free",
        thematic_opening=None,
        rated=True,
        floor=None,
        password="",
        duration_minutes=60,
    )
    values.update(overrides)
    return ArenaOptions(**values)


def refused(code: str, call, **kwargs) -> ArenaError:
    with pytest.raises(ArenaError) as caught:
        call(**kwargs)
    assert caught.value.code == code, caught.value.message
    return caught.value


def test_open_an_arena_and_its_limits():
    opener = UserFactory()
    arena = services.arena_create(opener=opener, data=opts())
    assert (arena.status, arena.cadence, arena.next_due_at) == (
        "scheduled",
        "blitz",
        arena.starts_at,
    )
    assert arena.ends_at == arena.starts_at + timedelta(minutes=60)
    bot = UserFactory(is_bot=True)
    refused("bot", services.arena_create, opener=bot, data=opts())
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError):  # RULES 8: 10 minutes to 8 hours (the form says so)
        services.arena_create(opener=UserFactory(), data=opts(duration_minutes=9))
    assert Arena.objects.count() == 1


def test_one_live_event_per_person_across_kinds():
    opener = UserFactory()
    tournament_create(opener=opener, data=tournament_opts())
    error = refused("live_event", services.arena_create, opener=opener, data=opts())
    assert error.event is not None
    other = UserFactory()
    services.arena_create(opener=other, data=opts())
    from tournaments.services import TournamentError

    with pytest.raises(TournamentError) as caught:
        tournament_create(opener=other, data=tournament_opts())
    assert caught.value.code == "live_event"


def test_unfair_openings_make_an_arena_casual():
    # RULES 7.3: an arena's games are single games.
    arena = services.arena_create(
        opener=UserFactory(), data=opts(variant="italian", opening_mode="table3", floor=1200)
    )
    assert (arena.rated, arena.floor, arena.rated_switched_off) == (False, None, True)


def test_the_opener_edits_or_cancels_until_the_start():
    opener = UserFactory()
    arena = services.arena_create(opener=opener, data=opts())
    services.arena_update(arena_id=arena.pk, by=opener, data=opts(name="Nuovo nome"))
    refused("not_opener", services.arena_update, arena_id=arena.pk, by=UserFactory(), data=opts())
    arena.refresh_from_db()
    refused(
        "started",
        services.arena_update,
        arena_id=arena.pk,
        by=opener,
        data=opts(),
        now=arena.starts_at,
    )
    services.arena_cancel(arena_id=arena.pk, by=opener)
    arena.refresh_from_db()
    assert (arena.name, arena.status, arena.next_due_at) == ("Nuovo nome", "cancelled", None)


def test_enter_pause_leave_and_come_back_keep_the_points():
    arena = ArenaFactory(starts_at=timezone.now() + timedelta(minutes=30))
    player = UserFactory()
    entry = services.entry_enter(arena_id=arena.pk, player=player)
    assert entry.state == EntryState.ACTIVE
    Entry.objects.filter(pk=entry.pk).update(points=7)
    services.entry_pause(arena_id=arena.pk, player=player)
    assert Entry.objects.get(pk=entry.pk).state == EntryState.PAUSED
    services.entry_leave(arena_id=arena.pk, player=player)
    assert Entry.objects.get(pk=entry.pk).state == EntryState.LEFT
    services.entry_enter(arena_id=arena.pk, player=player)
    entry.refresh_from_db()
    assert (entry.state, entry.points) == (EntryState.ACTIVE, 7)
    refused("not_in", services.entry_pause, arena_id=arena.pk, player=UserFactory())
    refused("bot", services.entry_enter, arena_id=arena.pk, player=UserFactory(is_bot=True))


def test_nobody_enters_after_the_end():
    arena = ArenaFactory(status=Arena.Status.RUNNING, duration_minutes=10)
    refused(
        "closed",
        services.entry_enter,
        arena_id=arena.pk,
        player=UserFactory(),
        now=arena.ends_at,
    )


def test_floor_checked_at_each_entry():
    arena = ArenaFactory(rated=True, floor=1600, starts_at=timezone.now() + timedelta(hours=1))
    player = UserFactory()
    error = refused("floor", services.entry_enter, arena_id=arena.pk, player=player)
    assert "1500" in error.message and "1600" in error.message
    Rating.objects.create(player=player, variant="chess", cadence="blitz", value=1650, peak=1650)
    entry = services.entry_enter(arena_id=arena.pk, player=player)
    services.entry_pause(arena_id=arena.pk, player=player)
    Rating.objects.filter(player=player).update(value=1590)
    refused("floor", services.entry_enter, arena_id=arena.pk, player=player)  # again, at the return
    assert Entry.objects.get(pk=entry.pk).state == EntryState.PAUSED


def test_private_arena_needs_the_password_or_the_link():
    from django.contrib.auth.hashers import make_password

    arena = ArenaFactory(
        password_hash=make_password("segreto"), starts_at=timezone.now() + timedelta(hours=1)
    )
    refused("private", services.entry_enter, arena_id=arena.pk, player=UserFactory())
    refused("private", services.entry_enter, arena_id=arena.pk, player=UserFactory(), password="no")
    services.entry_enter(arena_id=arena.pk, player=UserFactory(), password="segreto")
    services.entry_enter(arena_id=arena.pk, player=UserFactory(), invite_token=arena.invite_token)
    assert Entry.objects.filter(arena=arena).count() == 2


def test_entering_a_running_arena_pauses_the_player_in_any_other():
    first = ArenaFactory(status=Arena.Status.RUNNING, starts_at=T0)
    second = ArenaFactory(status=Arena.Status.RUNNING, starts_at=T0)
    player = UserFactory()
    services.entry_enter(arena_id=first.pk, player=player, now=T0)
    services.entry_enter(arena_id=second.pk, player=player, now=T0)
    entry = Entry.objects.get(arena=first, player=player)
    assert (entry.state, entry.pause_reason) == (EntryState.PAUSED, PauseReason.OTHER_ARENA)
    assert Entry.objects.get(arena=second, player=player).state == EntryState.ACTIVE


def test_entering_during_the_arena_asks_for_a_pass():
    arena = ArenaFactory(status=Arena.Status.RUNNING, starts_at=T0)
    services.entry_enter(arena_id=arena.pk, player=UserFactory(), now=T0 + timedelta(minutes=1))
    arena.refresh_from_db()
    assert arena.pairing_due_at == T0 + timedelta(minutes=1) + running.coalesce()
    assert arena.next_due_at == arena.pairing_due_at  # the tick is the fallback


# --- boost (RULES 8) ------------------------------------------------------------------------


def arena_game(base_seconds=180, increment_seconds=2):
    arena = ArenaFactory(base_seconds=base_seconds, increment_seconds=increment_seconds)
    for _ in range(2):
        entry = EntryFactory(arena=arena)
        on_page(arena, entry.player, T0)
    tick(T0)
    return Game.objects.get(event_type__model="arena", event_id=arena.pk, status=Status.LIVE)


def test_boost_cuts_the_boosters_clock_at_once():
    game = arena_game(base_seconds=180, increment_seconds=2)
    at = ms(T0) + 20_000  # White has used 20 s before boosting
    boosted = games.game_boost(game_id=game.pk, user_id=game.white_id, expected_ply=0, at_ms=at)
    assert boosted.white_boosted and not boosted.black_boosted
    assert (boosted.white_ms, boosted.white_increment_ms) == (90_000, 0)  # at most half the base
    assert (boosted.black_ms, boosted.black_increment_ms) == (180_000, 2000)
    state = games.game_state(boosted, at_ms=at)
    assert state["boost"] == {"offered": True, "white": True, "black": False}
    assert state["clock"]["white_ms"] == 90_000


def test_boost_refusals_change_nothing():
    game = arena_game()
    w, b = game.white_id, game.black_id
    games.game_boost(game_id=game.pk, user_id=w, expected_ply=0, at_ms=ms(T0))
    before = Game.objects.get(pk=game.pk)
    with pytest.raises(games.NoBoost):  # a second boost
        games.game_boost(game_id=game.pk, user_id=w, expected_ply=0, at_ms=ms(T0))
    with pytest.raises(games.NotAPlayer):  # a spectator
        games.game_boost(game_id=game.pk, user_id=UserFactory().pk, expected_ply=0, at_ms=ms(T0))
    with pytest.raises(games.StalePly):
        games.game_boost(game_id=game.pk, user_id=b, expected_ply=3, at_ms=ms(T0))
    games.game_move(game_id=game.pk, user_id=w, expected_ply=0, move="e2e4", at_ms=ms(T0))
    games.game_move(game_id=game.pk, user_id=b, expected_ply=1, move="e7e5", at_ms=ms(T0))
    after_moves = Game.objects.get(pk=game.pk)
    with pytest.raises(games.NoBoost):  # after one's own first move
        games.game_boost(game_id=game.pk, user_id=b, expected_ply=2, at_ms=ms(T0))
    assert Game.objects.get(pk=game.pk).version == after_moves.version
    assert not Game.objects.get(pk=game.pk).black_boosted
    assert before.white_boosted
    challenge = games.game_open(
        white_id=UserFactory().pk,
        black_id=UserFactory().pk,
        variant_code="chess",
        base_seconds=180,
        increment_seconds=2,
        rated=False,
        at_ms=ms(T0),
    )
    with pytest.raises(games.NoBoost):  # not an arena game
        games.game_boost(
            game_id=challenge.pk, user_id=challenge.white_id, expected_ply=0, at_ms=ms(T0)
        )


def test_boost_is_not_offered_without_base_time_and_keeps_short_bases():
    arena = ArenaFactory(base_seconds=0, increment_seconds=3)
    for _ in range(2):
        on_page(arena, EntryFactory(arena=arena).player, T0)
    tick(T0)
    game = Game.objects.get(event_type__model="arena", event_id=arena.pk)
    assert not game.boostable
    short = arena_game(base_seconds=30, increment_seconds=1)
    boosted = games.game_boost(
        game_id=short.pk, user_id=short.white_id, expected_ply=0, at_ms=ms(T0)
    )
    assert (boosted.white_ms, boosted.white_increment_ms) == (30_000, 0)  # under 60 s: only inc


# --- concurrency -------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_two_passes_at_once_never_pair_a_player_twice():
    """Fails if the arena row lock is removed from running.common._locked: both passes would read the
    same waiting players."""
    arena = ArenaFactory(status=Arena.Status.RUNNING, starts_at=T0, pairing_due_at=T0)
    for _ in range(6):
        on_page(arena, EntryFactory(arena=arena).player, T0)
    results = run_at_once(
        lambda: running.arena_pair(arena_id=arena.pk, now=T0),
        lambda: running.arena_pair(arena_id=arena.pk, now=T0),
    )
    assert sorted(results) == [False, True]
    games_open = Game.objects.filter(event_type__model="arena", event_id=arena.pk)
    players = [p for g in games_open for p in (g.white_id, g.black_id)]
    assert len(players) == 6 and len(set(players)) == 6


def test_every_tick_step_twice_changes_nothing():
    arena = ArenaFactory()
    for _ in range(4):
        on_page(arena, EntryFactory(arena=arena).player, T0)
    assert tick(T0) == [arena.pk]
    assert tick(T0) == []
    assert running.arena_pair(arena_id=arena.pk, now=T0) is False
    game = Game.objects.filter(event_type__model="arena", event_id=arena.pk).first()
    games.game_resign(game_id=game.pk, user_id=game.white_id, at_ms=ms(T0))
    assert running.arena_game_finished(game_id=game.pk, now=T0) is True
    assert running.arena_game_finished(game_id=game.pk, now=T0) is False
    assert Entry.objects.get(arena=arena, player_id=game.black_id).points == 2


def test_opening_the_page_after_being_away_makes_one_waiting_from_then():
    # RULES 8 Decision: waiting time counts from when one last became waiting, so
    # whoever comes back last is the odd one out.
    arena = ArenaFactory()
    a, b, c = (EntryFactory(arena=arena).player for _ in range(3))  # waiting since T0 - 1 min
    tick(T0)  # nobody has the page open: nobody is paired
    arena.refresh_from_db()
    assert arena.status == Arena.Status.RUNNING
    for player, minutes in ((c, 3), (b, 4), (a, 5)):
        at = T0 + timedelta(minutes=minutes)
        on_page(arena, player, at, key=f"tab-{player.pk}")
        assert services.entry_seen(
            arena_id=arena.pk, user_id=player.pk, key=f"tab-{player.pk}", now=at
        )
    since = dict(Entry.objects.filter(arena=arena).values_list("player_id", "waiting_since"))
    assert since[a.pk] == T0 + timedelta(minutes=5) and since[c.pk] == T0 + timedelta(minutes=3)
    # A second tab while the first is open is not coming back.
    later = T0 + timedelta(minutes=5, seconds=1)
    on_page(arena, a, later, key="second-tab")
    services.entry_seen(arena_id=arena.pk, user_id=a.pk, key="second-tab", now=later)
    assert Entry.objects.get(arena=arena, player=a).waiting_since == T0 + timedelta(minutes=5)
    tick(later + running.coalesce())
    (game,) = Game.objects.filter(event_id=arena.pk, status=Status.LIVE)
    assert {game.white_id, game.black_id} == {b.pk, c.pk}  # a came back last: a waits
