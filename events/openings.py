"""The opening draw of RULES 6, for any event: a tournament draws once per round, an arena once
per game (RULES 8 Decision). Pure: the caller passes its random generator (seeded, so a retried
step draws the same) and what was drawn before."""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass

from events.options import RANDOM_PLIES, TABLE_MODES, OpeningMode
from games.rules import openings, variant


@dataclass(frozen=True)
class DrawnOpening:
    number: int | None  # the F.I.D. table number, or None
    moves: tuple[str, ...]  # machine form, from the start position
    fen: str  # the position after them, "" for the normal start


def draw_opening(
    *,
    mode: str,
    variant_code: str,
    thematic: int | None,
    rng: random.Random,
    used_numbers: Iterable[int] = (),
    used_moves: Iterable[tuple[str, ...]] = (),
) -> DrawnOpening:
    """RULES 6: no repeat of a table opening in `used_numbers` (nor of a random opening in
    `used_moves`) unless the allowed pool is used up, then anything allowed."""
    mode = OpeningMode(mode)
    number: int | None = None
    if mode is OpeningMode.FREE:
        return DrawnOpening(None, (), "")
    if mode is OpeningMode.THEMATIC:
        number = thematic
        moves = list(openings.by_number(number).moves(variant_code))
    elif mode in TABLE_MODES:
        ceiling = TABLE_MODES[mode]
        drawn = openings.draw_from_table(ceiling, rng, exclude=list(used_numbers))
        drawn = drawn or openings.draw_from_table(ceiling, rng)
        number = drawn.number
        moves = list(drawn.moves(variant_code))
    else:
        seen = {tuple(m) for m in used_moves}
        for _attempt in range(50):
            moves = openings.random_opening(variant_code, RANDOM_PLIES[mode], rng)
            if tuple(moves) not in seen:
                break
    rules = variant(variant_code)
    fen = rules.start_fen()
    for move in moves:
        fen = rules.apply(fen, move)
    return DrawnOpening(number, tuple(moves), fen)


def opening_label(number: int | None, moves: Iterable[str], variant_code: str) -> str:
    """How a drawn opening is named on the pages: its table number and moves, or its moves."""
    if number:
        return f"{number}. {' '.join(openings.by_number(number).moves(variant_code))}"
    return " ".join(moves)
