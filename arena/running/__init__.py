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
instant the first cooldown among them lifts, and the tick runs it then.

Broadcast after commit (STYLE 4): `changed_on_commit` (throttled: at most about one refresh per
second per arena) and the players' site sockets (`mygame`, `myarena`).

The package is split by step: `tick` (what is due), `advance` (start, due pass, end),
`passes` (the pairing pass), `finished` (a game's end), `end`, and `common`; `timings` writes the
lines operators and bench/arena.py read of where a pass's time went.
"""

from __future__ import annotations

from .advance import arena_advance, arena_pair
from .common import (
    GRACE,
    changed_on_commit,
    coalesce,
    group_name,
    players_told_on_commit,
    request_pairing,
)
from .end import arena_staff_saved, cancel_running
from .finished import arena_game_finished
from .tick import arenas_due_process

__all__ = [
    "GRACE",
    "changed_on_commit",
    "coalesce",
    "group_name",
    "players_told_on_commit",
    "request_pairing",
    "arenas_due_process",
    "arena_advance",
    "arena_pair",
    "arena_game_finished",
    "arena_staff_saved",
    "cancel_running",
]
