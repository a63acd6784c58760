"""The pairing pass (RULES 8): whoever waits is paired by the pure engine
(arena/engine/pairing.py), their games opened, the next pass scheduled."""

from __future__ import annotations

import random
from datetime import UTC, datetime

from arena import selectors
from arena.engine import pairing
from arena.models import Arena, ArenaGame, Entry, EntryState, PauseReason
from events import ending
from events.openings import draw_opening
from games import services as games
from live import messages, pushes

from . import timings
from .common import _reschedule, changed_on_commit, players_told_on_commit


def _pairing_pass(arena: Arena, now: datetime) -> list[ArenaGame]:
    """Pair whoever is waiting (the caller holds the arena's lock)."""
    timer = timings.PassTimer(arena.pk, due=arena.pairing_due_at)
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
        # has met), so the pass is due then (the tick finds it by `next_due_at`).
        lifts = pairing.next_meeting_ms(result.waiting, inputs.history, at_ms)
        if lifts is not None:
            arena.pairing_due_at = datetime.fromtimestamp(lifts / 1000, tz=UTC)
    _reschedule(arena, now)
    if opened or lifts is not None:  # games to show, or a new "next opponent in" on the page
        changed_on_commit(arena.pk)
    timer.done(waiting=len(entries), opened=opened)
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
