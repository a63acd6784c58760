"""Refusals of the game services. `code` is stable and goes to clients (docs/protocol.md)."""

from __future__ import annotations


class GameError(Exception):
    """A refused action; nothing changed."""

    code = "error"

    def __init__(self, message: str = "") -> None:
        super().__init__(message or self.code)
        self.message = message or self.code


class GameNotFound(GameError):
    code = "not_found"


class GameOver(GameError):
    code = "game_over"


class NotAPlayer(GameError):
    code = "not_a_player"


class NotYourTurn(GameError):
    code = "not_your_turn"


class StalePly(GameError):
    code = "stale_ply"


class IllegalMoveError(GameError):
    code = "illegal_move"


class Malformed(GameError):
    code = "malformed"


class UnreadableMove(GameError):
    """A typed move (the text mode) that is no move in the variant's notation."""

    code = "unreadable_move"


class AmbiguousMove(GameError):
    """A typed move that fits several legal moves: `choices`, as the player writes them."""

    code = "ambiguous_move"

    def __init__(self, choices: tuple[str, ...]) -> None:
        super().__init__("the move fits several legal moves: " + ", ".join(choices))
        self.choices = list(choices)


class NoDrawOffer(GameError):
    code = "no_draw_offer"


class NoDrawToClaim(GameError):
    code = "no_draw_to_claim"


class PlayerBusy(GameError):
    code = "player_busy"


class ChallengeGone(GameError):
    code = "challenge_gone"


class NoBoost(GameError):
    """Boost refused: not offered in this game, already taken, or after one's first move."""

    code = "no_boost"


class TooManyChallenges(GameError):
    """A player may keep only a few challenges open at once (`MAX_OPEN_CHALLENGES`)."""

    code = "too_many_challenges"


class OpponentUnavailable(GameError):
    """The challenged account is deactivated (or gone)."""

    code = "opponent_unavailable"


class NoNewOpponent(GameError):
    """ "Nuovo avversario" asked where there is none to give: a game still being played, or a
    game of an event (a tournament or an arena pairs its players itself)."""

    code = "no_new_opponent"


class NoAbort(GameError):
    """Abort refused (RULES 3): a game of an event, or after one's own first move."""

    code = "no_abort"


class NoTakeback(GameError):
    """A takeback refused (RULES 3): not a casual game of no event, nothing of one's own to take
    back, a request already pending, or none to answer."""

    code = "no_takeback"


class NoMoreTime(GameError):
    """ "+15 s" refused (RULES 3): not a casual game of no event."""

    code = "no_more_time"
