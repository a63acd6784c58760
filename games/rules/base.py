"""The variant interface shared by chess and the draughts variants.

Everything here is plain data: positions and moves travel as text (FEN for chess, the PDN FEN
for draughts; UCI for chess moves, square paths such as ``22-18`` / ``22x13x6`` for draughts
moves), so the live-play code can store them in the database and send them to clients as they
are. See the package docstring (``games/rules/__init__.py``) for the full contract.
"""

from __future__ import annotations

import abc
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal

Language = Literal["it", "en"]

# -- PGN / PDN tag pairs (PGN standard 8.1; PDN 3.0 takes them over) ---------------------------

# PGN 8.1.1: a tag name is a symbol token.
TAG_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_+#=:-]*\Z")
TAG_VALUE_LIMIT = 255  # PGN 7: a string token holds at most 255 characters
_SEPARATORS = frozenset(("Cc", "Zl", "Zp"))  # control characters, line and paragraph breaks
_INVISIBLE = frozenset(("Cf", "Cs"))  # format characters (bidi overrides...), lone surrogates


def plain_text(value: str) -> str:
    """`value` on one line with nothing hidden: control characters, line and paragraph
    separators become spaces; format characters (bidirectional overrides U+202E..., zero-width
    characters) and lone surrogates are removed; runs of white space become one space, and the
    ends are trimmed. So no text can start a line of its own or reorder what follows it."""
    kept = []
    for char in value:
        category = unicodedata.category(char)
        if category in _SEPARATORS:
            kept.append(" ")
        elif category not in _INVISIBLE:
            kept.append(char)
    return " ".join("".join(kept).split())


def tag_value(value: str) -> str:
    """A header value as a PGN string token's contents: plain text (PGN 7 allows no newline,
    tab or other non-printing character), at most 255 characters, then every backslash and
    double quote escaped with a backslash (PGN 7)."""
    text = plain_text(value)[:TAG_VALUE_LIMIT].rstrip()
    return text.replace("\\", "\\\\").replace('"', '\\"')


def tag_pair(name: str, value: str) -> str:
    """One PGN / PDN header line, `[Name "value"]`. Raises ValueError for a bad tag name."""
    if not TAG_NAME.match(name):
        raise ValueError(f"not a PGN tag name: {name!r}")
    return f'[{name} "{tag_value(value)}"]'


class Color(StrEnum):
    WHITE = "white"
    BLACK = "black"

    @property
    def opponent(self) -> Color:
        return Color.BLACK if self is Color.WHITE else Color.WHITE


class Result(StrEnum):
    """Game result in the PGN/PDN spelling."""

    WHITE_WINS = "1-0"
    BLACK_WINS = "0-1"
    DRAW = "1/2-1/2"

    @staticmethod
    def win_for(color: Color) -> Result:
        return Result.WHITE_WINS if color is Color.WHITE else Result.BLACK_WINS


class Reason(StrEnum):
    """Why a game ended (or why a draw may be claimed). Values are stable storage codes."""

    # Chess, FIDE Laws art. 5 and 9.
    CHECKMATE = "checkmate"
    STALEMATE = "stalemate"
    INSUFFICIENT_MATERIAL = "insufficient_material"
    FIVEFOLD_REPETITION = "fivefold_repetition"
    SEVENTY_FIVE_MOVES = "seventy_five_moves"
    THREEFOLD_REPETITION = "threefold_repetition"  # chess: claimable; draughts: automatic
    FIFTY_MOVES = "fifty_moves"
    # Draughts.
    NO_LEGAL_MOVE = "no_legal_move"  # the side to move has no piece or cannot move: it loses
    KING_MOVES = "king_moves"  # N moves each of kings only, no capture, no man moved
    ENDGAME_MOVES = "endgame_moves"  # FMJD art. 6.3/6.4: few pieces against a lone king
    # Clock.
    TIMEOUT = "timeout"
    TIMEOUT_VS_INSUFFICIENT_MATERIAL = "timeout_vs_insufficient_material"


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended: the result and its reason.

    ``claimable`` is True only for draws a player may claim but that do not end the game by
    themselves (chess threefold repetition and fifty-move rule), as returned by
    ``Variant.claimable_draw``; ``Variant.outcome`` never returns a claimable outcome.
    """

    result: Result
    reason: Reason
    claimable: bool = False

    @property
    def winner(self) -> Color | None:
        if self.result is Result.WHITE_WINS:
            return Color.WHITE
        if self.result is Result.BLACK_WINS:
            return Color.BLACK
        return None


@dataclass(frozen=True, slots=True)
class Played:
    """Everything a game server needs after one move (``Variant.play``)."""

    fen: str  # the position after the move
    notation: tuple[str, str]  # how the move is written: (Italian, English)
    outcome: Outcome | None  # the automatic end the move brought, if any
    to_move: Color  # the side to move in the new position
    legal_moves: list[str]  # the legal moves of the new position, sorted; [] when it is over
    # The new position as the variant holds it, when it can take it back from that faster than
    # from the FEN (`Variant.board_of`): small, plain (numbers), for another process. None if not.
    position: tuple | None = None
    # The variant's own object of the new position (chess: its board), for the caller to hand
    # back to the next `play` from `fen` (`board=`) instead of the FEN being read again. Never
    # sent anywhere; None when the game is over or the variant has none. The rules keep nothing:
    # holding it is the caller's business (games.services.memory).
    board: Any = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class MoveNode:
    """A move of a line with the variations that replace it: each variation is a line of its
    own (a sequence of moves, plain or `MoveNode`) played instead of this move, from the same
    position (PGN's RAV, PDN 3.0's variations). What `Variant.export` takes for a game
    analysed with variations; a plain move text is a `MoveNode` without any."""

    move: str
    variations: tuple[tuple[str | MoveNode, ...], ...] = ()
    # A comment after the move and its symbols as PGN's NAGs (PGN 10: $1 !, $2 ?, $5 !?,
    # $6 ?!, $4 ??), from an analysis board or the computer analysis; the export writes them.
    comment: str = ""
    nags: tuple[int, ...] = ()


COMMENT_LIMIT = 500  # characters of a move's comment, at most


def comment_text(value: str) -> str:
    """A move comment as a PGN / PDN comment's contents: plain text (`plain_text`) of at most
    COMMENT_LIMIT characters, with no brace (a `}` would close the comment early)."""
    text = plain_text(value).replace("{", "(").replace("}", ")")
    return text[:COMMENT_LIMIT].rstrip()


def node_notes(item: str | MoveNode) -> tuple[str, tuple[int, ...]]:
    """A line's entry's comment and NAGs (none for a plain move text)."""
    if isinstance(item, MoveNode):
        return comment_text(item.comment), item.nags
    return "", ()


def split_node(item: str | MoveNode) -> tuple[str, tuple[tuple[str | MoveNode, ...], ...]]:
    """A line's entry as (move, its variations)."""
    if isinstance(item, MoveNode):
        return item.move, item.variations
    return item, ()


class RulesError(ValueError):
    """Base class of the errors raised by the rules package."""


class InvalidPosition(RulesError):
    """The FEN text cannot be read as a position of this variant."""


class IllegalMove(RulesError):
    """The move text is not a legal move in the given position."""


class Variant(abc.ABC):
    """One game variant. Stateless: every method takes the position as text."""

    code: str  # 'chess', 'italian', 'english', 'international'
    name: str  # English display name
    name_it: str  # Italian display name
    first_to_move: Color  # who moves first from the start position

    @abc.abstractmethod
    def start_fen(self) -> str:
        """The standard start position."""

    @abc.abstractmethod
    def normalize_fen(self, fen: str) -> str:
        """Validate a position and return it in this package's canonical spelling.

        Raises InvalidPosition. Every FEN returned by this package is already canonical.
        """

    @abc.abstractmethod
    def side_to_move(self, fen: str) -> Color:
        """The colour to move in the position."""

    def move_number(self, fen: str) -> int:
        """The number of the move being played in the position, when its FEN says it (chess's
        fullmove number); else 1."""
        return 1

    @abc.abstractmethod
    def legal_moves(self, fen: str) -> list[str]:
        """All legal moves in machine form (UCI / square path), sorted."""

    def is_legal(self, fen: str, move: str) -> bool:
        return move in self.legal_moves(fen)

    @abc.abstractmethod
    def apply(self, fen: str, move: str) -> str:
        """The position after ``move`` (machine form). Raises IllegalMove."""

    @abc.abstractmethod
    def outcome(self, fen: str, history: Sequence[str] = ()) -> Outcome | None:
        """The automatic end of the game in ``fen``, or None if play goes on.

        ``history`` lists the earlier positions of the game (canonical FENs, oldest first, not
        including ``fen``); the repetition and move-count rules need it.
        """

    @abc.abstractmethod
    def claimable_draw(self, fen: str, history: Sequence[str] = ()) -> Outcome | None:
        """A draw the player to move may claim now (chess only), or None."""

    @abc.abstractmethod
    def timeout_outcome(self, fen: str, flagged: Color) -> Outcome:
        """The result when ``flagged`` runs out of time in ``fen``."""

    @abc.abstractmethod
    def notation(self, fen: str, move: str, language: Language = "it") -> str:
        """How ``move`` (machine form, legal in ``fen``) is written for players."""

    def play(self, fen: str, move: str, history: Sequence[str] = (), board: Any = None) -> Played:
        """Play ``move`` in ``fen``: the new position with its notation, outcome, side to move
        and legal moves, as the separate methods give them (``history``: the earlier positions,
        oldest first, not including ``fen``). Raises IllegalMove.

        The game server calls this once per move; a variant may override it to read the
        position once (chess does) but must return exactly what the separate methods return.
        ``board``: what an earlier ``play`` returned as ``Played.board`` for ``fen``, or
        ``board_of`` made for it; taken over (the caller must not hand it out again). Ignored by
        variants that have none.
        """
        new_fen = self.apply(fen, move)
        notation = (self.notation(fen, move, "it"), self.notation(fen, move, "en"))
        outcome = self.outcome(new_fen, [*history, fen])
        legal = [] if outcome is not None else self.legal_moves(new_fen)
        return Played(new_fen, notation, outcome, self.side_to_move(new_fen), legal)

    def board_of(self, fen: str, position: Any) -> Any:
        """The variant's object of `fen` (for `play`'s `board`) from `position`, a
        `Played.position` another process sent with it; None when there is none to make (by
        default, or `position` is not what this variant sends)."""
        return None

    @abc.abstractmethod
    def export(
        self,
        moves: Sequence[str | MoveNode],
        *,
        start_fen: str | None = None,
        headers: Mapping[str, str] | None = None,
        result: Result | None = None,
        clocks: Sequence[int] | None = None,
        notation: Sequence[str] | None = None,
    ) -> str:
        """The game as PGN (chess) or PDN (draughts) text. Moves are in machine form; a
        `MoveNode` brings its variations, written in parentheses after its move (PGN's RAV,
        PDN 3.0's variations), each checked move by move (IllegalMove). `clocks`, if given for every move, is the mover's time left after each (ms), written
        as a `{ [%clk 0:09:58] }` comment after the move (the lichess spelling). `notation`,
        if given for every move of a line with no variations, is each move's English notation
        as the game stored it when it was played (`notation(fen, move, "en")`): it is written
        from that, and the moves are not worked out again position by position.

        Every header value goes through `tag_value` (one line, nothing hidden, quotes and
        backslashes escaped), so no name can add a header or a game; a tag name that is not a
        PGN symbol raises ValueError.
        """

    def replay(self, moves: Sequence[str], start_fen: str | None = None) -> list[str]:
        """All positions of a game: the start and the position after each move.

        Raises IllegalMove naming the first illegal move.
        """
        fen = self.normalize_fen(start_fen) if start_fen else self.start_fen()
        positions = [fen]
        for ply, move in enumerate(moves, start=1):
            try:
                fen = self.apply(fen, move)
            except IllegalMove as error:
                raise IllegalMove(f"ply {ply}: illegal move {move!r}") from error
            positions.append(fen)
        return positions

    def perft(self, depth: int, fen: str | None = None) -> int:
        """Number of leaf positions ``depth`` plies from ``fen`` (standard perft)."""
        fen = self.normalize_fen(fen) if fen else self.start_fen()
        return self._perft(fen, depth)

    def _perft(self, fen: str, depth: int) -> int:
        if depth == 0:
            return 1
        moves = self.legal_moves(fen)
        if depth == 1:
            return len(moves)
        return sum(self._perft(self.apply(fen, move), depth - 1) for move in moves)
