"""Services that run an arena from its start to its podium (RULES 8). Nobody presses a button:
the tick (`arena.tasks`) starts and ends arenas, and runs pairing passes that are due; a game
that ends is scored by the `game_finished` router (in a worker), which asks for a pass.

Locking contract
----------------
Every step runs in one transaction and first locks the arena row (EVENT rank, `live.locks`);
everything it does is decided from what it then reads. So one pass at a time per arena, a
player is never paired twice, a game is scored once (`ArenaGame.ended_at`), and a step run
twice (the tick and a task, two workers) does nothing twice. Games open through
`games.services.game_open`, after the pass has locked every paired player's user row in id
order (USER rank), then the games (GAME rank).

Passes are coalesced (RULES 8): asking for one sets `Arena.pairing_due_at` to a couple of
seconds (ARENA_PAIRING_COALESCE_SECONDS) after the player became waiting, never in the past,
unless one is pending already, and sends the
`arena.pair` task for that instant; the tick runs any pass whose task was lost. A pass that
leaves players waiting only because of the rematch cooldown sets `pairing_due_at` to the
instant the first cooldown among them lifts, and the tick runs it then (issue 25.0).

Broadcast after commit (STYLE 4): `changed_on_commit` (throttled: at most about one refresh per
second per arena) and the players' site sockets (`mygame`, `myarena`).
"""

from __future__ import annotations

import logging
import random
import time
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from arena import selectors
from arena.engine import pairing
from arena.engine.sheet import Outcome, sheet
from arena.models import Arena, ArenaGame, EndReason, Entry, EntryState, PauseReason
from events import ending
from events.openings import draw_opening
from games import services as games
from games.models import EndReason as GameEndReason
from games.models import Game, Status
from games.rules import Color, variant
from live import locks, messages, pushes

log = logging.getLogger(__name__)

GRACE = ending.GRACE  # RULES 8: games in progress at the end get the grace of RULES 4.9


def coalesce() -> timedelta:
    return timedelta(seconds=settings.ARENA_PAIRING_COALESCE_SECONDS)


def group_name(arena_id: int) -> str:
    return f"arena-{arena_id}"


def changed_on_commit(arena_id: int) -> None:
    """The arena's pages re-fetch their fragments: at most about once a second (a busy arena
    changes all the time), the last change never lost."""
    pushes.group_send_throttled_on_commit(group_name(arena_id), messages.arena_changed())


def players_told_on_commit(user_ids, **data) -> None:
    pushes.user_changed_on_commit(user_ids, messages.What.MYARENA, **data)


def _locked(arena_id: int) -> Arena:
    return locks.lock_one(Arena, arena_id, locks.Rank.EVENT)


def _next_due(arena: Arena, now: datetime) -> datetime | None:
    """When the tick must look at the arena next (`Event.next_due_at`): its start; a pending
    pass (asked for, or the instant the first cooldown among the players left waiting lifts);
    its end (nobody new is paired from then); the end of the grace."""
    if arena.status == Arena.Status.SCHEDULED:
        return arena.starts_at
    if arena.status != Arena.Status.RUNNING:
        return None
    if now < arena.ends_at:
        due = arena.ends_at
        if arena.pairing_due_at is not None:
            due = min(due, arena.pairing_due_at)
        return due
    return arena.ends_at + GRACE


def _reschedule(arena: Arena, now: datetime) -> None:
    arena.next_due_at = _next_due(arena, now)
    Arena.objects.filter(pk=arena.pk).update(
        next_due_at=arena.next_due_at, pairing_due_at=arena.pairing_due_at
    )


def request_pairing(arena: Arena, now: datetime, *, waiting_from: datetime | None = None) -> None:
    """Ask for a pairing pass soon (the caller holds the arena's lock). Coalesced: a pass
    already pending takes in whoever is waiting by then.

    The window runs from when the player became waiting (`waiting_from`: a game's end), not
    from when this was asked: a settle that ran late behind other work must not add its delay
    to the whole window (issue 25.6: under load the pass was due the settle's delay + 2 s after
    the game's end, the tail of the wait for the next game). A settle later than the window
    asks for the pass at once."""
    if arena.status != Arena.Status.RUNNING or now >= arena.ends_at:
        return
    due = max(now, min(now, waiting_from or now) + coalesce())
    if arena.pairing_due_at is not None and arena.pairing_due_at <= due:
        return
    arena.pairing_due_at = due
    _reschedule(arena, now)
    arena_id, delay = arena.pk, (due - now).total_seconds()

    def send() -> None:
        from arena.tasks import pair

        try:
            pair.apply_async(args=[arena_id], countdown=delay, retry=False)
        except Exception:
            log.warning("arena %s: pairing task not sent; the tick will run the pass", arena_id)

    transaction.on_commit(send)


# --- the tick ----------------------------------------------------------------------------------


def arenas_due_process(*, now: datetime | None = None) -> list[int]:
    """Start, pair or end every arena that is due (one indexed query for what is due)."""
    now = now or timezone.now()
    changed = []
    due = Arena.objects.due(now).order_by("next_due_at", "pk").values_list("pk", flat=True)
    for arena_id in list(due):
        try:
            if arena_advance(arena_id=arena_id, now=now):
                changed.append(arena_id)
        except Exception:
            log.exception("arena %s: advance failed", arena_id)
    return changed


@locks.atomic
def arena_advance(*, arena_id: int, now: datetime | None = None) -> bool:
    """The tick's step for a due arena; returns whether it changed anything."""
    now = now or timezone.now()
    arena = _locked(arena_id)
    if arena.status == Arena.Status.SCHEDULED:
        if now < arena.starts_at:
            return False
        _start(arena, now)
        return True
    if arena.status != Arena.Status.RUNNING:
        return False
    if now >= arena.ends_at:
        return _end_if_done(arena, now)
    if arena.pairing_due_at is not None and arena.pairing_due_at <= now:
        _pairing_pass(arena, now)
        return True
    _reschedule(arena, now)
    return False


def _start(arena: Arena, now: datetime) -> None:
    """RULES 8: at its start the arena runs; whoever is waiting is paired at once."""
    arena.status = Arena.Status.RUNNING
    arena.started_at = now
    arena.seed = random.SystemRandom().randrange(2**62)
    arena.save(update_fields=["status", "started_at", "seed"])
    # RULES 8: whoever entered in advance and is active in another running arena now is paused
    # here (one running arena at a time); the page tells them why.
    _pause_elsewhere(arena, list(arena.entries.filter(state=EntryState.ACTIVE)))
    arena.pairing_due_at = now
    _pairing_pass(arena, now)
    changed_on_commit(arena.pk)
    players_told_on_commit(arena.entries.values_list("player_id", flat=True))


@locks.atomic
def arena_pair(*, arena_id: int, now: datetime | None = None) -> bool:
    """The coalesced pairing pass, when it is due (the `arena.pair` task). Safe to run twice:
    a pass not due (already run) does nothing."""
    now = now or timezone.now()
    arena = _locked(arena_id)
    if arena.status != Arena.Status.RUNNING or arena.pairing_due_at is None:
        return False
    if arena.pairing_due_at > now:
        return False
    _pairing_pass(arena, now)
    return True


# --- the pairing pass (RULES 8) ------------------------------------------------------------------


def _pairing_pass(arena: Arena, now: datetime) -> list[ArenaGame]:
    """Pair whoever is waiting (the caller holds the arena's lock)."""
    began = time.perf_counter()
    wall = time.time()  # the timestamps of issue 25.6 are wall-clock, like the game's end
    due = arena.pairing_due_at
    arena.pairing_due_at = None
    if now >= arena.ends_at:  # RULES 8: at the end nobody new is paired
        _reschedule(arena, now)
        return []
    at_ms = ending.ms(now)
    # Never pair a player active in two running arenas (a race of entering and a start): the
    # later arena pauses them (RULES 8, `selectors.active_in_earlier_arena`).
    entries = _pause_elsewhere(arena, selectors.waiting_entries(arena, at_ms))
    opened: list[ArenaGame] = []
    lifts = None
    if len(entries) >= 2:
        inputs = selectors.pass_inputs(arena, entries, at_ms)
        count = ArenaGame.objects.filter(arena=arena).count()
        result = pairing.pair_waiting(inputs.waiting, inputs.history, at_ms, arena.seed + count)
        if result.pairs:
            opened = _open(arena, inputs, result.pairs, count, now)
        # Those left wait for a cooldown among them to lift: nothing else may happen (everybody
        # has met), so the pass is due then (issue 25.0; the tick finds it by `next_due_at`).
        lifts = pairing.next_meeting_ms(result.waiting, inputs.history, at_ms)
        if lifts is not None:
            arena.pairing_due_at = datetime.fromtimestamp(lifts / 1000, tz=UTC)
    _reschedule(arena, now)
    if opened or lifts is not None:  # games to show, or a new "next opponent in" (issue 25.7)
        changed_on_commit(arena.pk)
    # One line per pass: what operators (and bench/arena.py) read of the pairing's cost, then
    # where the wait for the next game went (issue 25.6): how late the pass ran after it was
    # due (queued behind other tasks or the arena's lock), and how long the players it paired
    # had waited since they became waiting (for most, their game's end).
    waited = sorted(
        wall - e.waiting_since.timestamp()
        for g in opened
        for e in (g.white, g.black)
        if e.waiting_since is not None
    )
    log.info(
        "arena %s: pairing pass, %d waiting, %d games opened in %.1f ms; ran %.0f ms after due;"
        " paired players waited p50 %.0f ms, max %.0f ms",
        arena.pk,
        len(entries),
        len(opened),
        (time.perf_counter() - began) * 1000,
        (wall - due.timestamp()) * 1000 if due else 0,
        waited[len(waited) // 2] * 1000 if waited else 0,
        waited[-1] * 1000 if waited else 0,
    )
    if opened:
        # After the games' `mygame` pushes (on_commit runs in order): when they left.
        arena_id, count = arena.pk, len(opened)
        transaction.on_commit(
            lambda: log.info(
                "arena %s: %d games pushed (mygame) %.0f ms after the pass began",
                arena_id,
                count,
                (time.time() - wall) * 1000,
            )
        )
    return opened


def _pause_elsewhere(arena: Arena, entries: list[Entry]) -> list[Entry]:
    """Pause here the entries whose player is active in an arena that started earlier (RULES 8,
    one running arena at a time); return the others."""
    elsewhere = selectors.active_in_earlier_arena(arena, [e.player_id for e in entries])
    if not elsewhere:
        return entries
    Entry.objects.filter(arena=arena, player_id__in=elsewhere, state=EntryState.ACTIVE).update(
        state=EntryState.PAUSED, pause_reason=PauseReason.OTHER_ARENA
    )
    changed_on_commit(arena.pk)
    players_told_on_commit(elsewhere)
    return [e for e in entries if e.player_id not in elsewhere]


def _open(arena: Arena, inputs, pairs, count: int, now: datetime) -> list[ArenaGame]:
    """Open the pass's games at once: RULES 6 opening drawn for each game (RULES 8 Decision),
    rated alone (RULES 7.1), boost offered (RULES 8). A player who became busy meanwhile (a
    tournament round, a challenge) is left out of this pass (RULES 1): the games service
    checks again under the players' row locks."""
    drawn = [
        draw_opening(
            mode=arena.opening_mode,
            variant_code=arena.variant,
            thematic=arena.thematic_opening,
            rng=random.Random(f"{arena.seed}:{count + index}"),
        )
        for index in range(len(pairs))
    ]
    opened_games = games.games_open(
        pairs=[(p.white, p.black, d.fen or None) for p, d in zip(pairs, drawn, strict=True)],
        openings=[(d.number, d.moves) for d in drawn],  # RULES 6: shown on the game's page
        variant_code=arena.variant,
        base_seconds=arena.base_seconds,
        increment_seconds=arena.increment_seconds,
        rated=arena.rated,
        boostable=True,
        event=arena,
        at_ms=ending.ms(now),
    )
    arena_games = [
        ArenaGame(
            arena=arena,
            game=game,
            white=inputs.entry_of[pair.white],
            black=inputs.entry_of[pair.black],
            opening_number=opening.number,
            opening_moves=list(opening.moves),
            started_at=now,
        )
        for pair, opening, game in zip(pairs, drawn, opened_games, strict=True)
        if game is not None
    ]
    ArenaGame.objects.bulk_create(arena_games)
    playing = [e.pk for g in arena_games for e in (g.white, g.black)]
    Entry.objects.filter(pk__in=playing).update(waiting_since=None)
    for game in (g.game for g in arena_games):
        # The players' pages go to the board at once (their site socket, docs/protocol.md).
        pushes.user_changed_on_commit(
            [game.white_id, game.black_id], messages.What.MYGAME, game=game.pk
        )
    return arena_games


# --- a game ends ---------------------------------------------------------------------------------


def _rescore(entry_ids: list[int]) -> None:
    """Recompute the entries' cached points from their sheets (never incremented)."""
    results = selectors.results_of(entry_ids)
    for entry_id in entry_ids:
        s = sheet(results[entry_id])
        Entry.objects.filter(pk=entry_id).update(
            points=s.points, wins=s.wins, games=s.games, on_streak=s.on_streak
        )


@locks.atomic
def arena_game_finished(*, game_id: int, now: datetime | None = None) -> bool:
    """An arena game ended (from the `game_finished` router, in a worker): score it on both
    sheets, pause a player who lost without ever moving, and ask for a pass. Safe to run
    twice."""
    found = selectors.arena_game_of(game_id)
    if found is None:
        return False
    asked = time.time()  # issue 25.6: the settle's start, then the arena's lock
    arena = _locked(found.arena_id)
    locked = time.time()
    arena_game = ArenaGame.objects.select_related("game", "white", "black").get(pk=found.pk)
    game = arena_game.game
    if arena_game.ended_at is not None or game.status != Status.FINISHED:
        return False
    now = now or max(timezone.now(), game.finished_at or timezone.now())
    arena_game.ended_at = game.finished_at or now
    arena_game.save(update_fields=["ended_at"])
    _rescore([arena_game.white_id, arena_game.black_id])
    first = variant(game.variant).side_to_move(game.start_fen)
    for entry, color in ((arena_game.white, Color.WHITE), (arena_game.black, Color.BLACK)):
        moved = game.ply >= (1 if color is first else 2)
        lost = selectors.outcome_for(game.result, color is Color.WHITE) in (
            Outcome.LOSS,
            Outcome.NIL,
        )
        # RULES 8 Decision: a player who loses without ever making a move (never sat, flagged
        # or gone before it) is paused, so absent players stop being paired; the page tells
        # them when they come back. Resigning at once is a choice made at the board: not absent.
        absent = lost and not moved and game.reason != GameEndReason.RESIGNATION
        if absent and entry.state == EntryState.ACTIVE:
            entry.state, entry.pause_reason = EntryState.PAUSED, PauseReason.ABSENT
        entry.waiting_since = now
        entry.save(update_fields=["state", "pause_reason", "waiting_since"])
    if arena.status == Arena.Status.RUNNING:
        if now < arena.ends_at:
            request_pairing(arena, now, waiting_from=arena_game.ended_at)
        else:
            _end_if_done(arena, now)
    changed_on_commit(arena.pk)
    players_told_on_commit([arena_game.white.player_id, arena_game.black.player_id])
    if game.finished_at is not None:
        log.info(
            "arena %s: game %s scored; settle began %.0f ms after its end, waited %.0f ms for"
            " the arena's lock; pass due %.0f ms after its end",
            arena.pk,
            game_id,
            (asked - game.finished_at.timestamp()) * 1000,
            (locked - asked) * 1000,
            (arena.pairing_due_at.timestamp() - game.finished_at.timestamp()) * 1000
            if arena.pairing_due_at
            else -1,
        )
    return True


# --- the end ---------------------------------------------------------------------------------------


def _end_if_done(arena: Arena, now: datetime) -> bool:
    """At the end nobody new is paired; the games in progress get the grace (RULES 4.9, 8);
    after it every game still open is drawn (0–0 if neither player ever sat). The arena closes
    when its last game is scored."""
    arena.pairing_due_at = None
    if ending.grace_over(arena.ends_at, now):
        ending.end_live_games(arena, now=now)
        for arena_game in ArenaGame.objects.filter(arena=arena, ended_at__isnull=True):
            _score_ended(arena, arena_game, now)
    if ArenaGame.objects.filter(arena=arena, ended_at__isnull=True).exists():
        _reschedule(arena, now)
        return False
    _finish(arena, EndReason.TIME_UP, now)
    return True


def _score_ended(arena: Arena, arena_game: ArenaGame, now: datetime) -> None:
    """Score a game ended here at the close (its own settle comes later and finds it done)."""
    game = Game.objects.get(pk=arena_game.game_id)
    if game.status != Status.FINISHED:
        return
    arena_game.ended_at = game.finished_at or now
    arena_game.save(update_fields=["ended_at"])
    _rescore([arena_game.white_id, arena_game.black_id])


def _finish(arena: Arena, reason: str, now: datetime) -> None:
    """Close with the final ranking (points, then wins; ties share) and its podium."""
    arena.status = Arena.Status.FINISHED
    arena.finished_at = now
    arena.end_reason = reason
    arena.pairing_due_at = None
    arena.next_due_at = None
    arena.save(
        update_fields=["status", "finished_at", "end_reason", "pairing_due_at", "next_due_at"]
    )
    for entry_id, rank in selectors.entry_ranks(arena).items():
        Entry.objects.filter(pk=entry_id).update(rank=rank)
    changed_on_commit(arena.pk)
    players_told_on_commit(arena.entries.values_list("player_id", flat=True))


@locks.atomic
def arena_staff_saved(*, arena_id: int, now: datetime | None = None) -> None:
    """Staff saved the arena in the admin (its start, its duration hence its end): put it into
    the tick's schedule at once (an end moved into the past closes it and ends its games at
    the grace's end, not later) and tell the open pages and the players, like the opener's
    edits (issue 25.8)."""
    now = now or timezone.now()
    arena = _locked(arena_id)
    if arena.is_live:
        _reschedule(arena, now)
    changed_on_commit(arena.pk)
    players_told_on_commit(arena.entries.values_list("player_id", flat=True))


def cancel_running(arena: Arena, now: datetime) -> None:
    """Staff cancel a running arena (the admin action; the caller holds the row lock): every
    game still live is drawn at once and not rated, nothing is paired after this."""
    arena.status = Arena.Status.CANCELLED
    arena.cancelled_at = now
    arena.end_reason = EndReason.BY_STAFF
    arena.pairing_due_at = None
    arena.next_due_at = None
    arena.save(
        update_fields=["status", "cancelled_at", "end_reason", "pairing_due_at", "next_due_at"]
    )
    ending.end_live_games(arena, now=now, rated=False)
    changed_on_commit(arena.pk)
    players_told_on_commit(arena.entries.values_list("player_id", flat=True))
