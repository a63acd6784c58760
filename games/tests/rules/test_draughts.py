"""Draughts rules, named positions: each shows one federation rule and is also checked against
pydraughts (the oracle agrees on all of them). Square numbers as each federation writes them."""

import random
from collections import Counter

import pytest

from games.rules import Color, IllegalMove, InvalidPosition, Reason, Result, variant
from games.rules.draughts import DraughtsVariant, format_fen
from games.tests.rules.oracle import oracle_after, oracle_moves, our_moves, pydraughts_board


def rules_for(code: str) -> DraughtsVariant:
    rules = variant(code)
    assert isinstance(rules, DraughtsVariant)
    return rules


def assert_moves(code: str, fen: str, expected: list[str]) -> None:
    """Our legal moves are ``expected`` (as sets), and pydraughts agrees move by move."""
    rules = rules_for(code)
    assert sorted(rules.legal_moves(fen)) == sorted(expected)
    pos = rules.position(fen)
    board = pydraughts_board(rules, pos)
    assert Counter(oracle_moves(board)) == Counter(our_moves(rules, pos))


NAMED_POSITIONS = [
    # (name, variant, FEN, legal moves, rule)
    (
        "italian_man_cannot_capture_king",
        "italian",
        "W:W22:BK18,1",
        ["22-19"],
        "F.I.D.: la pedina non può mangiare la dama",
    ),
    (
        "italian_capture_with_king_rather_than_man",
        "italian",
        "W:W22,K27:B18,23,1",
        ["27x20"],
        "F.I.D. rule 2: equal captures, the king must capture",
    ),
    (
        "italian_most_pieces_first",
        "italian",
        "W:W22,K27:B18,10,23",
        ["22x13x6"],
        "F.I.D. rule 1: the most pieces, even if a man takes them",
    ),
    (
        "italian_most_kings",
        "italian",
        "W:WK18:B13,K14",
        ["18x11"],
        "F.I.D. rule 3: the capture taking more kings",
    ),
    (
        "italian_king_met_earliest",
        "italian",
        "W:WK18:B13,K14,15,K5",
        ["18x11x20"],
        "F.I.D. rule 4: 18x11x20 takes the king first, 18x9x2 takes it second",
    ),
    (
        "italian_crowned_man_stops",
        "italian",
        "W:W10:B6,7",
        ["10x3"],
        "F.I.D.: a man reaching the last row is crowned and the move ends (no 10x3x12)",
    ),
    (
        "italian_men_move_forward_only",
        "italian",
        "W:W19,20:B23",
        ["19-14", "19-15", "20-15", "20-16"],
        "F.I.D.: men neither move nor capture backwards",
    ),
    (
        "english_free_choice_of_capture",
        "english",
        "B:W17,18,26:B14",
        ["14x21", "14x23x30"],
        "WCDF: any capture may be chosen, the shorter one too",
    ),
    (
        "english_crowned_man_stops",
        "english",
        "B:W26,25:B23",
        ["23x30"],
        "WCDF: a man crowned by a capture ends its move (no 23x30x21)",
    ),
    (
        "international_man_captures_backwards",
        "international",
        "W:W28:B33",
        ["28x39"],
        "FMJD 4.2: men capture forwards and backwards",
    ),
    (
        "international_maximum_capture",
        "international",
        "W:W28:B33,23,14",
        ["28x19x10"],
        "FMJD 4.13: the capture of the most pieces is compulsory",
    ),
    (
        "international_man_passing_crown_row_stays_man",
        "international",
        "W:W12:B8,9",
        ["12x3x14"],
        "FMJD 4.15: a man only passing the crown row during a capture is not crowned",
    ),
    (
        "international_flying_king_lands_anywhere",
        "international",
        "W:WK46:B28,1",
        ["46x23", "46x19", "46x14", "46x10", "46x5"],
        "FMJD 4.3: the king may stop on any free square after the captured piece",
    ),
]


@pytest.mark.parametrize(
    ("code", "fen", "expected"),
    [pytest.param(code, fen, moves, id=name) for name, code, fen, moves, _ in NAMED_POSITIONS],
)
def test_named_rule_positions(code: str, fen: str, expected: list[str]) -> None:
    assert_moves(code, fen, expected)


def test_man_passing_crown_row_is_not_crowned() -> None:
    rules = rules_for("international")
    after = rules.apply("W:W12:B8,9", "12x3x14")
    assert after == "B:W14:B"  # a man (no K) on 14, both black men taken
    assert (
        rules.normalize_fen(
            oracle_after(pydraughts_board(rules, rules.position("W:W12:B8,9")), "12x3x14")
        )
        == after
    )


def test_crowned_on_the_last_row() -> None:
    assert rules_for("italian").apply("W:W10:B6,7", "10x3") == "B:WK3:B7"
    assert rules_for("english").apply("B:W26,25:B23", "23x30") == "W:W25:BK30"


def test_fen_spellings_are_normalised() -> None:
    rules = rules_for("italian")
    assert rules.normalize_fen("W:W21-32:B1-12") == rules.start_fen()
    assert (
        rules.normalize_fen(" w:b12,11,10,9,8,7,6,5,4,3,2,1:w32,31,30,29,28,27,26,25,24,23,22,21.")
        == rules.start_fen()
    )
    with pytest.raises(InvalidPosition):
        rules.normalize_fen("W:W21,21:B1")  # a square twice
    with pytest.raises(InvalidPosition):
        rules.normalize_fen("W:W33:B1")  # no square 33 on 8×8
    with pytest.raises(InvalidPosition):
        rules.normalize_fen("W:W2:B30")  # men on their own crown row must be kings


def test_captures_accept_the_short_and_hyphen_forms() -> None:
    rules = rules_for("italian")
    fen = "W:W22,K27:B18,10,23"
    assert rules.apply(fen, "22x6") == rules.apply(fen, "22x13x6")
    assert rules.apply(fen, "22-13-6") == rules.apply(fen, "22x13x6")
    with pytest.raises(IllegalMove):
        rules.apply(fen, "27x20")  # legal by itself, but not the maximum capture


@pytest.mark.parametrize("code", ["italian", "english", "international"])
def test_side_without_a_move_loses(code: str) -> None:
    rules = rules_for(code)
    fen = "W:W:B1" if code != "english" else "B:W30:B"
    outcome = rules.outcome(fen)
    assert outcome is not None and outcome.reason is Reason.NO_LEGAL_MOVE
    assert outcome.winner is rules.side_to_move(fen).opponent


def test_blocked_side_loses() -> None:
    outcome = rules_for("italian").outcome("W:W5:B1,2")  # the man on 5 cannot move or capture
    assert outcome is not None
    assert (outcome.result, outcome.reason) == (Result.BLACK_WINS, Reason.NO_LEGAL_MOVE)


def quiet_walk(
    rules: DraughtsVariant, fen: str, plies: int, seed: int, kings_only: bool = False
) -> list[str]:
    """Kings-only positions, ``plies`` quiet king moves from ``fen``: no capture possible, and
    no position three times (so only the move-count rules can end the game)."""
    rng = random.Random(seed)
    positions = [rules.normalize_fen(fen)]
    seen = Counter(positions)
    for _ in range(plies):
        options = []
        for move in rules.legal_moves(positions[-1]):
            after = rules.apply(positions[-1], move)
            if "x" in move or any("x" in m for m in rules.legal_moves(after)):
                continue
            if kings_only and move.split("-")[0] not in king_squares(positions[-1]):
                continue
            options.append((seen[after], rng.random(), after))
        assert options, "walk stuck"
        after = min(options)[2]
        assert seen[after] < 2
        positions.append(after)
        seen[after] += 1
    return positions


@pytest.mark.parametrize(
    ("code", "fen", "limit", "reason"),
    [
        # Italian and English: 40 moves each of kings only (module docstring of draughts.py).
        ("italian", "W:WK29,K32:BK1,K4", 80, Reason.KING_MOVES),
        ("english", "B:WK29,K32:BK1,K4", 80, Reason.KING_MOVES),
        # FMJD 6.2: 25 moves each of kings only.
        ("international", "W:WK46,K47,K48:BK1,K2,K3", 50, Reason.KING_MOVES),
        # FMJD 6.3: three pieces, one a king at least, against a lone king: 16 moves each.
        ("international", "W:WK36,K45,K50:BK5", 32, Reason.ENDGAME_MOVES),
        # FMJD 6.4: two pieces against a lone king: 5 moves each.
        ("international", "W:WK45,K50:BK3", 10, Reason.ENDGAME_MOVES),
    ],
)
def test_move_count_draws(code: str, fen: str, limit: int, reason: Reason) -> None:
    rules = rules_for(code)
    positions = quiet_walk(rules, fen, limit, seed=limit)
    for ply in range(limit):
        assert rules.outcome(positions[ply], positions[:ply]) is None, ply
    outcome = rules.outcome(positions[limit], positions[:limit])
    assert outcome is not None
    assert (outcome.result, outcome.reason) == (Result.DRAW, reason)


def king_squares(fen: str) -> set[str]:
    return {
        item[1:] for part in fen.split(":")[1:] for item in part[1:].split(",") if item[:1] == "K"
    }


def test_a_man_move_resets_the_king_move_count() -> None:
    rules = rules_for("italian")
    positions = quiet_walk(rules, "W:WK29,K32,26:BK1,K4,7", 79, seed=3, kings_only=True)
    assert rules.outcome(positions[-1], positions[:-1]) is None  # 79 king plies: not yet
    fen = positions[-1]
    moves = rules.legal_moves(fen)
    king_move = next(m for m in moves if m.split("-")[0] in king_squares(fen))
    man_move = next(m for m in moves if m.split("-")[0] not in king_squares(fen))
    # An 80th king move draws; an 80th move that is a man's does not.
    drawn = rules.outcome(rules.apply(fen, king_move), positions)
    assert drawn is not None and drawn.reason is Reason.KING_MOVES
    assert rules.outcome(rules.apply(fen, man_move), positions) is None


@pytest.mark.parametrize(
    ("code", "fen"),
    [("italian", "W:WK29:BK4"), ("english", "B:WK29:BK4"), ("international", "W:WK46:BK3")],
)
def test_threefold_repetition(code: str, fen: str) -> None:
    rules = rules_for(code)
    start = rules.normalize_fen(fen)
    # Both kings step out and back twice: the start position is seen at plies 0, 4 and 8.
    first = rules.legal_moves(start)[0]
    second = rules.legal_moves(rules.apply(start, first))[0]
    out_and_back = [first, second, *("-".join(reversed(m.split("-"))) for m in (first, second))]
    positions = rules.replay(out_and_back * 2, start_fen=start)
    assert positions[4] == positions[8] == start
    for ply in range(8):
        assert rules.outcome(positions[ply], positions[:ply]) is None, ply
    outcome = rules.outcome(positions[8], positions[:8])
    assert outcome is not None
    assert (outcome.result, outcome.reason) == (Result.DRAW, Reason.THREEFOLD_REPETITION)


def test_timeout_loses_in_draughts() -> None:
    rules = rules_for("english")
    outcome = rules.timeout_outcome(rules.start_fen(), Color.BLACK)
    assert (outcome.result, outcome.reason) == (Result.WHITE_WINS, Reason.TIMEOUT)


def test_notation_is_the_square_path_in_both_languages() -> None:
    rules = rules_for("italian")
    assert rules.notation(rules.start_fen(), "22-18", "it") == "22-18"
    assert rules.notation("W:W22,K27:B18,10,23", "22x6", "en") == "22x13x6"


def test_pdn_export() -> None:
    rules = rules_for("english")
    pdn = rules.export(
        ["11-15", "22-18", "15x22", "25x18"], headers={"White": "anna"}, result=Result.DRAW
    )
    assert '[GameType "21"]' in pdn
    assert '[White "anna"]' in pdn
    assert "FEN" not in pdn
    assert pdn.rstrip().endswith("1. 11-15 22-18 2. 15x22 25x18 1/2-1/2")
    italian = rules_for("italian")
    start = italian.replay(["21-17", "10-14"])[-1]
    pdn = italian.export(["17-13"], start_fen=start)
    assert f'[FEN "{start}"]' in pdn and '[GameType "22"]' in pdn
    assert "1. 17-13 *" in pdn


def test_positions_keep_their_format() -> None:
    rules = rules_for("international")
    pos = rules.position(rules.start_fen())
    assert format_fen(pos) == rules.start_fen()
    assert rules.start_fen().startswith("W:W31,32")


@pytest.mark.parametrize("text", ["²-1", "①-2", "٢٢-١٨", "22-１8"])
def test_moves_with_non_ascii_digits_are_illegal_not_a_crash(text):
    from games.rules import IllegalMove, variant

    rules = variant("italian")
    with pytest.raises(IllegalMove):
        rules.play(rules.start_fen(), text, [])
