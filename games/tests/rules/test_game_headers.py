"""PGN / PDN as players' programs read them: the headers built from a game's facts,
clock comments, and every file read back by python-chess's and pydraughts' readers. Pure."""

from __future__ import annotations

import io
import random
from datetime import UTC, datetime, timedelta, timezone

import chess
import chess.pgn
import draughts
import pytest
from draughts.PDN import PDNReader

from games.rules import Result, chess_openings, variant
from games.rules.export import GameRecord, game_headers, termination
from games.rules.timecontrol import clock_text

STARTED = datetime(2026, 12, 2, 9, 5, 7, tzinfo=UTC)
SICILIAN = ["e2e4", "c7c5", "g1f3", "d7d6", "d2d4", "c5d4", "f3d4", "g8f6", "b1c3"]


def record(**changes) -> GameRecord:
    facts = dict(
        variant="chess",
        event="Torneo d'autunno",
        site="https://circolo.example/games/7/",
        started_at=STARTED,
        white="anna",
        black="bruno",
        result=Result.WHITE_WINS,
        reason="resignation",
        over=True,
        base_seconds=600,
        increment_seconds=5,
    )
    facts.update(changes)
    return GameRecord(**facts)


def random_game(code: str, plies: int, seed: int = 1) -> list[str]:
    rules, rng = variant(code), random.Random(seed)
    fen, moves = rules.start_fen(), []
    for _ in range(plies):
        legal = rules.legal_moves(fen)
        if not legal:
            break
        moves.append(rng.choice(legal))
        fen = rules.apply(fen, moves[-1])
    return moves


def test_pgn_headers_in_order_with_every_fact() -> None:
    opening = chess_openings.opening_of(variant("chess").replay(SICILIAN))
    headers = game_headers(
        record(
            round="3.2",
            white_rating=1612,
            black_rating=1540,
            white_rating_diff=8,
            black_rating_diff=-8,
            chess_opening=opening,
        )
    )
    assert list(headers.items()) == [
        ("Event", "Torneo d'autunno"),
        ("Site", "https://circolo.example/games/7/"),
        ("Date", "2026.12.02"),
        ("Round", "3.2"),
        ("White", "anna"),
        ("Black", "bruno"),
        ("UTCDate", "2026.12.02"),
        ("UTCTime", "09:05:07"),
        ("WhiteElo", "1612"),
        ("BlackElo", "1540"),
        ("WhiteRatingDiff", "+8"),
        ("BlackRatingDiff", "-8"),
        ("TimeControl", "600+5"),
        ("Termination", "Normal"),
        ("ECO", "B54"),
        ("Opening", "Sicilian Defense: Modern Variations, Main Line"),
    ]


def test_unknown_facts_are_left_out_and_the_date_is_utc() -> None:
    # 00:30 in Rome is still the day before in UTC.
    rome = timezone(timedelta(hours=1))
    headers = game_headers(
        record(started_at=datetime(2026, 12, 3, 0, 30, tzinfo=rome), event="", round="")
    )
    assert headers["Date"] == headers["UTCDate"] == "2026.12.02"
    assert headers["UTCTime"] == "23:30:00"
    assert headers["Event"] == "?" and headers["Round"] == "-"
    for tag in ("WhiteElo", "BlackElo", "WhiteRatingDiff", "BlackRatingDiff", "ECO", "Opening"):
        assert tag not in headers
    # A rating unchanged by the game is "+0", as lichess writes it.
    assert game_headers(record(white_rating_diff=0))["WhiteRatingDiff"] == "+0"


@pytest.mark.parametrize(
    ("reason", "over", "expected"),
    [
        ("checkmate", True, "Normal"),
        ("resignation", True, "Normal"),
        ("agreed_draw", True, "Normal"),
        ("no_legal_move", True, "Normal"),
        ("timeout", True, "Time forfeit"),
        ("timeout_vs_insufficient_material", True, "Time forfeit"),
        ("abandonment", True, "Abandoned"),
        ("both_absent", True, "Abandoned"),
        ("event_end", True, "Adjudication"),
        ("", False, "Unterminated"),
    ],
)
def test_termination(reason: str, over: bool, expected: str) -> None:
    assert termination(reason, over=over) == expected


def test_pdn_headers_use_ratings_and_the_fid_opening() -> None:
    headers = game_headers(
        record(
            variant="italian",
            white_rating=1500,
            black_rating=1480,
            white_rating_diff=5,
            fid_opening="FID 12, 1N",
            chess_opening=chess_openings.opening_of(variant("chess").replay(SICILIAN)),
        )
    )
    assert headers["WhiteRating"] == "1500" and headers["BlackRating"] == "1480"
    assert headers["Opening"] == "FID 12, 1N"
    for tag in ("UTCDate", "UTCTime", "WhiteElo", "WhiteRatingDiff", "ECO"):
        assert tag not in headers


def test_clock_text() -> None:
    assert clock_text(598_400) == "0:09:58"
    assert clock_text(3_725_000) == "1:02:05"
    assert clock_text(999) == "0:00:00"
    assert clock_text(-5) == "0:00:00"


def test_pgn_reads_back_with_python_chess() -> None:
    rules = variant("chess")
    moves = SICILIAN
    clocks = [600_000 - 1500 * i for i in range(len(moves))]
    opening = chess_openings.opening_of(rules.replay(moves))
    headers = game_headers(record(round="4", white_rating=1612, chess_opening=opening))
    text = rules.export(moves, headers=headers, result=Result.WHITE_WINS, clocks=clocks)
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None and not game.errors
    assert list(game.headers)[:7] == ["Event", "Site", "Date", "Round", "White", "Black", "Result"]
    assert game.headers["Result"] == "1-0"
    assert game.headers["ECO"] == "B54" and game.headers["WhiteElo"] == "1612"
    assert game.headers["TimeControl"] == "600+5"
    assert [m.uci() for m in game.mainline_moves()] == moves
    assert [node.clock() for node in game.mainline()] == [ms // 1000 for ms in clocks]
    assert "{ [%clk 0:10:00] }" in text


def test_pgn_without_clocks_or_moves() -> None:
    rules = variant("chess")
    text = rules.export([], headers=game_headers(record(over=False, result=None, reason="")))
    game = chess.pgn.read_game(io.StringIO(text))
    assert game.headers["Result"] == "*" and game.headers["Termination"] == "Unterminated"
    assert list(game.mainline_moves()) == []
    # Clocks that do not cover every move (a game from before they were kept) are left out.
    text = rules.export(SICILIAN, clocks=[1000])
    assert "%clk" not in text
    assert all(n.clock() is None for n in chess.pgn.read_game(io.StringIO(text)).mainline())


def piece_sets(fen: str) -> tuple[str, frozenset[str], frozenset[str]]:
    side, *colours = fen.split(":")
    pieces = {part[0]: frozenset(part[1:].split(",")) - {""} for part in colours}
    return side, pieces["W"], pieces["B"]


@pytest.mark.parametrize(
    ("code", "theirs", "game_type", "draw"),
    [
        ("italian", "italian", "22", "1/2-1/2"),
        ("english", "english", "21", "1/2-1/2"),
        ("international", "standard", "20", "1-1"),
    ],
)
def test_pdn_reads_back_with_pydraughts(code: str, theirs: str, game_type: str, draw: str) -> None:
    rules = variant(code)
    moves = random_game(code, 40)
    clocks = [300_000 - 700 * i for i in range(len(moves))]
    headers = game_headers(
        record(variant=code, round="2", result=Result.DRAW, white_rating=1450, fid_opening="")
    )
    text = rules.export(moves, headers=headers, result=Result.DRAW, clocks=clocks)
    assert "{[%clk 0:05:00]}" in text
    (game,) = PDNReader(pdn_text=text).games
    assert game.variant == theirs and game.tags["GameType"] == game_type
    assert game.game_ending == draw == game.tags["Result"]
    assert game.tags["White"] == "anna" and game.tags["Round"] == "2"
    assert game.get_ratings() == ["1450", ""]
    # Their moves are ours as players write them, and their own rules replay them to our end.
    fen = rules.start_fen()
    written = []
    for move in moves:
        written.append(rules.notation(fen, move))
        fen = rules.apply(fen, move)
    assert game.moves == written
    board = draughts.Board(variant=theirs)
    for move in game.moves:
        board.push(draughts.Move(board, pdn_move=move))
    assert piece_sets(board.fen) == piece_sets(fen)


def test_a_file_of_several_pdn_games_reads_back_as_many() -> None:
    rules = variant("international")
    texts = [
        rules.export(random_game("international", n, seed=n), result=result)
        for n, result in ((6, Result.WHITE_WINS), (4, Result.DRAW), (9, Result.BLACK_WINS))
    ]
    games = PDNReader(pdn_text="\n\n".join(texts)).games
    assert [g.game_ending for g in games] == ["2-0", "1-1", "0-2"]
    assert [len(g.moves) for g in games] == [6, 4, 9]


def test_a_pdn_game_without_moves() -> None:
    # pydraughts 0.6.7 reads a game with no moves, but stops reading a file after one (its
    # reader returns before keeping the rest): such a game is read alone here.
    headers = game_headers(record(variant="italian"))
    text = variant("italian").export([], headers=headers, result=Result.WHITE_WINS)
    (game,) = PDNReader(pdn_text=text).games
    assert game.moves == [] and game.game_ending == "1-0"
    assert game.tags["Termination"] == "Normal" and game.tags["GameType"] == "22"
