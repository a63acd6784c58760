"""What every writer of a live game shares: the acting prologue, the end of a game, the flag.

Locking contract
----------------
One writer per game (STYLE 3): every service that changes a game runs in one transaction and
first locks the game row (`store.lock_game`, a GAME lock in `live.locks`' order); everything it
decides is decided from that locked row. Actions on behalf of a client take the ply the client
saw (`expected_ply`) and refuse with `StalePly` when the game has moved on, so a double-submitted
or stale message fails cleanly and changes nothing. A move is written otherwise, with the same
effect (`play.game_move`): decided from the row as it was at a stamp and written by one UPDATE
that locks the row itself and writes only where the row still carries that stamp.

Broadcast after commit, with a version (STYLE 4): every change written goes through
`save_and_push`, which bumps `Game.version` under the lock and pushes the new state after
commit (a move bumps its own and pushes after its statement). A game that ends is settled
after commit (`state.settle_on_commit`: `game_finished` from a worker).

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
from games.rules import Color, variant
from games.rules import clock as clocks
from games.rules.clock import ClockError
from games.services import memory
from games.services.errors import GameOver, Malformed, NotAPlayer, StalePly
from games.services.state import (
    lobby_games_changed_on_commit,
    now_ms,
    push_state_on_commit,
    settle_on_commit,
)
from games.services.store import lock_game, write_game
from live import locks


def finish(game: Game, *, result: str, reason: str, at_ms: int) -> None:
    """Stop the clocks and record the result on `game` (nothing written, nobody told)."""
    try:
        game.set_clock(clocks.stop(game.clock, at_ms))
    except ClockError:
        pass
    game.status = Status.FINISHED
    game.result = result
    game.reason = reason
    game.draw_offer = ""
    game.finished_at = datetime.fromtimestamp(at_ms / 1000, UTC)  # when it ended, by its clock


def ended_on_commit(game_id: int) -> None:
    """What follows the end of a game once it is committed: the game is settled by a worker,
    and the lobby counts the games being played (each cell of its grid)."""
    settle_on_commit(game_id)
    lobby_games_changed_on_commit()


def end_game(game: Game, *, result: str, reason: str, at_ms: int) -> None:
    """`finish` the locked game, its follow-ups after commit (the caller saves and pushes)."""
    finish(game, result=result, reason=reason, at_ms=at_ms)
    ended_on_commit(game.pk)


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


def save_and_push(game: Game, at_ms: int) -> Game:
    """Write the locked game, one version newer, and push its whole state after commit."""
    game.version += 1
    write_game(game)
    # The row as just written, with its new stamp: this process remembers it, and the push
    # carries what the others need to follow (`games.services.memory`).
    push_state_on_commit(game, at_ms, row=memory.remember(game))
    return game


def has_moved(game: Game, color: Color) -> bool:
    """Whether `color` has made at least one move in this game."""
    first = variant(game.variant).side_to_move(game.start_fen)
    return game.ply >= (1 if color is first else 2)


# `expected_ply` not given: the action does not depend on the position (resign, draw offers).
ANY_PLY = object()


def optional_ply(expected_ply: Any) -> Any:
    """An optional ply: checked when the client sent one."""
    return ANY_PLY if expected_ply is None else expected_ply


def check_action(game: Game, user_id: int | None, expected_ply: Any, at_ms: int) -> Color | None:
    """The checks of every player action, in order, on a version of the row: the game is live
    (else GameOver); the running side's flag has not fallen by `at_ms` (else None: the game
    ends on time first, RULES 3); the user is one of its players (NotAPlayer); the ply is the
    one the client saw, when given (Malformed, StalePly). Returns the player's colour."""
    if not game.is_live:
        raise GameOver("the game is over")
    if clocks.flagged(game.clock, at_ms) is not None:
        return None
    color = game.player_color(user_id)
    if color is None:
        raise NotAPlayer("only the two players may act on this game")
    if expected_ply is not ANY_PLY:
        if isinstance(expected_ply, bool) or not isinstance(expected_ply, int):
            raise Malformed("ply must be an integer")
        if expected_ply != game.ply:
            raise StalePly(f"the game is at ply {game.ply}, not {expected_ply}")
    return color


@dataclass
class Act:
    """One player's action under way on a locked game: the body changes `game`."""

    game: Game
    color: Color
    at_ms: int


@contextmanager
def acting(
    game_id: Any,
    user_id: int | None,
    expected_ply: Any = ANY_PLY,
    at_ms: int | None = None,
) -> Iterator[Act]:
    """The prologue of every player action, in one transaction under the game row lock.

    In order: the game exists; a flag already fallen ends the game first (committed and pushed,
    then the action is refused with GameOver); the game is live; the user is one of its players;
    the ply is the one the client saw (when given). The body then changes `act.game`, which is
    saved one version newer and pushed after commit; an error raised by the body changes
    nothing."""
    at = now_ms() if at_ms is None else at_ms
    with locks.atomic():
        game = lock_game(game_id)
        color = check_action(game, user_id, expected_ply, at)
        flagged = color is None
        if flagged:
            flag_if_due(game, at)
            save_and_push(game, at)
        else:
            yield Act(game, color, at)
            save_and_push(game, at)
    if flagged:  # after the commit: the flag stays fallen, the action is refused
        raise GameOver("the time ran out")
