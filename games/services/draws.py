"""Draw offers and claims (RULES 3; FIDE 9.1-9.3)."""

from __future__ import annotations

from typing import Any

from games.models import EndReason, Game, GameResult
from games.rules import variant
from games.services.acting import acting, end_game, optional_ply
from games.services.errors import NoDrawOffer, NoDrawToClaim, NotYourTurn
from games.services.state import push_declined_on_commit


def game_draw_offer(
    *, game_id: int, user_id: int | None, expected_ply: Any = None, at_ms: int | None = None
) -> Game:
    """Offer a draw; if the opponent had already offered one, the draw is agreed. An offer
    lapses when its recipient moves (`play.game_move`)."""
    with acting(game_id, user_id, optional_ply(expected_ply), at_ms) as act:
        game, color = act.game, act.color
        if game.draw_offer == color.opponent.value:
            end_game(game, result=GameResult.DRAW, reason=EndReason.AGREED_DRAW, at_ms=act.at_ms)
        else:
            game.draw_offer = color.value
    return game


def game_draw_accept(
    *, game_id: int, user_id: int | None, expected_ply: Any = None, at_ms: int | None = None
) -> Game:
    """Accept the opponent's pending draw offer."""
    with acting(game_id, user_id, optional_ply(expected_ply), at_ms) as act:
        if act.game.draw_offer != act.color.opponent.value:
            raise NoDrawOffer("your opponent has not offered a draw")
        end_game(act.game, result=GameResult.DRAW, reason=EndReason.AGREED_DRAW, at_ms=act.at_ms)
    return act.game


def game_draw_decline(
    *, game_id: int, user_id: int | None, expected_ply: Any = None, at_ms: int | None = None
) -> Game:
    """Decline the opponent's pending draw offer. The offerer is told (as a lichess player
    sees "Draw offer declined"): after the state without the offer, a `draw_declined`
    message carrying that state's version (docs/protocol.md). An offer that lapses because its
    recipient moved is not announced: the move itself says it."""
    with acting(game_id, user_id, optional_ply(expected_ply), at_ms) as act:
        offer = act.game.draw_offer
        if offer != act.color.opponent.value:
            raise NoDrawOffer("your opponent has not offered a draw")
        act.game.draw_offer = ""
    push_declined_on_commit(act.game, "draw_declined", offer)
    return act.game


def game_draw_claim(
    *, game_id: int, user_id: int | None, expected_ply: Any, at_ms: int | None = None
) -> Game:
    """Claim a draw the rules allow now (chess: threefold repetition, fifty moves).

    FIDE 9.2/9.3: only the player to move may claim, in the current position.
    """
    with acting(game_id, user_id, expected_ply, at_ms) as act:
        game = act.game
        rules = variant(game.variant)
        if rules.side_to_move(game.fen) is not act.color:
            raise NotYourTurn("only the player to move may claim a draw")
        claim = rules.claimable_draw(game.fen, game.positions)
        if claim is None:
            raise NoDrawToClaim("no draw can be claimed in this position")
        end_game(game, result=claim.result.value, reason=claim.reason.value, at_ms=act.at_ms)
    return game
