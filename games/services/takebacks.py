"""Takebacks and "+15 s" between the players of a casual game of no event (RULES 3)."""

from __future__ import annotations

from typing import Any

from games.models import Game
from games.rules import Color, variant
from games.rules import clock as clocks
from games.rules.clock import ClockError
from games.services.acting import acting, has_moved, optional_ply
from games.services.errors import NoMoreTime, NoTakeback
from games.services.state import push_declined_on_commit

MORE_TIME_MS = 15_000  # RULES 3: "+15 s"


def _allowed(game: Game, error: type[NoTakeback] | type[NoMoreTime]) -> None:
    if not game.takebacks_allowed:
        raise error("only in casual games of no event")


def _plies_back(game: Game, color: Color) -> int:
    """How many half-moves a takeback asked by `color` undoes: its own last move, and the
    opponent's reply when there is one (RULES 3)."""
    to_move = variant(game.variant).side_to_move(game.fen)
    return 1 if to_move is color.opponent else 2


def game_takeback_offer(
    *, game_id: int, user_id: int | None, expected_ply: Any, at_ms: int | None = None
) -> Game:
    """Ask the opponent to take back one's last move (RULES 3): after one's own move, one
    request pending at a time; it lapses when anyone moves (`play._play`)."""
    with acting(game_id, user_id, expected_ply, at_ms) as act:
        game, color = act.game, act.color
        _allowed(game, NoTakeback)
        if not has_moved(game, color) or game.ply < _plies_back(game, color):
            raise NoTakeback("you have no move to take back")
        if game.takeback_offer:
            raise NoTakeback("a takeback is already asked")
        game.takeback_offer = color.value
    return game


def game_takeback_accept(
    *, game_id: int, user_id: int | None, expected_ply: Any, at_ms: int | None = None
) -> Game:
    """Grant the opponent's pending request: the position before their last move (and this
    player's reply, if any) comes back, the requester is to move, the clocks keep their times,
    a draw offer lapses (RULES 3). `expected_ply` must be the ply the request was made at or
    after (any move lapses it)."""
    with acting(game_id, user_id, expected_ply, at_ms) as act:
        game, color = act.game, act.color
        _allowed(game, NoTakeback)
        requester = color.opponent
        if game.takeback_offer != requester.value:
            raise NoTakeback("your opponent has not asked for a takeback")
        back = _plies_back(game, requester)
        game.fen = game.positions[-back]
        for name in ("positions", "moves", "notation"):
            setattr(game, name, getattr(game, name)[:-back])
        game.clocks = game.clocks[: len(game.moves)]  # the games before it was kept have none
        game.ply -= back
        try:
            game.set_clock(clocks.turn_to(game.clock, requester, act.at_ms))
        except ClockError as error:
            raise NoTakeback(str(error)) from error
        game.takeback_offer = ""
        game.draw_offer = ""
    return game


def game_takeback_decline(
    *, game_id: int, user_id: int | None, expected_ply: Any = None, at_ms: int | None = None
) -> Game:
    """Refuse the opponent's pending request; the requester is told (`takeback_declined`, after
    the state without the request, docs/protocol.md)."""
    with acting(game_id, user_id, optional_ply(expected_ply), at_ms) as act:
        requester = act.color.opponent
        if act.game.takeback_offer != requester.value:
            raise NoTakeback("your opponent has not asked for a takeback")
        act.game.takeback_offer = ""
    push_declined_on_commit(act.game, "takeback_declined", requester.value)
    return act.game


def game_more_time(
    *, game_id: int, user_id: int | None, expected_ply: Any = None, at_ms: int | None = None
) -> Game:
    """ "+15 s": the opponent gets 15 seconds more at once (RULES 3)."""
    with acting(game_id, user_id, optional_ply(expected_ply), at_ms) as act:
        game = act.game
        _allowed(game, NoMoreTime)
        try:
            game.set_clock(
                clocks.give_time(game.clock, act.color.opponent, MORE_TIME_MS, act.at_ms)
            )
        except ClockError as error:
            raise NoMoreTime(str(error)) from error
    return game
