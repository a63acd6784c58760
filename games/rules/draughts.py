"""Our own draughts move generator: Italian, English and International draughts.

Board model. Squares are numbered as each federation writes them, 1..32 (8×8) or 1..50
(10×10), row by row from the top of the diagram; internally square ``n`` is bit ``n - 1`` of an
integer bitboard. White's men move up (towards row 0) and Black's men move down, in every
variant:

- Italian (F.I.D. Regolamento, Capo I art. 2): square 1 is the top-left dark square, so the
  bottom-right square is dark; Black on 1–12, White on 21–32, White moves first.
- English (WCDF / ACF): the board as pydraughts and the three-move ballots write it, Black on
  1–12 moving first, White on 21–32.
- International (FMJD art. 2–3): Black on 1–20, White on 31–50, White moves first.

A position is four integers (white pieces, black pieces, kings of either colour) and the side to
move. A move is the path of squares it visits (``22-18``; ``22x13x6`` for a capture, every landing
square written) plus the pieces it captures, in capture order. The generator uses neighbour and
ray tables precomputed per board, so one legal-move list costs tens of microseconds.

Capture rules (every variant: capturing is compulsory; a capture sequence, once started, must be
completed; captured pieces are lifted only at the end of the move, so they block the path and
cannot be jumped twice — the "Turkish strike" rule):

- Italian (F.I.D. Capo I art. 5–6; pydraughts agrees): men move and capture forwards only and
  cannot capture kings; kings move and capture one square in the four directions. Among the
  captures the player must take (1) the most pieces; (2) with a king rather than a man when both
  take as many; (3) the most kings; (4) the sequence that meets a king earliest. A man that
  reaches the last row is crowned and its move ends.
- English (WCDF rules 1.x): men move and capture forwards only, kings one square in every
  direction, free choice among captures, a man reaching the last row is crowned and its move ends.
- International (FMJD art. 3–4): men move forwards and capture forwards and backwards; kings fly
  (move and capture along a whole diagonal, landing on any free square after the captured piece);
  the capture taking the most pieces is compulsory (kings and men count the same); a man that
  passes the last row during a capture and does not end there stays a man.

Draw rules implemented by ``DraughtsVariant.outcome`` (automatic on the server, since a live game
has no arbiter to claim to; threefold repetition counts positions with the same side to move):

- International, FMJD Official Rules art. 6: threefold repetition (6.1); 25 moves each of kings
  only, without capture or man move (6.2, 50 plies); three pieces with at least one king against
  a lone king: 16 moves each (6.3, 32 plies since the material was reached); two pieces or fewer,
  at least one king, against a lone king: 5 moves each (6.4, 10 plies).
- Italian and English: threefold repetition, and 40 moves each of kings only without capture or
  man move (80 plies). This is the rule set pydraughts and lidraughts implement for both games
  (the WCDF "40-move rule" for English). The F.I.D. Regolamento text on draws was not available
  to check while writing this; the Italian rule should be verified against it.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

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
    Variant,
    node_notes,
    split_node,
    tag_pair,
)
from .timecontrol import clock_text

# Directions: up-left, up-right, down-left, down-right (up = towards row 0 = White's way).
UP_LEFT, UP_RIGHT, DOWN_LEFT, DOWN_RIGHT = range(4)
_DELTAS = ((-1, -1), (-1, 1), (1, -1), (1, 1))


@dataclass(frozen=True, slots=True)
class Position:
    """A draughts position: bitboards (bit n-1 = square n) and the side to move."""

    white: int
    black: int
    kings: int
    white_to_move: bool


# A move: (path of square indices, captured square indices in capture order, captured bitmask).
Move = tuple[tuple[int, ...], tuple[int, ...], int]


class Board:
    """Geometry and rules of one variant, with the precomputed tables."""

    def __init__(
        self,
        *,
        size: int,
        first_row_starts_dark: bool,
        flying_kings: bool,
        men_capture_backwards: bool,
        men_capture_kings: bool,
        max_capture: bool,
        italian_priorities: bool,
        promotion_ends_capture: bool,
        white_moves_first: bool,
    ) -> None:
        self.size = size
        self.per_row = size // 2
        self.squares = size * size // 2
        self.flying_kings = flying_kings
        self.men_capture_backwards = men_capture_backwards
        self.men_capture_kings = men_capture_kings
        self.max_capture = max_capture
        self.italian_priorities = italian_priorities
        self.promotion_ends_capture = promotion_ends_capture
        self.white_moves_first = white_moves_first

        coords: list[tuple[int, int]] = []
        for index in range(self.squares):
            row, place = divmod(index, self.per_row)
            dark_first = first_row_starts_dark == (row % 2 == 0)
            coords.append((row, 2 * place + (0 if dark_first else 1)))
        where = {rc: index for index, rc in enumerate(coords)}
        self.coords = coords

        # rays[s][d]: squares from s in direction d, nearest first.
        self.rays: list[tuple[tuple[int, ...], ...]] = []
        for row, col in coords:
            rays = []
            for dr, dc in _DELTAS:
                ray = []
                r, c = row + dr, col + dc
                while (r, c) in where:
                    ray.append(where[r, c])
                    r, c = r + dr, c + dc
                rays.append(tuple(ray))
            self.rays.append(tuple(rays))

        def steps(directions: tuple[int, ...]) -> list[tuple[tuple[int, int], ...]]:
            # For each square: (target index, target bit) one step away in the given directions.
            return [
                tuple((ray[0], 1 << ray[0]) for d in directions if (ray := self.rays[s][d]))
                for s in range(self.squares)
            ]

        def jumps(directions: tuple[int, ...]) -> list[tuple[tuple[int, int, int], ...]]:
            # For each square: (jumped bit, landing index, landing bit) for a short jump.
            return [
                tuple(
                    (1 << ray[0], ray[1], 1 << ray[1])
                    for d in directions
                    if len(ray := self.rays[s][d]) >= 2
                )
                for s in range(self.squares)
            ]

        everywhere = (UP_LEFT, UP_RIGHT, DOWN_LEFT, DOWN_RIGHT)
        self.man_steps = {True: steps((UP_LEFT, UP_RIGHT)), False: steps((DOWN_LEFT, DOWN_RIGHT))}
        self.king_steps = steps(everywhere)
        if men_capture_backwards:
            self.man_jumps = {True: jumps(everywhere), False: jumps(everywhere)}
        else:
            self.man_jumps = {
                True: jumps((UP_LEFT, UP_RIGHT)),
                False: jumps((DOWN_LEFT, DOWN_RIGHT)),
            }
        self.king_jumps = jumps(everywhere)
        top = sum(1 << i for i in range(self.per_row))
        bottom = top << (self.squares - self.per_row)
        # Promotion row of the side: White crowns on row 0, Black on the last row.
        self.crown_row = {True: top, False: bottom}
        self.all_squares = (1 << self.squares) - 1

    # ----------------------------------------------------------------- generation

    def legal_moves(self, pos: Position) -> list[Move]:
        white = pos.white_to_move
        if white:
            own, opp = pos.white, pos.black
        else:
            own, opp = pos.black, pos.white
        kings = pos.kings
        captures = self._captures(own, opp, kings, white)
        if captures:
            return self._select(captures, kings) if self.max_capture else captures
        moves: list[Move] = []
        occupied = own | opp
        men = own & ~kings
        man_steps = self.man_steps[white]
        bits = men
        while bits:
            low = bits & -bits
            s = low.bit_length() - 1
            bits ^= low
            for t, tbit in man_steps[s]:
                if not occupied & tbit:
                    moves.append(((s, t), (), 0))
        bits = own & kings
        if self.flying_kings:
            rays = self.rays
            while bits:
                low = bits & -bits
                s = low.bit_length() - 1
                bits ^= low
                for ray in rays[s]:
                    for t in ray:
                        if occupied >> t & 1:
                            break
                        moves.append(((s, t), (), 0))
        else:
            king_steps = self.king_steps
            while bits:
                low = bits & -bits
                s = low.bit_length() - 1
                bits ^= low
                for t, tbit in king_steps[s]:
                    if not occupied & tbit:
                        moves.append(((s, t), (), 0))
        return moves

    def _captures(self, own: int, opp: int, kings: int, white: bool) -> list[Move]:
        out: list[Move] = []
        occupied = own | opp
        men_targets = opp if self.men_capture_kings else opp & ~kings
        crown = self.crown_row[white] if self.promotion_ends_capture else 0
        man_jumps = self.man_jumps[white]
        bits = own & ~kings
        while bits:
            low = bits & -bits
            bits ^= low
            s = low.bit_length() - 1
            self._short(s, occupied ^ low, men_targets, man_jumps, crown, out)
        bits = own & kings
        while bits:
            low = bits & -bits
            bits ^= low
            s = low.bit_length() - 1
            if self.flying_kings:
                self._flying(s, occupied ^ low, opp, out)
            else:
                self._short(s, occupied ^ low, opp, self.king_jumps, 0, out)
        return out

    @staticmethod
    def _short(
        start: int,
        occupied: int,
        targets: int,
        jump_table: list[tuple[tuple[int, int, int], ...]],
        crown: int,
        out: list[Move],
    ) -> None:
        """Short-range capture sequences (men, and kings on 8×8) from ``start``.

        ``occupied`` excludes the moving piece; captured pieces stay in it until the move ends.
        ``crown``: landing squares where the move stops (a man crowned, Italian/English).
        """

        def extend(s: int, taken: int, path: tuple[int, ...], order: tuple[int, ...]) -> None:
            extended = False
            if not (crown >> s & 1 and order):
                for over_bit, land, land_bit in jump_table[s]:
                    if targets & over_bit and not taken & over_bit and not occupied & land_bit:
                        extended = True
                        extend(
                            land,
                            taken | over_bit,
                            path + (land,),
                            order + (over_bit.bit_length() - 1,),
                        )
            if not extended and order:
                out.append((path, order, taken))

        extend(start, 0, (start,), ())

    def _flying(self, start: int, occupied: int, targets: int, out: list[Move]) -> None:
        """Flying-king capture sequences (International) from ``start``."""
        rays = self.rays

        def extend(s: int, taken: int, path: tuple[int, ...], order: tuple[int, ...]) -> None:
            extended = False
            for ray in rays[s]:
                n = len(ray)
                k = 0
                while k < n and not occupied >> ray[k] & 1:
                    k += 1
                if k >= n - 1:
                    continue
                over = ray[k]
                over_bit = 1 << over
                if not targets & over_bit or taken & over_bit:
                    continue  # own piece, or a piece already jumped (it stays until the end)
                k += 1
                while k < n and not occupied >> ray[k] & 1:
                    extended = True
                    extend(ray[k], taken | over_bit, path + (ray[k],), order + (over,))
                    k += 1
            if not extended and order:
                out.append((path, order, taken))

        extend(start, 0, (start,), ())

    def _select(self, captures: list[Move], kings: int) -> list[Move]:
        """Keep the captures the rules allow: the most pieces, then the Italian priorities."""
        most = max(len(order) for _, order, _ in captures)
        captures = [m for m in captures if len(m[1]) == most]
        if not self.italian_priorities or len(captures) == 1:
            return captures
        # F.I.D. rule 2: with a king rather than a man.
        by_king = [m for m in captures if kings >> m[0][0] & 1]
        if by_king:
            captures = by_king
        # Rule 3: the most kings.
        king_counts = [(kings & taken).bit_count() for _, _, taken in captures]
        most_kings = max(king_counts)
        captures = [m for m, c in zip(captures, king_counts, strict=True) if c == most_kings]
        if most_kings == 0:
            return captures
        # Rule 4: the sequence that meets a king earliest.
        first_king = [
            next(i for i, s in enumerate(order) if kings >> s & 1) for _, order, _ in captures
        ]
        earliest = min(first_king)
        return [m for m, f in zip(captures, first_king, strict=True) if f == earliest]

    # ----------------------------------------------------------------- application

    def apply(self, pos: Position, move: Move) -> Position:
        path, _, taken = move
        src_bit = 1 << path[0]
        dst_bit = 1 << path[-1]
        white, black, kings = pos.white, pos.black, pos.kings
        if pos.white_to_move:
            white = (white ^ src_bit) | dst_bit
            black &= ~taken
        else:
            black = (black ^ src_bit) | dst_bit
            white &= ~taken
        kings &= ~taken
        if kings & src_bit:
            kings = (kings ^ src_bit) | dst_bit
        elif dst_bit & self.crown_row[pos.white_to_move]:
            kings |= dst_bit  # crowned only where the move ends (FMJD 3.x; Italian/English stop)
        return Position(white, black, kings, not pos.white_to_move)


# ----------------------------------------------------------------------- text forms


def move_text(move: Move) -> str:
    """Machine form of a move: ``22-18``, or every landing square of a capture ``22x13x6``."""
    path, order, _ = move
    return ("x" if order else "-").join(str(s + 1) for s in path)


_FEN_RE = re.compile(r"^\s*([WB])\s*:(.*?)\.?\s*$", re.IGNORECASE)


def parse_fen(fen: str, squares: int) -> Position:
    """Read a PDN FEN ``W:W21,22,K23:B1-12`` (side to move, then both colours' pieces)."""
    match = _FEN_RE.match(fen)
    if not match:
        raise InvalidPosition(f"not a draughts FEN: {fen!r}")
    sides = {"W": 0, "B": 0}
    kings = 0
    seen = 0
    for part in match.group(2).split(":"):
        part = part.strip()
        if not part:
            continue
        colour = part[0].upper()
        if colour not in sides:
            raise InvalidPosition(f"bad FEN field {part!r} in {fen!r}")
        for item in filter(None, (x.strip() for x in part[1:].split(","))):
            king = item[0] in "Kk"
            body = item[1:] if king else item
            try:
                if "-" in body:
                    low, high = (int(x) for x in body.split("-"))
                    numbers = range(low, high + 1)
                else:
                    numbers = range(int(body), int(body) + 1)
            except ValueError as error:
                raise InvalidPosition(f"bad square {item!r} in {fen!r}") from error
            for n in numbers:
                if not 1 <= n <= squares:
                    raise InvalidPosition(f"no square {n} on this board: {fen!r}")
                bit = 1 << (n - 1)
                if seen & bit:
                    raise InvalidPosition(f"square {n} given twice in {fen!r}")
                seen |= bit
                sides[colour] |= bit
                if king:
                    kings |= bit
    return Position(sides["W"], sides["B"], kings, match.group(1).upper() == "W")


def format_fen(pos: Position) -> str:
    def pieces(bits: int) -> str:
        out = []
        while bits:
            low = bits & -bits
            bits ^= low
            square = low.bit_length()
            out.append(f"K{square}" if pos.kings & low else str(square))
        return ",".join(out)

    side = "W" if pos.white_to_move else "B"
    return f"{side}:W{pieces(pos.white)}:B{pieces(pos.black)}"


# ----------------------------------------------------------------------- variants


class DraughtsVariant(Variant):
    """The text interface of one draughts variant, on top of its ``Board``."""

    def __init__(
        self,
        *,
        code: str,
        name: str,
        name_it: str,
        board: Board,
        start: str,
        king_only_plies: int,
        fmjd_endgame: bool,
        pdn_game_type: str,
        pdn_two_points: bool = False,
    ) -> None:
        self.code = code
        self.name = name
        self.name_it = name_it
        self.board = board
        self.first_to_move = Color.WHITE if board.white_moves_first else Color.BLACK
        self._start = start
        self.king_only_plies = king_only_plies
        self.fmjd_endgame = fmjd_endgame
        # PDN: the GameType tag (the PDN standard's number of the variant) and whether the
        # result is written in points, 2-0 / 1-1 / 0-2 (International draughts).
        self.pdn_game_type = pdn_game_type
        self.pdn_two_points = pdn_two_points

    # Fast object API (used by the benchmark, perft and random openings).
    def position(self, fen: str) -> Position:
        pos = parse_fen(fen, self.board.squares)
        if (pos.white & self.board.crown_row[True] & ~pos.kings) or (
            pos.black & self.board.crown_row[False] & ~pos.kings
        ):
            raise InvalidPosition(f"a man on its own crowning row: {fen!r}")
        return pos

    def start_fen(self) -> str:
        return self._start

    def normalize_fen(self, fen: str) -> str:
        return format_fen(self.position(fen))

    def side_to_move(self, fen: str) -> Color:
        return Color.WHITE if self.position(fen).white_to_move else Color.BLACK

    def legal_moves(self, fen: str) -> list[str]:
        moves = sorted(self.board.legal_moves(self.position(fen)))  # by square path
        return [move_text(m) for m in moves]

    def find_move(self, pos: Position, text: str) -> Move:
        """The legal move written ``text``.

        Besides the machine form, accepts the square path with any of the separators ``-``,
        ``x`` or ``:`` (tables often write a capture ``17-10``), and the short form
        ``from x to`` of a capture when exactly one legal move goes from ``from`` to ``to``.
        """
        moves = self.board.legal_moves(pos)
        wanted = text.strip()
        for move in moves:
            if move_text(move) == wanted:
                return move
        parts = re.split(r"[-x:]", wanted)
        # ASCII digits only: str.isdigit() also accepts "²" or "①", which int() refuses.
        if len(parts) >= 2 and all(p.isascii() and p.isdigit() for p in parts):
            squares = tuple(int(p) - 1 for p in parts)
            exact = [m for m in moves if m[0] == squares]
            if len(exact) == 1:
                return exact[0]
            if len(squares) == 2:
                ends = [m for m in moves if (m[0][0], m[0][-1]) == squares]
                if len(ends) == 1:
                    return ends[0]
        raise IllegalMove(f"illegal move {text!r} in {format_fen(pos)!r}")

    def apply(self, fen: str, move: str) -> str:
        pos = self.position(fen)
        return format_fen(self.board.apply(pos, self.find_move(pos, move)))

    def is_legal(self, fen: str, move: str) -> bool:
        try:
            self.find_move(self.position(fen), move)
        except IllegalMove:
            return False
        return True

    def outcome(self, fen: str, history: Sequence[str] = ()) -> Outcome | None:
        return self._outcome(self.position(fen), history)

    def play(self, fen: str, move: str, history: Sequence[str] = (), board: Any = None) -> Played:
        """As ``Variant.play``, reading the position once (the hot path of live play); no
        ``board`` is handed back (reading a draughts FEN is cheap)."""
        pos = self.position(fen)
        found = self.find_move(pos, move)
        after = self.board.apply(pos, found)
        written = move_text(found)  # numeric notation, the same in every language (RULES §2)
        outcome = self._outcome(after, [*history, fen])
        legal = (
            []
            if outcome is not None
            else [move_text(m) for m in sorted(self.board.legal_moves(after))]
        )
        to_move = Color.WHITE if after.white_to_move else Color.BLACK
        return Played(format_fen(after), (written, written), outcome, to_move, legal)

    def _outcome(self, pos: Position, history: Sequence[str]) -> Outcome | None:
        if not self.board.legal_moves(pos):
            # Every variant: a player who cannot move (no pieces, or all blocked) loses.
            loser = Color.WHITE if pos.white_to_move else Color.BLACK
            return Outcome(Result.win_for(loser.opponent), Reason.NO_LEGAL_MOVE)
        # Earlier positions are read newest first and only as far back as a rule looks: a
        # game server asks this after every move of games hundreds of plies long.
        quiet, repeats = self._quiet_plies_and_repeats(pos, history)
        if repeats >= 3:
            return Outcome(Result.DRAW, Reason.THREEFOLD_REPETITION)
        if quiet >= self.king_only_plies:
            return Outcome(Result.DRAW, Reason.KING_MOVES)
        if self.fmjd_endgame and self._fmjd_endgame_reached(pos, history):
            return Outcome(Result.DRAW, Reason.ENDGAME_MOVES)
        return None

    def _earlier(self, history: Sequence[str]) -> Iterator[Position]:
        return (self.position(fen) for fen in reversed(history))

    def _quiet_plies_and_repeats(self, pos: Position, history: Sequence[str]) -> tuple[int, int]:
        """Plies in a row, ending now, with no capture and no man moved; and how many times
        ``pos`` stands among them (itself included).

        Only within that stretch can a position repeat: men never move back and pieces never
        come back, so once the men or the piece count change, no earlier position can return.
        """
        plies, repeats, after = 0, 1, pos
        for before in self._earlier(history):
            if (
                (before.white | before.black) & ~before.kings
                != (after.white | after.black) & ~after.kings
            ) or (before.white | before.black).bit_count() != (
                after.white | after.black
            ).bit_count():
                break
            plies += 1
            repeats += before == pos
            after = before
        return plies, repeats

    def _fmjd_endgame_reached(self, pos: Position, history: Sequence[str]) -> bool:
        """FMJD art. 6.3/6.4: against a lone king, 3 pieces (≥1 king) get 16 moves each,
        2 pieces or fewer (≥1 king) get 5 moves each, counted from when the material arose."""

        def limit(p: Position) -> int | None:
            for strong, weak in ((p.white, p.black), (p.black, p.white)):
                if weak.bit_count() == 1 and weak & p.kings and strong & p.kings:
                    if strong.bit_count() == 3:
                        return 32
                    if strong.bit_count() <= 2:
                        return 10
            return None

        plies_allowed = limit(pos)
        if plies_allowed is None:
            return False
        count = (pos.white | pos.black).bit_count()
        plies = 0
        for earlier in self._earlier(history):
            if (earlier.white | earlier.black).bit_count() != count or limit(
                earlier
            ) != plies_allowed:
                break
            plies += 1
            if plies >= plies_allowed:
                return True
        return plies >= plies_allowed

    def claimable_draw(self, fen: str, history: Sequence[str] = ()) -> Outcome | None:
        return None  # draughts draws are applied automatically (see module docstring)

    def timeout_outcome(self, fen: str, flagged: Color) -> Outcome:
        # Draughts has no "cannot win" exception: the player whose time runs out loses.
        return Outcome(Result.win_for(flagged.opponent), Reason.TIMEOUT)

    def notation(self, fen: str, move: str, language: Language = "it") -> str:
        # Numeric square notation is the same in every language (RULES §2).
        return move_text(self.find_move(self.position(fen), move))

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
        """PDN 3.0: tag pairs (GameType per the PDN standard: 20 International, 21 English,
        22 Italian; FEN when the game does not start from the standard position), then the move
        text numbered per move pair of the side that moves first, each variation in
        parentheses after the move it replaces."""
        fen = self.normalize_fen(start_fen) if start_fen else self._start
        # The Seven Tag Roster first, in its order (PGN 8.1.1), as PDN 3.0 takes it over.
        tags: dict[str, str] = {"Event": "?", "Site": "?", "Date": "????.??.??", "Round": "?"}
        tags.update({"White": "?", "Black": "?", "Result": "*"})
        tags.update(headers or {})
        tags["Result"] = _pdn_result(result, two_points=self.pdn_two_points)
        tags["GameType"] = self.pdn_game_type
        if fen != self._start:
            tags["SetUp"] = "1"
            tags["FEN"] = fen
        lines = [tag_pair(key, value) for key, value in tags.items()]  # PGN 7 escaping
        with_clocks = clocks is not None and len(clocks) == len(moves)
        pos = self.position(fen)
        first = pos.white_to_move == self.board.white_moves_first
        if _written_as_played(moves, notation):
            # The game's own notation (the same `move_text` of each move, stored as it was
            # played): the moves are not found again in every position.
            tokens = self._notation_tokens(notation, first, clocks if with_clocks else None)
        else:
            tokens = self._line_tokens(pos, moves, 1, first, clocks if with_clocks else None)
        tokens.append(tags["Result"])
        body, line = [], ""
        for token in tokens:
            if line and len(line) + 1 + len(token) > 79:
                body.append(line)
                line = token
            else:
                line = f"{line} {token}" if line else token
        body.append(line)
        return "\n".join(lines) + "\n\n" + "\n".join(body) + "\n"

    @staticmethod
    def _notation_tokens(
        notation: Sequence[str], first: bool, clocks: Sequence[int] | None
    ) -> list[str]:
        """`_line_tokens` of a line with no variations, from its moves' notation."""
        tokens: list[str] = []
        number = 1
        for index, text in enumerate(notation):
            if first:
                tokens.append(f"{number}.")
            elif index == 0:
                tokens.append(f"{number}...")
            tokens.append(text)
            if clocks is not None:
                tokens.append(f"{{[%clk {clock_text(clocks[index])}]}}")
            if not first:
                number += 1
            first = not first
        return tokens

    def _line_tokens(
        self,
        pos: Position,
        line: Sequence[str | MoveNode],
        number: int,
        first: bool,
        clocks: Sequence[int] | None,
    ) -> list[str]:
        """The move text of `line` from `pos`: `number` is the move pair's, `first` whether the
        side that moves first in the variant is to move. The second side's move is numbered
        `N...` where a line starts or play resumes after a variation (PGN 8.2.2.2, which
        PDN 3.0 takes over); a variation follows its move, in parentheses."""
        tokens: list[str] = []
        resumed = True
        for index, item in enumerate(line):
            text, variations = split_node(item)
            move = self.find_move(pos, text)
            if first:
                tokens.append(f"{number}.")
            elif resumed:
                tokens.append(f"{number}...")
            tokens.append(move_text(move))
            comment, nags = node_notes(item)
            tokens.extend(f"${nag}" for nag in nags)  # PDN 3.0 takes PGN's NAGs over
            if clocks is not None:
                tokens.append(f"{{[%clk {clock_text(clocks[index])}]}}")
            if comment:
                tokens.append(f"{{{comment}}}")
            for variation in variations:
                inner = self._line_tokens(pos, variation, number, first, None)
                if inner:
                    inner[0], inner[-1] = f"({inner[0]}", f"{inner[-1]})"
                    tokens.extend(inner)
            resumed = bool(variations)
            if not first:
                number += 1
            first = not first
            pos = self.board.apply(pos, move)
        return tokens

    def perft(self, depth: int, fen: str | None = None) -> int:
        """Leaf count ``depth`` plies deep, on the fast object API."""
        board = self.board

        def count(pos: Position, depth: int) -> int:
            moves = board.legal_moves(pos)
            if depth == 1:
                return len(moves)
            return sum(count(board.apply(pos, move), depth - 1) for move in moves)

        start = self.position(fen) if fen else self.position(self._start)
        return count(start, depth) if depth > 0 else 1

    def random_playout_position(self, rng: random.Random, plies: int) -> Position:
        """A position reached by ``plies`` random legal moves from the start (or earlier, if
        the game ends)."""
        pos = self.position(self._start)
        for _ in range(plies):
            moves = self.board.legal_moves(pos)
            if not moves:
                break
            pos = self.board.apply(pos, rng.choice(moves))
        return pos


# International draughts scores 2 points a win, 1 a draw (FMJD), and its PDN files write the
# result that way (lidraughts, the FMJD's own files); pydraughts' reader knows both spellings.
# English and Italian draughts write the PGN spelling.
_TWO_POINTS = {Result.WHITE_WINS: "2-0", Result.DRAW: "1-1", Result.BLACK_WINS: "0-2"}


def _pdn_result(result: Result | None, *, two_points: bool) -> str:
    if result is None:
        return "*"
    return _TWO_POINTS[result] if two_points else str(result)


def _start(board: Board, white_rows: range, black_rows: range) -> str:
    white = sum(1 << s for s in range(board.squares) if board.coords[s][0] in white_rows)
    black = sum(1 << s for s in range(board.squares) if board.coords[s][0] in black_rows)
    return format_fen(Position(white, black, 0, board.white_moves_first))


_ITALIAN_BOARD = Board(
    size=8,
    first_row_starts_dark=True,
    flying_kings=False,
    men_capture_backwards=False,
    men_capture_kings=False,
    max_capture=True,
    italian_priorities=True,
    promotion_ends_capture=True,
    white_moves_first=True,
)
_ENGLISH_BOARD = Board(
    size=8,
    first_row_starts_dark=False,
    flying_kings=False,
    men_capture_backwards=False,
    men_capture_kings=True,
    max_capture=False,
    italian_priorities=False,
    promotion_ends_capture=True,
    white_moves_first=False,
)
_INTERNATIONAL_BOARD = Board(
    size=10,
    first_row_starts_dark=False,
    flying_kings=True,
    men_capture_backwards=True,
    men_capture_kings=True,
    max_capture=True,
    italian_priorities=False,
    promotion_ends_capture=False,
    white_moves_first=True,
)

ITALIAN = DraughtsVariant(
    code="italian",
    name="Italian draughts",
    name_it="Dama italiana",
    board=_ITALIAN_BOARD,
    start=_start(_ITALIAN_BOARD, range(5, 8), range(0, 3)),
    king_only_plies=80,
    fmjd_endgame=False,
    pdn_game_type="22",
)
ENGLISH = DraughtsVariant(
    code="english",
    name="English draughts",
    name_it="Dama inglese",
    board=_ENGLISH_BOARD,
    start=_start(_ENGLISH_BOARD, range(5, 8), range(0, 3)),
    king_only_plies=80,
    fmjd_endgame=False,
    pdn_game_type="21",
)
INTERNATIONAL = DraughtsVariant(
    code="international",
    name="International draughts",
    name_it="Dama internazionale",
    board=_INTERNATIONAL_BOARD,
    start=_start(_INTERNATIONAL_BOARD, range(6, 10), range(0, 4)),
    king_only_plies=50,
    fmjd_endgame=True,
    pdn_game_type="20",
    pdn_two_points=True,
)


def _written_as_played(moves: Sequence[str | MoveNode], notation: Sequence[str] | None) -> bool:
    """`notation` may stand for `moves`: one text a move, and no variation to find."""
    return (
        notation is not None
        and len(notation) == len(moves)
        and not any(isinstance(move, MoveNode) for move in moves)
    )
