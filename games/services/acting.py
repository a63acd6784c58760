"""What every writer of a live game shares: the acting prologue, the end of a game, the flag.

Locking contract
----------------
One writer per game (STYLE 3): every service that changes a game runs in one transaction and
first locks the game row (`store.lock_game`, a GAME lock in `live.locks`' order); everything it
decides is decided from that locked row. Actions on behalf of a client take the ply the client
saw (`expected_ply`) and refuse with `StalePly` when the game has moved on, so a double-submitted
or stale message fails cleanly and changes nothing. The one exception is a plain move of a game
the process remembers (`play._move_from_memory`, `games.services.memory`): it is decided from
memory and written by a single UPDATE that locks the row itself and writes only where the row
is still the one remembered (its `row_stamp`), at the ply and live — otherwise nothing is
written and the move takes this locked path.

Broadcast after commit, with a version (STYLE 4): every change written goes through
`save_and_push`, which bumps `Game.version` under the lock and pushes the new state after
commit — or, for a move from memory, `play._memory_move` bumps the version of the copy it
writes and `state.push_move_on_commit` pushes it after that statement. A game that ends is settled after commit (`state.settle_on_commit`: `game_finished`
from a worker).

Time: every service takes `at_ms` (epoch milliseconds) so tests drive a controlled clock; the
default is the wall clock.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from games.models import EndReason, Game, GameResult, Status
from games.rules import Color, Played, variant
from games.rules import clock as clocks
from games.rules.clock import ClockError
from games.services import memory
from games.services.errors import GameOver, Malformed, NotAPlayer, StalePly
from games.services.state import (
    lobby_games_changed_on_commit,
    now_ms,
    push_move_on_commit,
    push_state_on_commit,
    settle_on_commit,
)
from games.services.store import lock_game, write_game
from live import locks


def end_game(game: Game, *, result: str, reason: str, at_ms: int) -> None:
    """Stop the clocks and record the result (the caller saves and pushes)."""
    try:
        game.set_clock(clocks.stop(game.clock, at_ms))
    except ClockError:
        pass
    game.status = Status.FINISHED
    game.result = result
    game.reason = reason
    game.draw_offer = ""
    game.finished_at = datetime.fromtimestamp(at_ms / 1000, UTC)  # when it ended, by its clock
    settle_on_commit(game.pk)
    # The lobby counts the games being played (each cell of its grid).
    lobby_games_changed_on_commit()


def win_for(color: Color) -> str:
    return GameResult.WHITE_WINS if color is Color.WHITE else GameResult.BLACK_WINS


def flag_if_due(game: Game, at_ms: int) -> bool:
    """End the game on time if the running side's flag has fallen by `at_ms` (locked row).

    RULES 3: the flagged player loses, or draws when the opponent cannot possibly win; when
    neither player ever sat, the game ends 0–0.
    """
    flagged = clocks.flagged(game.clock, at_ms)
    if flagged is None or not game.is_live:
        return False
    fall = game.flag_at_ms if game.flag_at_ms is not None else at_ms
    if not game.white_sat and not game.black_sat:
        end_game(game, result=GameResult.NOBODY_SCORES, reason=EndReason.BOTH_ABSENT, at_ms=fall)
    else:
        outcome = variant(game.variant).timeout_outcome(game.fen, flagged)
        end_game(game, result=outcome.result.value, reason=outcome.reason.value, at_ms=fall)
    return True


def save_and_push(
    game: Game,
    at_ms: int,
    fields: tuple[str, ...] | None = None,
    played: Played | None = None,
    appended: dict[str, list] | None = None,
) -> Game:
    """Write the locked game, one version newer, and push it after commit: a move as what it
    changed (`played`: the move, its notation, the new position and clocks, docs/protocol.md),
    anything else as the full state."""
    game.version += 1
    write_game(game, fields, appended)
    # The row as just written, with its new stamp: this process remembers it, and the push
    # carries what the others need to follow (`games.services.memory`).
    memory.remember(game)
    if played is not None and appended and "moves" in appended:
        push_move_on_commit(game, at_ms, played, appended["moves"][-1], appended["notation"][-1])
    else:
        push_state_on_commit(game, at_ms, played)
    return game


def has_moved(game: Game, color: Color) -> bool:
    """Whether `color` has made at least one move in this game."""
    first = variant(game.variant).side_to_move(game.start_fen)
    return game.ply >= (1 if color is first else 2)


def player_color(game: Game, user_id: int | None) -> Color:
    color = game.player_color(user_id)
    if color is None:
        raise NotAPlayer("only the two players may act on this game")
    return color


def check_ply(game: Game, expected_ply: Any) -> None:
    if isinstance(expected_ply, bool) or not isinstance(expected_ply, int):
        raise Malformed("ply must be an integer")
    if expected_ply != game.ply:
        raise StalePly(f"the game is at ply {game.ply}, not {expected_ply}")


@dataclass
class Act:
    """One player's action under way on a locked game. The body changes `game`; `fields` and
    `played` say what to write and what the rules said (the move path writes less)."""

    game: Game
    color: Color
    at_ms: int
    fields: tuple[str, ...] | None = None
    played: Played | None = None
    appended: dict[str, list] | None = None  # JSON lists the action grows (a move)


# `expected_ply` not given: the action does not depend on the position (resign, draw offers).
ANY_PLY = object()


def optional_ply(expected_ply: Any) -> Any:
    """An optional ply: checked when the client sent one."""
    return ANY_PLY if expected_ply is None else expected_ply


@contextmanager
def acting(
    game_id: Any,
    user_id: int | None,
    expected_ply: Any = ANY_PLY,
    at_ms: int | None = None,
    *,
    light: bool = False,
) -> Iterator[Act]:
    """The prologue of every player action, in one transaction under the game row lock.

    In order: the game exists; a flag already fallen ends the game first (committed and pushed,
    then the action is refused with GameOver); the game is live; the user is one of its players;
    the ply is the one the client saw (when given). The body then changes `act.game`, which is
    saved one version newer and pushed after commit; an error raised by the body changes
    nothing."""
    at = now_ms() if at_ms is None else at_ms
    with locks.atomic():
        game = lock_game(game_id, light=light)
        flagged = flag_if_due(game, at)
        if flagged:
            save_and_push(game, at)
        else:
            if not game.is_live:
                raise GameOver("the game is over")
            act = Act(game, player_color(game, user_id), at)
            if expected_ply is not ANY_PLY:
                check_ply(game, expected_ply)
            yield act
            save_and_push(game, at, act.fields, act.played, act.appended)
    if flagged:  # after the commit: the flag stays fallen, the action is refused
        raise GameOver("the time ran out")
