"""The F.I.D. 174-opening table and random openings (RULES §6)."""

import random
from collections import Counter

import pytest

from games.rules import VARIANT_CODES, openings, variant
from games.rules.draughts import Position, format_fen


def test_table_has_174_numbered_openings_with_the_documented_classes() -> None:
    table = openings.table()
    assert [item.number for item in table] == list(range(1, 175))
    # Counts by class as the table's README gives them.
    assert Counter(item.italian_class for item in table) == {
        "PARI": 26,
        "1B": 13,
        "1N": 44,
        "2B": 2,
        "2N": 41,
        "3B": 4,
        "3N": 36,
        "4N": 8,
    }
    assert all(len(item.italian_moves) == len(item.english_moves) == 3 for item in table)


@pytest.mark.parametrize("code", openings.TABLE_VARIANTS)
def test_every_opening_replays_legally_to_distinct_positions(code: str) -> None:
    rules = variant(code)
    ends = [rules.replay(item.moves(code))[-1] for item in openings.table()]
    assert len(set(ends)) == 174
    assert all(rules.side_to_move(fen) is rules.first_to_move.opponent for fen in ends)


def _italian_to_english(fen: str) -> str:
    """Turn the board over (data README): Italian square n, row r and place i, is English square
    4·(7−r)+i+1, and the colours swap."""
    pos = variant("italian").position(fen)  # type: ignore[attr-defined]

    def mirror(bits: int) -> int:
        out = 0
        for index in range(32):
            if bits >> index & 1:
                row, place = divmod(index, 4)
                out |= 1 << (4 * (7 - row) + place)
        return out

    return format_fen(
        Position(mirror(pos.black), mirror(pos.white), mirror(pos.kings), not pos.white_to_move)
    )


def test_italian_and_english_forms_are_the_same_opening() -> None:
    italian, english = variant("italian"), variant("english")
    for item in openings.table():
        assert (
            _italian_to_english(italian.replay(item.italian_moves)[-1])
            == english.replay(item.english_moves)[-1]
        ), item.number


def test_class_ceilings() -> None:
    sizes = {ceiling: len(openings.up_to_class(ceiling)) for ceiling in (1, 2, 3, None)}
    assert sizes == {1: 83, 2: 126, 3: 166, None: 174}
    assert all(item.degree <= 2 for item in openings.up_to_class(2))
    with pytest.raises(ValueError):
        openings.up_to_class(4)


def test_english_class_is_derived_with_colours_swapped() -> None:
    assert openings.by_number(1).italian_class == "1B"
    assert openings.by_number(1).english_class == "1B"  # first mover better: Black in English
    assert openings.by_number(6).italian_class == "4N"
    assert openings.by_number(6).english_class == "4W"  # second mover better: White in English
    assert openings.by_number(4).english_class == "EVEN"
    assert "derived" in openings.by_number(6).class_label("english")
    assert openings.by_number(6).class_label("italian") == "4N"
    # The data README: the 18 defunct English ballots all come from Italian 3N, 4N or 3B.
    defunct = [item for item in openings.table() if item.acf_status == "defunct"]
    assert len(defunct) == 18
    assert {item.english_class for item in defunct} <= {"3W", "4W", "3B"}


def test_draw_from_table_never_repeats_and_runs_out() -> None:
    rng = random.Random(7)
    drawn: list[int] = []
    for _ in range(83):
        item = openings.draw_from_table(1, rng, exclude=drawn)
        assert item is not None and item.degree <= 1
        drawn.append(item.number)
    assert len(set(drawn)) == 83
    assert openings.draw_from_table(1, rng, exclude=drawn) is None


@pytest.mark.parametrize("code", VARIANT_CODES)
@pytest.mark.parametrize("plies", [1, 2, 3])
def test_random_opening_is_legal_and_seeded(code: str, plies: int) -> None:
    moves = openings.random_opening(code, plies, random.Random(42))
    assert len(moves) == plies
    variant(code).replay(moves)  # raises if illegal
    assert moves == openings.random_opening(code, plies, random.Random(42))
    seen = {tuple(openings.random_opening(code, plies, random.Random(s))) for s in range(30)}
    assert len(seen) > 1  # really drawn, not always the same line
    with pytest.raises(ValueError):
        openings.random_opening(code, 4, random.Random(1))
