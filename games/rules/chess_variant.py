"""Chess, FIDE Laws of Chess, via the ``chess`` package (python-chess).

Notation (RULES §2, FIDE Laws of Chess, Appendix E, Italian edition): algebraic with Italian piece
letters in Italian (R re, D donna, T torre, A alfiere, C cavallo) and English letters in English;
castling 0-0 / 0-0-0; ``e.p.`` after an en-passant capture; promotion without ``=`` (``d8D``).
PGN export uses standard English SAN (``O-O``, ``e8=Q``).

Game end (FIDE Laws art. 5 and 9): checkmate, stalemate, dead position by insufficient material,
fivefold repetition and the 75-move rule end the game by themselves; threefold repetition and the
fifty-move rule are draws the player to move may claim. Timeout is a draw when the opponent
cannot checkmate by any series of legal moves (art. 6.9): against insufficient material, and
in the dead positions `is_dead_position` can prove (a locked pawn wall, art. 5.2.2).
"""

from __future__ import annotations

import functools
import io
import re
from collections.abc import Mapping, Sequence
from typing import Any

import chess
import chess.pgn

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
    tag_value,
)

# FIDE Laws E2: the initial of the piece's name in the player's language.
ITALIAN_PIECE_LETTERS = {"K": "R", "Q": "D", "R": "T", "B": "A", "N": "C"}


def _board(fen: str) -> chess.Board:
    return _board_and_rows(fen)[0]


def _board_and_rows(fen: str) -> tuple[chess.Board, list[str] | None]:
    """The board of a FEN, and the rows of its placement when it is written as python-chess
    writes it (`_write_fen` may then keep those a move does not change)."""
    read = _read_fen_rows(fen)
    if read is None:
        try:
            board, rows = chess.Board(fen), None
        except ValueError as error:
            raise InvalidPosition(f"not a chess FEN: {fen!r}") from error
    else:
        board, rows = read
    if not board.is_valid():
        raise InvalidPosition(f"impossible chess position: {fen!r}")
    return board, rows


# --- FEN, read and written quickly --------------------------------------------------------------
# A live game reads its position from a FEN and writes the next one on every move: python-chess
# does both square by square through its general methods, which was most of the rules' time on
# a busy server (bench/live.py). These two do it from and to its bitboards directly, for the
# FENs the package itself writes (six fields, standard castling letters); anything else goes to
# python-chess. `tests/rules/test_chess_fen.py` checks both against python-chess.

_CANONICAL_FEN = re.compile(
    r"[1-8PNBRQKpnbrqk/]{15,71} [wb] (?:-|K?Q?k?q?) (?:-|[a-h][36]) \d+ \d+"
)
_PIECE_LETTERS = "PNBRQK"  # chess.PAWN … chess.KING, in order
_PIECES = {
    **{letter: (i, True) for i, letter in enumerate(_PIECE_LETTERS)},
    **{letter.lower(): (i, False) for i, letter in enumerate(_PIECE_LETTERS)},
}


def _read_fen(fen: str) -> chess.Board | None:
    """The board of a canonical FEN, built from its bitboards; None if it is not one."""
    read = _read_fen_rows(fen)
    return None if read is None else read[0]


def _read_fen_rows(fen: str) -> tuple[chess.Board, list[str]] | None:
    """`_read_fen`, with the placement's rows (top first)."""
    if not _CANONICAL_FEN.fullmatch(fen):
        return None
    placement, turn, castling, ep, halfmove, fullmove = fen.split(" ")
    if castling == "":
        return None
    rows = placement.split("/")
    if len(rows) != 8:
        return None
    ranks = list(map(_rank_bits, rows, _RANKS))
    if None in ranks:
        return None
    # The ranks' squares never overlap: each bitboard is the sum of its ranks' parts.
    bitboards = map(sum, zip(*ranks, strict=True))
    return _board_of(bitboards, turn, castling, ep, halfmove, fullmove), rows


def _board_of(
    bitboards: Sequence[int], turn: str, castling: str, ep: str, halfmove: str, fullmove: str
) -> chess.Board:
    """A board from the eight bitboards of its pieces (pawns … kings, then white's and black's
    squares) and the other fields of its FEN."""
    pawns, knights, bishops, rooks, queens, kings, white, black = bitboards
    board = chess.Board(None)
    board.pawns, board.knights, board.bishops = pawns, knights, bishops
    board.rooks, board.queens, board.kings = rooks, queens, kings
    board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK] = white, black
    board.occupied = white | black
    board.turn = turn == "w"
    board.castling_rights = _castling_rights(castling)
    board.ep_square = None if ep == "-" else chess.parse_square(ep)
    board.halfmove_clock = int(halfmove)
    board.fullmove_number = max(int(fullmove), 1)
    return board


def _bitboards(board: chess.Board) -> tuple[int, ...]:
    """What `_board_of` takes back: the pieces' bitboards, then each side's squares."""
    return (
        board.pawns,
        board.knights,
        board.bishops,
        board.rooks,
        board.queens,
        board.kings,
        board.occupied_co[chess.WHITE],
        board.occupied_co[chess.BLACK],
    )


_RANKS = range(7, -1, -1)  # the placement's rows, top first


@functools.lru_cache(maxsize=32)
def _castling_rights(castling: str) -> chess.Bitboard:
    """The rooks' squares a FEN's castling field gives rights to (python-chess's own reading)."""
    board = chess.Board(None)
    board.set_castling_fen(castling)
    return board.castling_rights


@functools.lru_cache(maxsize=16384)
def _rank_bits(row: str, rank: int) -> tuple[int, ...] | None:
    """One rank of a canonical placement as bitboards: pawns … kings, white, black; None if
    it is not written as python-chess writes it. Games share most of their ranks (an empty
    one, the pawns at home…): each is worked out once."""
    by_type = [0, 0, 0, 0, 0, 0]
    white = black = 0
    file, digit = 0, False
    for c in row:
        if c <= "8":  # a digit (letters sort after)
            if digit:
                return None  # two digits in a row: not as python-chess writes it
            file, digit = file + ord(c) - 48, True
            continue
        digit = False
        if file > 7:
            return None
        bit = 1 << (rank * 8 + file)
        kind, is_white = _PIECES[c]
        by_type[kind] |= bit
        if is_white:
            white |= bit
        else:
            black |= bit
        file += 1
    if file != 8:
        return None
    return (*by_type, white, black)


@functools.lru_cache(maxsize=16384)
def _row_fen(
    pawns: int, knights: int, bishops: int, rooks: int, queens: int, kings: int, white: int
) -> str:
    """One rank of the placement from its eight-bit masks (a1/a8 side first) of each piece
    type and of the white pieces, as python-chess writes it. Games share most of their ranks:
    each is worked out once."""
    cells = ["1"] * 8
    for letter, bits in zip(
        _PIECE_LETTERS, (pawns, knights, bishops, rooks, queens, kings), strict=True
    ):
        while bits:
            lowest = bits & -bits
            cells[lowest.bit_length() - 1] = letter if lowest & white else letter.lower()
            bits ^= lowest
    out, empty = [], 0
    for c in cells:
        if c == "1":
            empty += 1
            continue
        if empty:
            out.append(str(empty))
            empty = 0
        out.append(c)
    if empty:
        out.append(str(empty))
    return "".join(out)


def _rank_fen(board: chess.Board, rank: int) -> str:
    shift = rank * 8
    return _row_fen(
        (board.pawns >> shift) & 255,
        (board.knights >> shift) & 255,
        (board.bishops >> shift) & 255,
        (board.rooks >> shift) & 255,
        (board.queens >> shift) & 255,
        (board.kings >> shift) & 255,
        (board.occupied_co[chess.WHITE] >> shift) & 255,
    )


def _write_fen(board: chess.Board, rows: list[str] | None = None, ranks: Sequence[int] = ()) -> str:
    """`board.fen()`: en passant written only when a legal capture exists, as python-chess.

    `rows`, the placement's rows (top first) of a canonical FEN that differs from the board
    only on `ranks`, spares rewriting the others: a move changes the ranks it leaves and
    reaches (castling's rook and an en passant capture stay on them)."""
    if rows is None:
        placement = "/".join([_rank_fen(board, rank) for rank in _RANKS])
    else:
        rows = list(rows)
        for rank in ranks:
            rows[7 - rank] = _rank_fen(board, rank)
        placement = "/".join(rows)
    ep = "-"
    if board.ep_square is not None and board.has_legal_en_passant():
        ep = chess.SQUARE_NAMES[board.ep_square]
    turn = "w" if board.turn == chess.WHITE else "b"
    castling = "-"
    if board.castling_rights:
        castling = _castling_xfen(
            board.castling_rights,
            board.kings & _BACK_RANKS,
            board.rooks & _BACK_RANKS,
            board.occupied_co[chess.WHITE] & _BACK_RANKS,
            board.promoted,
        )
    return f"{placement} {turn} {castling} {ep} {board.halfmove_clock} {board.fullmove_number}"


_BACK_RANKS = chess.BB_RANK_1 | chess.BB_RANK_8


@functools.lru_cache(maxsize=4096)
def _castling_xfen(rights: int, kings: int, rooks: int, white: int, promoted: int) -> str:
    """python-chess's `castling_xfen` (which cleans the rights first), from all it depends on
    in standard chess: the rights, and the kings, rooks and colours on the back ranks (a right
    stands only with its king and rook at home)."""
    board = chess.Board(None)
    board.kings, board.rooks, board.promoted = kings, rooks, promoted
    board.occupied_co[chess.WHITE] = white
    board.occupied_co[chess.BLACK] = (kings | rooks) & ~white
    board.occupied = kings | rooks
    board.castling_rights = rights
    return board.castling_xfen()


def _repetition_key(fen: str) -> str:
    """Placement, side, castling rights and en-passant square (FIDE art. 9.2.3).

    python-chess writes the en-passant square only when a legal en-passant capture exists
    (``en_passant="legal"`` is the default of ``Board.fen``), so equal keys mean same position.
    """
    return " ".join(fen.split()[:4])


def algebraic(board: chess.Board, move: chess.Move, language: Language) -> str:
    """The move in FIDE algebraic notation (Appendix E) in the given language."""
    return _algebraic(board.san(move), move, language, board.is_en_passant(move))


def _algebraic(san: str, move: chess.Move, language: Language, en_passant: bool) -> str:
    """`algebraic` from the move's SAN (`Chess.play` has it without asking python-chess)."""
    check = ""
    if san[-1] in "+#":
        san, check = san[:-1], san[-1]
    if san.startswith("O-O"):
        text = san.replace("O", "0")
    else:
        if "=" in san:  # E12: promotion written d8D, no "=".
            san = san.replace("=", "")
        if language == "it":
            head = ITALIAN_PIECE_LETTERS.get(san[0], san[0]) if san[0].isupper() else san[0]
            tail = san[1:]
            if move.promotion:
                tail = tail[:-1] + ITALIAN_PIECE_LETTERS[tail[-1]]
            text = head + tail
        else:
            text = san
    text += check
    if en_passant:  # E9: "e.p." is added to an en-passant capture.
        text += " e.p."
    return text


# Every move's UCI text, by its squares (and promotion): what the legal moves are sent as.
_UCI = [
    [chess.SQUARE_NAMES[a] + chess.SQUARE_NAMES[b] for b in chess.SQUARES] for a in chess.SQUARES
]


def _uci(move: chess.Move) -> str:
    text = _UCI[move.from_square][move.to_square]
    return text + chess.piece_symbol(move.promotion) if move.promotion else text


def _king_steps(squares: chess.Bitboard) -> chess.Bitboard:
    """Every square one king move from one of `squares`."""
    sideways = squares | chess.shift_left(squares) | chess.shift_right(squares)
    return (sideways | chess.shift_up(sideways) | chess.shift_down(sideways)) & ~squares


def is_dead_position(board: chess.Board) -> bool:
    """FIDE Laws 5.2.2: neither player can checkmate by any series of legal moves.

    True only in the cases this can prove, cheaply (a few bitboard operations):

    1. Insufficient material on both sides (python-chess): king against king, a king and one
       knight or bishop against a king, or only bishops, all on squares of one colour.
    2. A locked pawn wall with kings only: besides the kings there are only pawns; every pawn
       has a pawn on the square in front of it; no pawn can capture (no enemy pawn diagonally
       in front) and no en-passant capture is possible; the player to move is not in check; and
       neither king can ever reach a square next to an enemy pawn that no other enemy pawn
       defends. Where a king can go is computed over the squares its own pawns leave free and
       no enemy pawn attacks, ignoring the other king (which can only stop it). Then no pawn
       can ever move or be taken, a king can never be in check (kings cannot check each
       other, the pawns never move), so nobody can ever be checkmated.

    Everything else is not called dead and plays on (a flag there loses): any knight, bishop,
    rook or queen on the board, opposite-coloured bishop fortresses included (no cheap proof
    that the bishops cannot help a mate); a wall with a gap a king can walk through, a pawn it
    can take, a pawn blocked by a king rather than a pawn, or a capture or en-passant capture
    available. Never calling a live position dead matters more than catching every dead one:
    a false "dead" would turn a win on time into a draw.
    """
    if board.is_insufficient_material():
        return True
    if board.occupied != board.kings | board.pawns:
        return False
    if board.is_check() or board.has_legal_en_passant():
        return False
    pawns = board.pawns
    white = pawns & board.occupied_co[chess.WHITE]
    black = pawns & board.occupied_co[chess.BLACK]
    if chess.shift_up(white) & ~pawns or chess.shift_down(black) & ~pawns:
        return False  # some pawn is not blocked by a pawn: it may move one day
    white_attacks = chess.shift_up_left(white) | chess.shift_up_right(white)
    black_attacks = chess.shift_down_left(black) | chess.shift_down_right(black)
    if white_attacks & black or black_attacks & white:
        return False  # a pawn can capture now
    for colour, own, enemy, enemy_attacks in (
        (chess.WHITE, white, black, black_attacks),
        (chess.BLACK, black, white, white_attacks),
    ):
        king = board.king(colour)
        if king is None:
            return False
        walkable = chess.BB_ALL & ~own & ~enemy & ~enemy_attacks
        region = chess.BB_SQUARES[king]
        while True:
            grown = region | (_king_steps(region) & walkable)
            if grown == region:
                break
            region = grown
        if _king_steps(region) & enemy & ~enemy_attacks:
            return False  # this king can reach a pawn it may take: the wall can be broken
    return True


# --- The position a move reached, kept for the next move ------------------------------------------
# The next move on a game comes to the process that played the last one (one daphne, or a
# game's two sockets on one of several) or to the one that heard its push (`Chess.board_of`, from
# the bitboards the push carries): handed the board of the position (`play`'s `board`), it need
# not read the FEN again and check that it is a possible one (`_board_and_rows` and the legality
# check, ~7 % of a busy daphne; the replies, generated here, make the check a set lookup). The
# rules hold nothing: the board goes back to the caller in `Played.board`, made exactly the
# board the FEN reads into — the fields a FEN does not hold (the move stack, promoted pieces)
# emptied, the en passant square and castling rights as the FEN writes them.
# tests/rules/test_chess_fen.py checks that equality move by move; games.services.memory keeps
# them.
_Prepared = tuple  # (chess.Board, the FEN's rows, the legal replies' UCI or None)


def _prepared(board: chess.Board, fen: str, legal: frozenset[str] | None) -> _Prepared:
    placement, _turn, castling, ep, _rest = fen.split(" ", 4)
    board.clear_stack()
    board.promoted = chess.BB_EMPTY
    board.castling_rights = _castling_rights(castling)
    if ep == "-":
        board.ep_square = None
    return (board, placement.split("/"), legal)


class Chess(Variant):
    code = "chess"
    name = "Chess"
    name_it = "Scacchi"
    first_to_move = Color.WHITE

    def start_fen(self) -> str:
        return chess.STARTING_FEN

    def move_number(self, fen: str) -> int:
        fields = fen.split()
        if len(fields) == 6 and fields[5].isdigit():
            return max(1, int(fields[5]))
        return 1

    def normalize_fen(self, fen: str) -> str:
        return _board(fen).fen()

    def side_to_move(self, fen: str) -> Color:
        return Color.WHITE if _board(fen).turn == chess.WHITE else Color.BLACK

    def legal_moves(self, fen: str) -> list[str]:
        return sorted(move.uci() for move in _board(fen).legal_moves)

    def _move(self, board: chess.Board, move: str) -> chess.Move:
        try:
            parsed = chess.Move.from_uci(move)
        except ValueError as error:
            raise IllegalMove(f"not a UCI move: {move!r}") from error
        if not board.is_legal(parsed):
            raise IllegalMove(f"illegal move {move!r} in {board.fen()!r}")
        return parsed

    def is_legal(self, fen: str, move: str) -> bool:
        try:
            self._move(_board(fen), move)
        except IllegalMove:
            return False
        return True

    def apply(self, fen: str, move: str) -> str:
        board = _board(fen)
        board.push(self._move(board, move))
        return board.fen()

    def outcome(self, fen: str, history: Sequence[str] = ()) -> Outcome | None:
        return self._outcome(_board(fen), fen, history)

    def _outcome(
        self, board: chess.Board, fen: str, history: Sequence[str], has_moves: bool | None = None
    ) -> Outcome | None:
        """`has_moves`: whether the side to move has a legal move, when the caller knows."""
        if has_moves is None:
            has_moves = any(board.generate_legal_moves())
        if not has_moves:
            if board.is_check():
                loser = Color.WHITE if board.turn == chess.WHITE else Color.BLACK
                return Outcome(Result.win_for(loser.opponent), Reason.CHECKMATE)
            return Outcome(Result.DRAW, Reason.STALEMATE)
        if board.is_insufficient_material():  # art. 5.2.2 dead position (material only)
            return Outcome(Result.DRAW, Reason.INSUFFICIENT_MATERIAL)
        if self._repetitions(fen, history, board.halfmove_clock) >= 5:  # art. 9.6.1
            return Outcome(Result.DRAW, Reason.FIVEFOLD_REPETITION)
        if board.halfmove_clock >= 150:  # art. 9.6.2, checkmate already handled above
            return Outcome(Result.DRAW, Reason.SEVENTY_FIVE_MOVES)
        return None

    def play(self, fen: str, move: str, history: Sequence[str] = (), board: Any = None) -> Played:
        """As ``Variant.play``, reading the position once (the hot path of live play), or not
        at all when handed the board the move that reached it left (``board``: what
        ``Played.board`` or ``board_of`` gave for ``fen``).

        The legal moves after the move are generated once: they are what the side to move
        may play and, when there are none, the mate or stalemate (`_outcome` would generate
        them twice more)."""
        if board is None:
            board, rows = _board_and_rows(fen)
            parsed = self._move(board, move)
        else:
            board, rows, legal = board
            if legal is not None and move in legal:
                parsed = chess.Move.from_uci(move)
            else:  # from another process (`board_of`), or not among the replies: the full check
                parsed = self._move(board, move)
        en_passant = board.is_en_passant(parsed)
        # python-chess's public `san_and_push` looks for a mate only when the move gives check.
        san = board.san_and_push(parsed)
        replies = list(board.generate_legal_moves())
        notation = (
            _algebraic(san, parsed, "it", en_passant),
            _algebraic(san, parsed, "en", en_passant),
        )
        # Only the ranks the move left and reached are written anew (castling's rook and an en
        # passant capture stay on them).
        touched = (parsed.from_square >> 3, parsed.to_square >> 3)
        new_fen = _write_fen(board, rows, touched)
        outcome = self._outcome(board, new_fen, [*history, fen], has_moves=bool(replies))
        legal = [] if outcome is not None else sorted(map(_uci, replies))
        to_move = Color.WHITE if board.turn == chess.WHITE else Color.BLACK
        if outcome is not None:
            return Played(new_fen, notation, outcome, to_move, legal)
        position = _bitboards(board)
        kept = _prepared(board, new_fen, frozenset(legal))
        return Played(new_fen, notation, outcome, to_move, legal, position, kept)

    def board_of(self, fen: str, position: Any) -> Any:
        """The board of `fen` from the pieces' bitboards another process's `play` sent with it
        (the rest is in the FEN); None if `position` is not eight numbers."""
        if type(position) not in (tuple, list) or len(position) != 8:
            return None
        if not all(type(bits) is int and 0 <= bits < 1 << 64 for bits in position):
            return None
        placement, *fields = fen.split(" ")
        return (_board_of(position, *fields), placement.split("/"), None)

    def claimable_draw(self, fen: str, history: Sequence[str] = ()) -> Outcome | None:
        board = _board(fen)
        if self._outcome(board, fen, history) is not None:
            return None
        if self._repetitions(fen, history, board.halfmove_clock) >= 3:  # art. 9.2
            return Outcome(Result.DRAW, Reason.THREEFOLD_REPETITION, claimable=True)
        if board.halfmove_clock >= 100:  # art. 9.3
            return Outcome(Result.DRAW, Reason.FIFTY_MOVES, claimable=True)
        return None

    @staticmethod
    def _repetitions(fen: str, history: Sequence[str], quiet_plies: int) -> int:
        """How often the position of ``fen`` stands in the game. Only the last ``quiet_plies``
        positions (the halfmove clock: plies since a capture or pawn move) can equal it."""
        key = _repetition_key(fen)
        recent = history[max(0, len(history) - quiet_plies) :]
        return 1 + sum(1 for earlier in recent if _repetition_key(earlier) == key)

    def timeout_outcome(self, fen: str, flagged: Color) -> Outcome:
        board = _board(fen)
        opponent = chess.WHITE if flagged is Color.BLACK else chess.BLACK
        # Art. 6.9: a draw if the opponent cannot checkmate by any series of legal moves:
        # by material (python-chess: a lone king, K+N, K+B...), or in a dead position
        # (art. 5.2.2), in the cases `is_dead_position` proves.
        if board.has_insufficient_material(opponent) or is_dead_position(board):
            return Outcome(Result.DRAW, Reason.TIMEOUT_VS_INSUFFICIENT_MATERIAL)
        return Outcome(Result.win_for(flagged.opponent), Reason.TIMEOUT)

    def notation(self, fen: str, move: str, language: Language = "it") -> str:
        board = _board(fen)
        return algebraic(board, self._move(board, move), language)

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
        board = _board(start_fen) if start_fen else chess.Board()
        game = chess.pgn.Game.from_board(board)
        with_clocks = clocks is not None and len(clocks) == len(moves)
        played = (
            notation is not None
            and len(notation) == len(moves)
            and not any(isinstance(move, MoveNode) for move in moves)
        )
        if not played:
            self._grow(game, board, moves, clocks if with_clocks else None)
        for key, value in (headers or {}).items():
            # python-chess writes header values as given: escape them here (PGN 7).
            tag_pair(key, value)  # validates the name
            game.headers[key] = tag_value(value)
        game.headers["Result"] = str(result) if result else "*"
        if played:
            return _played_pgn(game, board, moves, notation, clocks if with_clocks else None)
        out = io.StringIO()
        game.accept(chess.pgn.FileExporter(out))
        return out.getvalue().strip() + "\n"

    def _grow(
        self,
        node: chess.pgn.GameNode,
        board: chess.Board,
        line: Sequence[str | MoveNode],
        clocks: Sequence[int] | None,
    ) -> None:
        """Adds `line` after `node` (whose position `board` holds; it is moved on). Each
        move's variations are added after it, from the position before it, so python-chess
        keeps the line's own move first (the main line) and writes the others as RAV."""
        for index, item in enumerate(line):
            text, variations = split_node(item)
            child = node.add_variation(self._move(board, text))
            comment, nags = node_notes(item)
            child.nags.update(nags)
            child.comment = comment
            if clocks is not None:
                child.set_clock(max(0, clocks[index]) // 1000)  # whole seconds, as lichess
            for variation in variations:
                self._grow(node, board.copy(stack=False), variation, None)
            board.push(child.move)
            node = child


# --- a played game's PGN from the notation it stored ----------------------------------------------
# The download of a player's games writes thousands of them: working every move out again (its
# legality, then its SAN for python-chess's exporter) was most of the cost. A game stores each
# move's notation as it was played; its SAN is that, spelt back (`_san`), and the move text is
# laid out as python-chess's exporter lays out a line with no variations (80 columns, a move
# number after a comment), which `tests/rules/test_export.py` checks game by game.

PGN_COLUMNS = 80


def _san(english: str, uci: str) -> str:
    """The SAN of a move from its English notation (`_algebraic`): castling with "O", a
    promotion with "=", no "e.p."."""
    text = english.removesuffix(" e.p.")
    check = text[-1] if text[-1] in "+#" else ""
    body = text[: len(text) - len(check)]
    if body.startswith("0-0"):
        body = body.replace("0", "O")
    elif len(uci) == 5:  # a promotion: "e8Q" is SAN's "e8=Q"
        body = body[:-1] + "=" + body[-1]
    return body + check


def _played_pgn(
    game: chess.pgn.Game,
    board: chess.Board,
    moves: Sequence[str | MoveNode],
    notation: Sequence[str],
    clocks: Sequence[int] | None,
) -> str:
    lines = [f'[{key} "{value}"]' for key, value in game.headers.items()]
    lines.append("")
    line = ""

    def token(text: str) -> None:
        nonlocal line
        if PGN_COLUMNS - len(line) < len(text):
            if line:
                lines.append(line.rstrip())
            line = ""
        line += text

    number, white = board.fullmove_number, board.turn == chess.WHITE
    numbered = False
    for index, (move, english) in enumerate(zip(moves, notation, strict=True)):
        if white:
            token(f"{number}. ")
        elif not numbered:
            token(f"{number}... ")
        token(_san(english, str(move)) + " ")
        numbered = True
        if clocks is not None:
            seconds = max(0, clocks[index]) // 1000
            token(
                f"{{ [%clk {seconds // 3600:d}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}] }} "
            )
            numbered = False
        if not white:
            number += 1
        white = not white
    token(game.headers["Result"] + " ")
    if line:
        lines.append(line.rstrip())
    return "\n".join(lines).strip() + "\n"
