"""The public interface every variant offers (games.rules.variant)."""

import pytest

from games.rules import VARIANT_CODES, Color, IllegalMove, InvalidPosition, variant


@pytest.mark.parametrize("code", VARIANT_CODES)
def test_start_position_round_trips_and_has_moves(code: str) -> None:
    rules = variant(code)
    fen = rules.start_fen()
    assert rules.normalize_fen(fen) == fen
    assert rules.side_to_move(fen) is rules.first_to_move
    moves = rules.legal_moves(fen)
    assert moves
    after = rules.apply(fen, moves[0])
    assert rules.side_to_move(after) is rules.first_to_move.opponent
    assert rules.outcome(fen) is None


def test_first_mover_per_federation() -> None:
    assert variant("english").first_to_move is Color.BLACK  # English: Black moves first
    for code in ("chess", "italian", "international"):
        assert variant(code).first_to_move is Color.WHITE


@pytest.mark.parametrize(
    ("code", "bad_move"),
    [("chess", "e2e5"), ("italian", "21-16"), ("english", "22-18"), ("international", "31-27x")],
)
def test_illegal_move_is_refused(code: str, bad_move: str) -> None:
    rules = variant(code)
    with pytest.raises(IllegalMove):
        rules.apply(rules.start_fen(), bad_move)
    assert not rules.is_legal(rules.start_fen(), bad_move)


@pytest.mark.parametrize("code", VARIANT_CODES)
def test_garbage_position_is_refused(code: str) -> None:
    with pytest.raises(InvalidPosition):
        variant(code).normalize_fen("not a position")


def test_unknown_variant() -> None:
    with pytest.raises(KeyError):
        variant("checkers")
