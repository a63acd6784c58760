"""Chess opening names looked up by position: pure, no database."""

from __future__ import annotations

from pathlib import Path

import chess
import pytest

from games.rules import chess_openings, variant

CHESS = variant("chess")


def positions(moves: list[str]) -> list[str]:
    return CHESS.replay(moves)


def test_every_row_replays_to_its_position_and_positions_are_distinct() -> None:
    rows = Path(chess_openings.TABLE_PATH).read_text(encoding="utf-8").splitlines()
    assert rows[0].split("\t") == list(chess_openings.COLUMNS)
    epds = set()
    for row in rows[1:]:
        eco, name, pgn, epd = row.split("\t")
        board = chess.Board()
        for token in pgn.split():
            if not token[0].isdigit():
                board.push_san(token)
        assert board.epd() == epd, name
        assert len(eco) == 3 and eco[0] in "ABCDE" and eco[1:].isdigit()
        epds.add(epd)
    assert len(epds) == len(rows) - 1 > 3000


def test_the_table_keys_are_this_package_s_fens() -> None:
    # 1. e4 has no en passant capture: the FEN writes "-", as the table's EPD.
    fen = CHESS.apply(CHESS.start_fen(), "e2e4")
    assert chess_openings.named(fen) == chess_openings.ChessOpening(
        "B00", "King's Pawn Game", "1. e4", "Partita di pedone di re"
    )


def test_a_named_line() -> None:
    game = positions(["e2e4", "c7c5", "g1f3", "d7d6", "d2d4", "c5d4", "f3d4", "g8f6", "b1c3"])
    opening = chess_openings.opening_of(game)
    assert opening is not None
    # 5. Nc3 is in no row: the name is that of 4... Nf6.
    assert chess_openings.named(game[-1]) is None
    assert opening.eco == "B54"
    assert opening.name == "Sicilian Defense: Modern Variations, Main Line"
    assert opening.label == "B54 Sicilian Defense: Modern Variations, Main Line"


def test_a_transposition_finds_the_name_of_its_position() -> None:
    # The Queen's Gambit Declined reached by 1. Nf3 d5 2. d4 Nf6 3. c4 e6 4. Nc3: the table's
    # line for that name is 1. d4 Nf6 2. c4 e6 3. Nf3 d5 4. Nc3, so only a lookup by position
    # finds it (the two moves before it name nothing).
    transposed = positions(["g1f3", "d7d5", "d2d4", "g8f6", "c2c4", "e7e6", "b1c3"])
    assert chess_openings.named(transposed[-2]) is None
    opening = chess_openings.opening_of(transposed)
    assert opening is not None
    assert (opening.eco, opening.name) == (
        "D37",
        "Queen's Gambit Declined: Three Knights Variation",
    )
    assert opening.pgn == "1. d4 Nf6 2. c4 e6 3. Nf3 d5 4. Nc3"
    # Along the way the transposed game was named otherwise (a Zukertort, 1. Nf3).
    assert chess_openings.opening_of(transposed[:2]).name.startswith("Zukertort")


def test_a_position_not_in_the_table_keeps_the_last_name() -> None:
    named_line = positions(["e2e4", "e7e5", "g1f3", "b8c6", "f1b5"])
    ruy = chess_openings.opening_of(named_line)
    assert ruy is not None and ruy.name == "Ruy Lopez"
    # 3... h5?! 4. h4 — no name for these positions: the game is still a Ruy Lopez.
    onward = CHESS.replay(["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "h7h5", "h2h4"])
    assert chess_openings.named(onward[-1]) is None
    assert chess_openings.named(onward[-2]) is None
    assert chess_openings.opening_of(onward) == ruy


def test_no_name_before_the_first_move_nor_for_an_unknown_start() -> None:
    assert chess_openings.opening_of([CHESS.start_fen()]) is None
    assert chess_openings.opening_of([]) is None
    odd = "4k3/8/8/8/8/8/8/4K2R w K - 0 1"
    assert chess_openings.opening_of([odd, CHESS.apply(odd, "h1h2")]) is None


def test_what_a_move_changes_stops_past_the_table_s_depth() -> None:
    fen = CHESS.apply(CHESS.start_fen(), "e2e4")
    depth = chess_openings.max_plies()
    assert 20 < depth < 60
    assert chess_openings.named_at_ply(fen, 1) == chess_openings.named(fen)
    assert chess_openings.named_at_ply(fen, depth) == chess_openings.named(fen)
    assert chess_openings.named_at_ply(fen, depth + 1) is None


def test_building_the_table_from_lichess_files() -> None:
    source = "eco\tname\tpgn\nB00\tKing's Pawn Game\t1. e4\nC20\tKing's Pawn Game\t1. e4 e5\n"
    rows = chess_openings.rows_from_sources([source])
    assert rows[1] == (
        "C20",
        "King's Pawn Game",
        "1. e4 e5",
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq -",
    )
    with pytest.raises(ValueError, match="same position"):
        chess_openings.rows_from_sources([source + "B00\tTwice\t1. e4\n"])
    with pytest.raises(ValueError, match="columns"):
        chess_openings.rows_from_sources(["eco\tpgn\n"])
    with pytest.raises(ValueError):
        chess_openings.rows_from_sources(["eco\tname\tpgn\nA00\tBad\t1. e5\n"])
