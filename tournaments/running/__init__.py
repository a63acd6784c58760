"""Services that run a round tournament from its start to the final standings (RULES 4.3-4.10,
5, 6, 7.1). Nobody presses a button: the periodic tick calls `tournaments_due_process`, and the
`game_finished` receiver calls `tournament_game_finished`.

Locking contract
----------------
Every step runs in one transaction and first locks the tournament row (`select_for_update`);
everything it does is decided from the database state it then reads. So the tick run twice,
two workers running it at once, a worker killed and restarted, or the receiver racing the tick
never start a tournament twice, pair a round twice, open a game twice or score a game twice.
Games are opened through `games.services.game_open`, which locks the players' user rows after
ours (always tournament, then users, then games: no cycle).

Broadcast after commit (STYLE 4): `changed_on_commit(tournament, round)` for the tournament's
page, and to the players' site sockets `players_changed_on_commit` (the banner) and, for every
game opened, `game_opened_on_commit` (their pages go to the board, docs/protocol.md "Site socket").

Time: each service takes `now` (an aware datetime) so tests drive a controlled clock; the
default is the wall clock. Game clocks start at the same instant.

The package is split by step: `tick` (what is due), `start`, `rounds` (pairing and opening a
round), `finished` (a game's end), `advance` (the next round, the end), `end`, and `common`.
"""

from __future__ import annotations

from .advance import tournament_advance
from .common import GRACE, POINTS, round_pause, round_slot
from .end import cancel_running
from .finished import tournament_game_finished
from .rounds import draw_opening
from .start import tournament_start
from .tick import tournaments_due_process

__all__ = [
    "GRACE",
    "POINTS",
    "round_pause",
    "round_slot",
    "draw_opening",
    "tournaments_due_process",
    "tournament_start",
    "tournament_game_finished",
    "tournament_advance",
    "cancel_running",
]
