"""The chess FEN read and written from bitboards (`chess_variant._read_fen`, `_write_fen`) give
exactly what python-chess gives, on positions of random games and on the awkward cases."""

from __future__ import annotations

import os
import random

import chess
import pytest

from games.rules import chess_variant
from games.rules.chess_variant import _read_fen, _write_fen

# Random games of the check of `Chess.play` against python-chess: in `make test` a sample sized
# for its time budget (docs/testing.md) that still meets every kind of move the test asks for
# (it fails otherwise); `make test-differential` plays 200.
PLAY_GAMES = int(os.environ.get("CHESS_ORACLE_GAMES", "16"))


def state(board: chess.Board) -> tuple:
    return (
        board.pawns,
        board.knights,
        board.bishops,
        board.rooks,
        board.queens,
        board.kings,
        board.occupied_co[chess.WHITE],
        board.occupied_co[chess.BLACK],
        board.occupied,
        board.promoted,
        board.turn,
        board.castling_rights,
        board.ep_square,
        board.halfmove_clock,
        board.fullmove_number,
        board.chess960,
    )


def special_kinds(board: chess.Board, move: chess.Move) -> set[str]:
    """Which of the moves a FEN writer can get wrong `move` is in `board`."""
    return {
        kind
        for kind, is_it in (
            ("castling", board.is_castling(move)),
            ("en passant", board.is_en_passant(move)),
            ("promotion", move.promotion),
        )
        if is_it
    }


def playout_boards(games: int, seed: int = 5):
    """Every position of random games, as boards that reached it by moves (en passant squares
    set after double steps, castling rights lost one by one, promotions)."""
    rng = random.Random(seed)
    for _ in range(games):
        board = chess.Board()
        for _ply in range(rng.randint(20, 160)):
            moves = list(board.legal_moves)
            if not moves:
                break
            # Prefer pawn pushes and captures a little: more promotions and en passant.
            pawn = [m for m in moves if board.piece_type_at(m.from_square) == chess.PAWN]
            board.push(rng.choice(pawn if pawn and rng.random() < 0.4 else moves))
            yield board


def test_both_agree_with_python_chess_over_random_games():
    seen = 0
    for board in playout_boards(60):
        fen = board.fen()
        assert _write_fen(board) == fen
        read = _read_fen(fen)
        assert read is not None and state(read) == state(chess.Board(fen)), fen
        seen += 1
    assert seen > 2_000


AWKWARD = [
    chess.STARTING_FEN,
    "8/8/8/8/8/8/8/8 w - - 0 1",  # nothing at all (read; invalid as a position)
    "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
    "r3k2r/8/8/8/8/8/8/R3K2R b Kq - 12 40",
    "rr2k3/8/8/8/8/8/8/RR2K2R w KQq - 0 1",  # two rooks on one side (X-FEN letters?)
    "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2",  # a legal en passant
    "4k3/8/8/3p4/8/8/8/4K3 w - d6 0 2",  # an en passant square with no capture
    "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 0",  # fullmove 0 -> 1
]


@pytest.mark.parametrize("fen", AWKWARD)
def test_awkward_positions(fen):
    board = chess.Board(fen)
    read = _read_fen(fen)
    assert read is not None and state(read) == state(board)
    assert _write_fen(board) == board.fen()
    for moved in list(board.legal_moves)[:40]:
        after = board.copy()
        after.push(moved)
        assert _write_fen(after) == after.fen()


@pytest.mark.parametrize(
    "text",
    [
        "44/8/8/8/8/8/8/8 w - - 0 1",  # two digits in a row
        "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN w KQkq - 0 1",  # a short rank
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNRR w KQkq - 0 1",  # a long one
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1",  # seven ranks
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0",  # five fields
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1",  # Shredder castling
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR  w KQkq - 0 1",
        " rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e4 0 1",
    ],
)
def test_anything_not_as_python_chess_writes_it_is_left_to_python_chess(text):
    """Not read here: `_board` then asks python-chess, which reads or refuses it as before."""
    assert _read_fen(text) is None
    try:
        expected = chess_variant.Chess().normalize_fen(text)
    except chess_variant.InvalidPosition:
        expected = None
    try:
        board = chess.Board(text)
        python_chess = board.fen() if board.is_valid() else None
    except ValueError:
        python_chess = None
    assert expected == python_chess


def test_play_writes_what_python_chess_writes_over_random_games():
    """`Chess.play` takes the SAN's check suffix from the replies it generates anyway, the
    legal moves' UCI from a table, and rewrites only the ranks a move changed in the FEN: all
    as python-chess's own `san`, `uci` and `fen` give them, mates, castling, en passant and
    promotions included."""
    rules = chess_variant.Chess()
    suffixes, kinds = set(), set()
    for board in playout_boards(PLAY_GAMES, seed=11):
        legal = list(board.legal_moves)
        special = [
            m for m in legal if board.is_castling(m) or board.is_en_passant(m) or m.promotion
        ]
        for move in legal[:6] + special:
            kinds |= special_kinds(board, move)
            played = rules.play(board.fen(), move.uci())
            expected = tuple(
                chess_variant.algebraic(board, move, language) for language in ("it", "en")
            )
            assert played.notation == expected, (board.fen(), move.uci())
            after = board.copy(stack=False)
            after.push(move)
            assert played.fen == after.fen(), (board.fen(), move.uci())
            if played.outcome is None:
                assert played.legal_moves == sorted(m.uci() for m in after.legal_moves)
            suffixes.add(board.san(move)[-1])
    assert {"+", "#"} <= suffixes  # checks and mates were among them
    assert kinds == {"castling", "en passant", "promotion"}


def test_the_board_a_move_leaves_is_the_board_its_fen_reads_into():
    """`Chess.play` hands back the board a move reached for the next move on that position
    (`Played.board`), and another process builds it from the bitboards the push carries
    (`Chess.board_of`): either must be exactly the board the FEN reads into — en passant square as
    written (python-chess keeps it after any double step), castling rights as written, nothing
    promoted, no move stack — and the next move played from it must give what the FEN would.
    Whole random games, each move chosen among the replies `play` returned; an illegal move on
    a kept position is still refused, and leaves the position readable."""
    rules = chess_variant.Chess()
    kept = {}  # what a caller holds (games.services.memory): the rules keep nothing
    rng = random.Random(17)
    taken = refused = sent = 0
    seen = set()
    for _game in range(30):
        fen = chess.STARTING_FEN
        board = chess.Board()
        played = None
        for _ply in range(rng.randint(30, 200)):
            if played is not None and rng.random() < 0.5:
                # The next move comes to another process, which heard the push (`board_of`).
                kept[fen] = rules.board_of(fen, list(played.position))  # msgpack: a list
                assert kept[fen][2] is None  # the replies were not generated there
                sent += 1
            if fen in kept:
                taken += 1
                mine = kept[fen][0]
                read = _read_fen(fen)
                assert (state(mine), mine.move_stack, mine._stack) == (state(read), [], []), fen
                assert kept[fen][1] == fen.split(" ")[0].split("/")
                if rng.random() < 0.1:  # a move not among the replies: refused as before
                    with pytest.raises(chess_variant.IllegalMove):
                        rules.play(
                            fen, rng.choice(["a1a1", "a1h2", "h1h9", "zz"]), board=kept.pop(fen)
                        )
                    refused += 1
            moves = list(board.legal_moves)
            pawn = [m for m in moves if board.piece_type_at(m.from_square) == chess.PAWN]
            move = rng.choice(pawn if pawn and rng.random() < 0.4 else moves)
            seen |= special_kinds(board, move)
            played = rules.play(fen, move.uci(), board=kept.pop(fen, None))
            expected = tuple(chess_variant.algebraic(board, move, lang) for lang in ("it", "en"))
            board.push(move)
            assert (played.fen, played.notation) == (board.fen(), expected)
            if played.outcome is not None:
                assert played.board is None
                break
            kept[played.fen] = played.board
            assert played.legal_moves == sorted(m.uci() for m in board.legal_moves)
            fen = played.fen
    assert taken > 1000 and refused > 50 and sent > 500
    assert seen == {"castling", "en passant", "promotion"}


@pytest.mark.parametrize(
    "position", [None, (), [1] * 7, ["1"] * 8, [1 << 64] * 8, [-1] * 8, [1.0] * 8]
)
def test_a_position_that_is_not_eight_bitboards_makes_no_board(position):
    assert chess_variant.Chess().board_of(chess.STARTING_FEN, position) is None
