"""Arenas run by themselves (RULES 8), in the database with a controlled clock.

`game_finished` is not delivered here (pytest-django never commits): `tick` delivers each
game's end at the test's clock, as its settle task would. A player "has the arena page open"
through a presence row (`on_page`), as the arena's socket records it.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.tests.factories import UserFactory
from arena import running, selectors, services
from arena.models import Arena, ArenaGame, Entry, EntryState, PauseReason
from arena.tests.factories import T0, ArenaFactory, EntryFactory, ms, on_page, tick
from games import services as games
from games.models import Game, Status
from ratings.models import RatingPeriod

pytestmark = pytest.mark.django_db
PASS = running.coalesce()


def arena_with(n: int, **options) -> tuple[Arena, list]:
    arena = ArenaFactory(**options)
    players = []
    for _ in range(n):
        entry = EntryFactory(arena=arena)
        on_page(arena, entry.player, T0)
        players.append(entry.player)
    return arena, players


def live(arena) -> list[Game]:
    return list(
        Game.objects.filter(event_type__model="arena", event_id=arena.pk, status=Status.LIVE)
    )


def sit(game: Game, at) -> None:
    for user_id in (game.white_id, game.black_id):
        games.game_presence(
            game_id=game.pk,
            user_id=user_id,
            connected=True,
            key=f"g{game.pk}-{user_id}",
            at_ms=ms(at),
        )


def finish_all(arena, at, *, winner="white") -> list[Game]:
    """Both players sit and move once, then one resigns: everybody has moved."""
    done = []
    for game in live(arena):
        sit(game, at)
        loser = game.black_id if winner == "white" else game.white_id
        games.game_resign(game_id=game.pk, user_id=loser, at_ms=ms(at))
        done.append(game)
    return done


def test_the_start_pairs_whoever_waits_and_each_game_opens_with_its_rules():
    arena, players = arena_with(4)
    assert running.arena_advance(arena_id=arena.pk, now=T0 - timedelta(seconds=1)) is False
    tick(T0)
    arena.refresh_from_db()
    assert arena.status == Arena.Status.RUNNING and arena.started_at == T0
    opened = live(arena)
    assert len(opened) == 2
    for game in opened:
        assert game.boostable and game.rated and not game.rated_with_event  # RULES 7.1, 8
        assert game.event == arena
    assert tick(T0) == []  # idempotent: nothing more to do


def test_a_finished_game_is_scored_and_both_are_paired_again_soon():
    arena, players = arena_with(4)
    tick(T0)
    first_pairs = {frozenset((g.white_id, g.black_id)) for g in live(arena)}
    later = T0 + timedelta(minutes=1)
    finish_all(arena, later)
    tick(later)
    entries = {e.player_id: e for e in Entry.objects.filter(arena=arena)}
    assert sorted(e.points for e in entries.values()) == [0, 0, 2, 2]
    arena.refresh_from_db()
    assert arena.pairing_due_at == later + PASS  # coalesced: the pass runs a little later
    assert live(arena) == []
    tick(later + PASS)
    new_pairs = {frozenset((g.white_id, g.black_id)) for g in live(arena)}
    # RULES 8: the rematch cooldown (5 min after one game together) forbids the old pairs.
    assert len(new_pairs) == 2 and not (new_pairs & first_pairs)


def test_a_late_settle_does_not_add_its_delay_to_the_coalescing_window():
    """The window runs from the game's end, not from its settle task (which may run
    late behind other work); a settle later than the whole window asks for the pass at once."""
    arena, players = arena_with(4)
    tick(T0)
    ended = T0 + timedelta(minutes=1)
    finish_all(arena, ended)
    tick(ended + PASS / 2)  # the settles ran a second late
    arena.refresh_from_db()
    assert arena.pairing_due_at == ended + PASS
    assert arena.next_due_at == ended + PASS
    tick(ended + PASS)
    assert len(live(arena)) == 2

    ended = T0 + timedelta(minutes=2)
    finish_all(arena, ended)
    tick(ended + 3 * PASS)  # the settles ran after the whole window: paired in the same tick
    assert len(live(arena)) == 2
    arena.refresh_from_db()
    assert arena.pairing_due_at is None


def test_rematches_wait_five_minutes_per_game_together():
    arena, (a, b) = arena_with(2)
    tick(T0)
    now = T0
    for game_number in range(1, 4):
        now += timedelta(minutes=1)
        finish_all(arena, now)
        tick(now)
        tick(now + PASS)
        assert live(arena) == []  # the only possible opponent is in cooldown
        lift = now + timedelta(minutes=5 * game_number)
        arena.refresh_from_db()
        running.request_pairing(arena, lift - timedelta(seconds=1))  # a page opened: no effect
        tick(lift - timedelta(seconds=1))
        assert live(arena) == []
        now = lift
        tick(now)  # the pass is due as the cooldown lifts
        assert len(live(arena)) == 1, game_number
    assert ArenaGame.objects.filter(arena=arena).count() == 4


def test_only_waiting_players_are_paired():
    arena, players = arena_with(6)
    away, paused, busy_player = players[0], players[1], players[2]
    from live.models import Connection

    Connection.objects.filter(user=away).delete()  # the page is closed
    services.entry_pause(arena_id=arena.pk, player=paused)
    games.game_open(  # busy in a challenge game elsewhere (RULES 1)
        white_id=busy_player.pk,
        black_id=UserFactory().pk,
        variant_code="chess",
        base_seconds=600,
        increment_seconds=0,
        rated=False,
        at_ms=ms(T0),
    )
    tick(T0)
    paired = {p for g in live(arena) for p in (g.white_id, g.black_id)}
    assert paired == {p.pk for p in players[3:]} - {away.pk} or len(paired) == 2
    assert not paired & {away.pk, paused.pk, busy_player.pk}


def test_the_page_of_the_just_finished_game_counts_as_the_arena_page():
    arena, players = arena_with(4)
    tick(T0)
    later = T0 + timedelta(minutes=1)
    done = finish_all(arena, later)
    from live.models import Connection

    # Nobody has the arena page open any more; the players stay on their finished games.
    Connection.objects.filter(topic=selectors.topic(arena.pk)).delete()
    tick(later)
    tick(later + PASS)
    assert len(live(arena)) == 2
    assert {g.pk for g in done}.isdisjoint({g.pk for g in live(arena)})


def test_a_player_who_loses_without_moving_is_paused_and_told():
    arena, (a, b) = arena_with(2)
    tick(T0)
    (game,) = live(arena)
    absent = game.white_id  # White never sits: the clock runs out
    games.game_presence(
        game_id=game.pk, user_id=game.black_id, connected=True, key="b", at_ms=ms(T0)
    )
    flag = T0 + timedelta(seconds=arena.base_seconds + 1)
    games.games_due_process(at_ms=ms(flag))
    tick(flag)
    entry = Entry.objects.get(arena=arena, player_id=absent)
    assert (entry.state, entry.pause_reason) == (EntryState.PAUSED, PauseReason.ABSENT)
    other = Entry.objects.get(arena=arena, player_id=game.black_id)
    assert other.state == EntryState.ACTIVE and other.points == 2
    # Coming back ("Riprendi") makes them active again.
    services.entry_enter(arena_id=arena.pk, player=entry.player, now=flag)
    entry.refresh_from_db()
    assert entry.state == EntryState.ACTIVE and entry.pause_reason == ""


def test_streak_and_boost_on_the_sheet():
    arena, (a, b, c, d) = arena_with(4, base_seconds=180, increment_seconds=2)
    now = T0
    tick(now)
    # Let the same player (a) win three games in a row, the third with boost.
    for number in range(3):
        game = next(g for g in live(arena) if a.pk in (g.white_id, g.black_id))
        sit(game, now)
        if number == 2:
            color_a = "white" if game.white_id == a.pk else "black"
            first = game.clock_running
            if color_a == first:
                games.game_boost(game_id=game.pk, user_id=a.pk, expected_ply=0, at_ms=ms(now))
            else:
                games.game_move(
                    game_id=game.pk,
                    user_id=game.white_id,
                    expected_ply=0,
                    move="e2e4",
                    at_ms=ms(now),
                )
                games.game_boost(game_id=game.pk, user_id=a.pk, expected_ply=1, at_ms=ms(now))
        loser = game.black_id if game.white_id == a.pk else game.white_id
        games.game_resign(game_id=game.pk, user_id=loser, at_ms=ms(now))
        for other in live(arena):
            games.game_draw_offer(game_id=other.pk, user_id=other.white_id, at_ms=ms(now))
            games.game_draw_accept(game_id=other.pk, user_id=other.black_id, at_ms=ms(now))
        now += timedelta(minutes=20)  # past every cooldown
        tick(now)
        tick(now + PASS)
        now += PASS
    entry = Entry.objects.get(arena=arena, player=a)
    rows, _pages = selectors.leaderboard(arena)
    row = next(r for r in rows if r.entry.pk == entry.pk)
    assert [m.points for m in row.marks] == [2, 2, 6]  # streak from the third win, boosted
    assert (entry.points, entry.wins, entry.games) == (10, 3, 3)
    assert rows[0].entry.pk == entry.pk and rows[0].rank == 1


def test_at_the_end_nobody_new_is_paired_and_the_grace_draws_open_games():
    arena, players = arena_with(6, duration_minutes=10, base_seconds=1800)
    tick(T0)
    assert len(live(arena)) == 3
    end = arena.ends_at
    games_open = live(arena)
    sat_game, unsat_game, finished_late = games_open
    sit(sat_game, T0)
    sit(finished_late, T0)
    # One game ends after the end: its players are not paired again.
    games.game_resign(game_id=finished_late.pk, user_id=finished_late.black_id, at_ms=ms(end))
    tick(end + timedelta(seconds=1))
    tick(end + PASS + timedelta(seconds=1))
    assert {g.pk for g in live(arena)} == {sat_game.pk, unsat_game.pk}
    arena.refresh_from_db()
    assert arena.status == Arena.Status.RUNNING
    # After the ten-minute grace: drawn where somebody sat, 0-0 where nobody did.
    after = end + running.GRACE
    tick(after)
    arena.refresh_from_db()
    assert arena.status == Arena.Status.FINISHED
    sat_game.refresh_from_db()
    unsat_game.refresh_from_db()
    assert (sat_game.result, sat_game.reason) == ("1/2-1/2", "event_end")
    assert (unsat_game.result, unsat_game.reason) == ("0-0", "both_absent")
    ranks = dict(Entry.objects.filter(arena=arena).values_list("player_id", "rank"))
    assert ranks[finished_late.white_id] == 1
    assert tick(after + timedelta(minutes=1)) == []
    assert selectors.podium(arena)[0].player_id == finished_late.white_id


def one_game_ending_in_the_grace(*, loser: str = "white") -> tuple[Arena, Game, object]:
    """Two players, one game, resigned by `loser` three minutes after the arena's end (in the
    grace); returns the arena, the game and that instant (not yet ticked)."""
    arena, _players = arena_with(2, duration_minutes=10, base_seconds=1800)
    tick(T0)
    (game,) = live(arena)
    sit(game, T0)
    late = arena.ends_at + timedelta(minutes=3)
    games.game_resign(game_id=game.pk, user_id=getattr(game, f"{loser}_id"), at_ms=ms(late))
    return arena, game, late


def test_the_arena_ends_at_once_when_its_last_game_ends_in_the_grace():
    arena, game, late = one_game_ending_in_the_grace()
    tick(late)
    arena.refresh_from_db()
    assert arena.status == Arena.Status.FINISHED and arena.finished_at == late


def test_each_rated_game_is_rated_on_its_own():
    from games.services import game_settle

    arena, players = arena_with(2)
    tick(T0)
    (game,) = live(arena)
    sit(game, T0)
    games.game_resign(game_id=game.pk, user_id=game.black_id, at_ms=ms(T0))
    assert game_settle(game_id=game.pk)  # the worker's settle: events' router and ratings
    assert RatingPeriod.objects.filter(kind="game", source_id=game.pk).count() == 1
    assert Entry.objects.get(arena=arena, player_id=game.white_id).points == 2
    casual, players = arena_with(2, rated=False)
    tick(T0)
    (game,) = live(casual)
    sit(game, T0)
    games.game_resign(game_id=game.pk, user_id=game.black_id, at_ms=ms(T0))
    game_settle(game_id=game.pk)
    assert not RatingPeriod.objects.filter(kind="game", source_id=game.pk).exists()


def test_staff_cancel_draws_live_games_and_rates_nothing():
    arena, players = arena_with(2)
    tick(T0)
    (game,) = live(arena)
    sit(game, T0)
    staff = UserFactory(is_staff=True)
    services.arena_cancel(arena_id=arena.pk, by=staff, staff=True, now=T0 + timedelta(minutes=1))
    arena.refresh_from_db()
    game.refresh_from_db()
    assert arena.status == Arena.Status.CANCELLED
    assert (game.result, game.reason, game.rated) == ("1/2-1/2", "event_end", False)
    from games.services import game_settle

    game_settle(game_id=game.pk)
    assert not RatingPeriod.objects.exists()
    with pytest.raises(services.ArenaError):
        services.arena_cancel(arena_id=arena.pk, by=staff, staff=True)
    assert tick(T0 + timedelta(hours=2)) == []


def test_when_everybody_has_met_the_pass_runs_as_the_first_cooldown_lifts():
    # Four players, every pair has met, all four wait; nothing else happens (no game ends,
    # nobody opens a page): the tick pairs them when the first cooldown lifts.
    arena, players = arena_with(4)
    tick(T0)
    now = T0
    met = set()
    for _round in range(3):
        met |= {frozenset((g.white_id, g.black_id)) for g in live(arena)}
        now += timedelta(minutes=1)
        finish_all(arena, now)
        tick(now)
        tick(now + PASS)
    assert len(met) == 6  # the three rounds of four players: every pair once
    assert live(arena) == []
    arena.refresh_from_db()
    first_lift = T0 + timedelta(minutes=1) + pairing_cooldown(1)
    assert arena.pairing_due_at == first_lift and arena.next_due_at == first_lift
    assert tick(first_lift - timedelta(seconds=1)) == []
    assert live(arena) == []
    tick(first_lift)  # only the clock moved
    assert len(live(arena)) == 2


def pairing_cooldown(games: int) -> timedelta:
    from arena.engine.pairing import COOLDOWN_MS_PER_GAME

    return timedelta(milliseconds=games * COOLDOWN_MS_PER_GAME)


def test_an_arena_entered_in_advance_pauses_at_its_start_who_is_active_in_another():
    # RULES 8 (one running arena at a time): P is active in running arena B and entered A in advance; when A
    # starts P is paused in A (B started first) and not paired there.
    running_b = ArenaFactory(starts_at=T0 - timedelta(minutes=10))
    p = EntryFactory(arena=running_b).player
    on_page(running_b, p, T0 - timedelta(minutes=10))
    tick(T0 - timedelta(minutes=10))
    running_b.refresh_from_db()
    assert running_b.status == Arena.Status.RUNNING
    arena_a, others = arena_with(2)
    services.entry_enter(arena_id=arena_a.pk, player=p, now=T0 - timedelta(minutes=5))
    on_page(arena_a, p, T0)
    tick(T0)
    arena_a.refresh_from_db()
    assert arena_a.status == Arena.Status.RUNNING
    mine = Entry.objects.get(arena=arena_a, player=p)
    assert (mine.state, mine.pause_reason) == (EntryState.PAUSED, PauseReason.OTHER_ARENA)
    assert Entry.objects.get(arena=running_b, player=p).state == EntryState.ACTIVE
    (game,) = live(arena_a)
    assert {game.white_id, game.black_id} == {o.pk for o in others}


def test_the_pass_never_pairs_a_player_active_in_two_running_arenas():
    # A race (entering B while A starts) can leave P active in both: the later arena's pass
    # pauses P there and pairs the others; the earlier one still pairs P.
    earlier, (p, q) = arena_with(2, starts_at=T0 - timedelta(minutes=1))
    later, (r, s, t) = arena_with(3)
    tick(T0 - timedelta(minutes=1))
    assert len(live(earlier)) == 1
    finish_all(earlier, T0 - timedelta(seconds=30))
    tick(T0 - timedelta(seconds=30))
    tick(T0)
    (first,) = live(later)
    finish_all(later, T0 + timedelta(seconds=10))
    tick(T0 + timedelta(seconds=10))
    # P made active in the later arena too, as a race would (with both pages open); the two
    # players of the finished game are in cooldown, so P is the only possible opponent.
    Entry.objects.create(arena=later, player=p, waiting_since=T0 + timedelta(seconds=10))
    on_page(later, p, T0 + timedelta(seconds=10))
    tick(T0 + timedelta(seconds=10) + PASS)
    paired = {u for g in live(later) for u in (g.white_id, g.black_id)}
    assert p.pk not in paired and len(paired) == 2, paired
    entry = Entry.objects.get(arena=later, player=p)
    assert (entry.state, entry.pause_reason) == (EntryState.PAUSED, PauseReason.OTHER_ARENA)
    assert Entry.objects.get(arena=earlier, player=p).state == EntryState.ACTIVE


def test_resigning_before_ones_first_move_is_presence_not_absence():
    # RULES 8 Decision: resigning at once is a choice made at the board: not paused.
    arena, (a, b) = arena_with(2)
    tick(T0)
    (game,) = live(arena)
    sit(game, T0)
    games.game_resign(game_id=game.pk, user_id=game.white_id, at_ms=ms(T0))  # nobody moved
    tick(T0 + timedelta(seconds=5))
    for player_id in (game.white_id, game.black_id):
        entry = Entry.objects.get(arena=arena, player_id=player_id)
        assert (entry.state, entry.pause_reason) == (EntryState.ACTIVE, "")
    assert Entry.objects.get(arena=arena, player_id=game.black_id).points == 2


def test_the_pass_log_line_keeps_what_the_benchmark_reads_and_the_timestamps(caplog):
    # The path from a game's end to the next game is logged stage by stage, so a slow stage
    # can be found; the pass line still matches bench/arena.py's pattern.
    import logging
    import re

    arena, players = arena_with(4)
    tick(T0)
    later = T0 + timedelta(minutes=1)
    finish_all(arena, later)
    with caplog.at_level(logging.INFO, logger="arena.running"):
        tick(later)
        tick(later + PASS)
    text = caplog.text
    assert re.search(
        rf"arena {arena.pk}: pairing pass, (\d+) waiting, (\d+) games opened in ([\d.]+) ms", text
    )
    assert "ran" in text and "paired players waited p50" in text
    assert re.search(rf"arena {arena.pk}: game \d+ scored; settle began", text)


def test_its_start_takes_the_players_active_in_it_to_its_page(django_capture_on_commit_callbacks):
    """RULES 8: at the start, the players active in the arena are told `myarena` with
    `started` (their pages anywhere on the site go to it: only a page open on it pairs them;
    nobody away from it was paired in its first minute); a paused one without it. A site socket
    opened in the arena's first minute is told the same, later not."""
    from arena.receivers import arena_started_news
    from live import pushes
    from live.pushes import user_group

    arena = ArenaFactory(starts_at=T0)
    away = EntryFactory(arena=arena).player  # no page of the arena open
    paused = EntryFactory(arena=arena, state=EntryState.PAUSED).player
    with pushes.collected() as outbox, django_capture_on_commit_callbacks(execute=True):
        tick(T0)
    told = {
        player.pk: [m for group, m in outbox if group == user_group(player.pk)]
        for player in (away, paused)
    }
    url = arena.get_absolute_url()
    started = {"type": "user.changed", "what": "eventcall", "url": url}
    assert started in told[away.pk]
    assert started not in told[paused.pk]
    assert {"type": "user.changed", "what": "myarena"} in told[paused.pk]
    assert selectors.arenas_just_started(away.pk, now=T0 + timedelta(seconds=59)) == [arena.pk]
    assert selectors.arenas_just_started(away.pk, now=T0 + timedelta(seconds=61)) == []
    assert selectors.arenas_just_started(paused.pk, now=T0 + timedelta(seconds=1)) == []
    # The news on connect reads the real clock: an arena that started now.
    Arena.objects.filter(pk=arena.pk).update(started_at=timezone.now())
    assert arena_started_news(away.pk) == [started]
    assert arena_started_news(paused.pk) == []
