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


@pytest.mark.parametrize("code", VARIANT_CODES)
def test_play_agrees_with_the_separate_methods(code: str) -> None:
    """`play` (one call per move on the server) returns exactly what apply / notation /
    outcome / side_to_move / legal_moves say, move after move of random games to their end."""
    import random

    rules = variant(code)
    rng = random.Random(code)
    ended = 0
    for _game in range(5):
        fen, history = rules.start_fen(), []
        for _ply in range(300):
            moves = rules.legal_moves(fen)
            move = rng.choice(moves)
            played = rules.play(fen, move, history)
            new_fen = rules.apply(fen, move)
            assert played.fen == new_fen
            assert played.notation == (
                rules.notation(fen, move, "it"),
                rules.notation(fen, move, "en"),
            )
            history = [*history, fen]
            assert played.outcome == rules.outcome(new_fen, history)
            assert played.to_move is rules.side_to_move(new_fen)
            fen = new_fen
            if played.outcome is not None:
                assert played.legal_moves == []
                ended += 1
                break
            assert played.legal_moves == rules.legal_moves(fen)
    assert ended  # some games reached an automatic end (mate, draw rules, no move left)


def test_play_refuses_an_illegal_move() -> None:
    for code in VARIANT_CODES:
        rules = variant(code)
        with pytest.raises(IllegalMove):
            rules.play(rules.start_fen(), "a1a1" if code == "chess" else "1-50")
