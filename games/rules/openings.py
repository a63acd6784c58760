"""Openings (RULES §6): the F.I.D. table of 174 three-move openings, and random openings.

The table (``data/fid_174.tsv``, provenance in ``data/README.md``) gives each opening in Italian
draughts numbering with its F.I.D. class (PARI, or 1–4 degrees in favour of Bianco/Nero), and
the same opening as an English three-move ballot. English classes are not official: they are
derived here by swapping the favoured colour (the Italian second mover is Black, the English
second mover is White) and must be shown labelled as derived.
"""

from __future__ import annotations

import csv
import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from . import variant, variants

TABLE_PATH = Path(__file__).parent / "data" / "fid_174.tsv"


def column(variant_code: str) -> variants.FidColumn | None:
    """RULES §6: the column of the table the variant plays, "italian" or "english" (its
    `fid_table` in the list of variants); None when the table does not apply to it, or the
    code is no variant's (a form's unchecked input)."""
    try:
        return variants.info(variant_code).fid_table
    except KeyError:
        return None


def uses_table(variant_code: str) -> bool:
    """RULES §6: table draws and thematic openings only in the variants the table applies to
    (Italian and English draughts)."""
    return column(variant_code) is not None


def classes_derived(variant_code: str) -> bool:
    """Whether the variant's classes are derived from the F.I.D. ones, not official (the
    English column)."""
    return column(variant_code) == "english"


def __getattr__(name: str):
    # TABLE_VARIANTS: the codes of the variants the table applies to, read from the list of
    # variants when asked (a variant declared later is in it).
    if name == "TABLE_VARIANTS":
        return tuple(code for code in variants.codes() if uses_table(code))
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@dataclass(frozen=True, slots=True)
class Opening:
    number: int  # F.I.D. table number, 1-174
    italian_moves: tuple[str, ...]
    italian_class: str  # as in the table: PARI, 1B..3B, 1N..4N
    english_moves: tuple[str, ...]
    acf_status: str  # 'deck' or 'defunct' (English three-move deck)

    @property
    def degree(self) -> int:
        """How unbalanced: 0 for PARI, else 1-4 (RULES §6 ceilings use this)."""
        return 0 if self.italian_class == "PARI" else int(self.italian_class[0])

    @property
    def english_class(self) -> str:
        """Derived English class with English colour initials: 'EVEN', '1B' (Black, the English
        first mover, better) or '1W' (White better). Not official: label it as derived."""
        if self.degree == 0:
            return "EVEN"
        # Italian Bianco (first mover) better -> English first mover Black better, and so on.
        favoured = "B" if self.italian_class[1] == "B" else "W"
        return f"{self.degree}{favoured}"

    @property
    def english_class_label(self) -> str:
        return f"{self.english_class} (derived from F.I.D. {self.italian_class})"

    def moves(self, variant_code: str) -> tuple[str, ...]:
        played = column(variant_code)
        if played is None:
            raise ValueError(f"the F.I.D. table has no {variant_code} openings")
        return self.moves_in(played)

    def class_label(self, variant_code: str) -> str:
        """The class as shown with the variant's moves: the official one in the Italian
        column, else the derived English class, labelled so."""
        return self.class_in(column(variant_code))

    def moves_in(self, played: variants.FidColumn) -> tuple[str, ...]:
        return self.italian_moves if played == "italian" else self.english_moves

    def class_in(self, played: variants.FidColumn | None) -> str:
        return self.italian_class if played == "italian" else self.english_class_label


@cache
def table() -> tuple[Opening, ...]:
    """All 174 openings, in table order."""
    with TABLE_PATH.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    return tuple(
        Opening(
            number=int(row["number"]),
            italian_moves=tuple(row["italian_moves"].split()),
            italian_class=row["class"],
            english_moves=tuple(row["english_moves"].split()),
            acf_status=row["acf_status"],
        )
        for row in rows
    )


def by_number(number: int) -> Opening:
    for item in table():
        if item.number == number:
            return item
    raise KeyError(f"no opening number {number} in the F.I.D. table")


def up_to_class(ceiling: int | None) -> tuple[Opening, ...]:
    """RULES §6 modes 5-8: openings no more unbalanced than ``ceiling`` (1, 2 or 3; None = all
    174). PARI openings are always included."""
    if ceiling is None:
        return table()
    if ceiling not in (1, 2, 3):
        raise ValueError("the class ceiling is 1, 2, 3 or None (all)")
    return tuple(item for item in table() if item.degree <= ceiling)


def draw_from_table(
    ceiling: int | None, rng: random.Random, exclude: Sequence[int] = ()
) -> Opening | None:
    """One opening drawn among those allowed, skipping numbers in ``exclude`` (RULES §6: the
    same opening never comes out twice in one tournament); None when the pool is used up."""
    pool = [item for item in up_to_class(ceiling) if item.number not in set(exclude)]
    return rng.choice(pool) if pool else None


def random_opening(variant_code: str, plies: int, rng: random.Random) -> list[str]:
    """RULES §6 modes 2-4: ``plies`` (1-3) moves drawn at random among the legal ones, from the
    start position, in machine form. Deterministic for a seeded ``rng``."""
    if plies not in (1, 2, 3):
        raise ValueError("a random opening has 1, 2 or 3 plies")
    rules = variant(variant_code)
    fen = rules.start_fen()
    moves: list[str] = []
    for _ in range(plies):
        legal = rules.legal_moves(fen)  # sorted, so the draw depends only on the seed
        move = rng.choice(legal)
        moves.append(move)
        fen = rules.apply(fen, move)
    return moves
