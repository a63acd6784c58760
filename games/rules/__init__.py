"""Game rules core: chess and three draughts variants, pure Python, no Django.

Public interface (stable; the live-play code builds on it)::

    from games.rules import variant, VARIANT_CODES, Outcome, Result, Reason, Color

    v = variant("italian")            # 'chess', 'italian', 'english', 'international'
    fen = v.start_fen()               # canonical text of the start position
    v.side_to_move(fen)               # Color.WHITE / Color.BLACK
    v.legal_moves(fen)                # ['21-17', '21-18', ...], sorted
    fen = v.apply(fen, "22-18")       # new position; raises IllegalMove
    v.outcome(fen, history)           # Outcome(result, reason) when the game is over, else None
    v.claimable_draw(fen, history)    # chess: threefold / fifty-move claim available, else None
    v.timeout_outcome(fen, flagged)   # loss on time, or a draw when the opponent cannot win
    v.notation(fen, move, "it")       # 'Cf3', '0-0', 'exd6 e.p.', 'd8D' / English letters; draughts '22x13'
    v.play(fen, move, history)        # Played(fen, notation=(it, en), outcome, to_move,
                                      #   legal_moves): all a game server needs, in one call
    v.export(moves, headers=..., result=...)   # PGN (chess) / PDN (draughts) text
    v.replay(moves)                   # all positions of a game; IllegalMove names the first bad ply
    v.perft(depth, fen)

Texts exchanged with clients and stored:

- Positions: chess FEN; draughts PDN FEN ``W:W21,22,...,K30:B1,2,...`` (side to move first,
  ``K`` marks a king; square numbers as each federation writes them). ``normalize_fen`` reads any
  valid spelling (ranges ``1-12`` too) and returns the canonical one, which is what every method
  returns, so equal positions have equal text.
- Moves: UCI for chess (``e2e4``, ``e7e8q``); for draughts the square path, ``-`` for a simple
  move and ``x`` between every landing square of a capture (``22x13x6``). ``apply`` also accepts
  the short PDN form ``22x6`` of a capture when only one legal capture goes from 22 to 6.
- ``history`` arguments list the earlier positions of the game (canonical FENs, oldest first,
  without the current one); repetition and move-count rules need them.

``Outcome`` is a frozen dataclass ``(result: Result, reason: Reason, claimable: bool)``;
``Result`` is '1-0' / '0-1' / '1/2-1/2'. Errors are ``IllegalMove`` / ``InvalidPosition``
(both ``RulesError``, a ``ValueError``).

``VARIANT_CODES`` and the lookup come from ``variants``, the one list of variants with what the
site does with each (export format, board, draw claims, openings): ``variants.info(code)``.

Modules: ``base`` (interface, dataclasses), ``variants`` (the list), ``chess_variant``
(python-chess), ``draughts`` (our move generator; its docstring lists the capture and draw rules
of each variant), ``openings`` (the F.I.D. 174 table, random openings), ``clock`` (Fischer
clocks in integer milliseconds).
Command line: ``python -m games.rules perft|moves|play ...``.
"""

from __future__ import annotations

from . import variants as _variants
from .base import (
    Color,
    IllegalMove,
    InvalidPosition,
    Language,
    MoveNode,
    Outcome,
    Played,
    Reason,
    Result,
    RulesError,
    Variant,
)


def variant(code: str) -> Variant:
    """The variant with this code; raises KeyError for an unknown code."""
    return _variants.info(code).rules


def __getattr__(name: str):
    # Read from the one list (`variants.VARIANTS`) when asked, so a variant declared after this
    # package was imported (`variants.declare`) is in it.
    if name == "VARIANT_CODES":
        return _variants.codes()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "VARIANT_CODES",
    "Color",
    "IllegalMove",
    "InvalidPosition",
    "Language",
    "MoveNode",
    "Outcome",
    "Played",
    "Reason",
    "Result",
    "RulesError",
    "Variant",
    "variant",
]
