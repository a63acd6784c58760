"""The one list of variants: each variant's rules and what the site does with it.

Pure Python, like the rest of the rules. Everything that depends on which variant a game is
asks here rather than comparing codes: the rules lookup (``games.rules.variant``), the Django
choices (``games.models.Variant`` is built from this list), the export format, the board the
page draws, whether draws can be claimed, which F.I.D. openings apply, whether chess opening
names are looked up.

A new variant is one more ``VariantInfo`` in ``VARIANTS`` (and its rules). ``declare`` adds one
from outside this file (a test's toy variant): it must run before Django loads the apps, since
the choices are built once, when ``games.models`` is imported.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .base import Variant
from .chess_variant import Chess
from .draughts import ENGLISH, INTERNATIONAL, ITALIAN

ExportFormat = Literal["pgn", "pdn"]
BoardKind = Literal["chessground", "draughts"]
FidColumn = Literal["italian", "english"]

# The longest code the models' `variant` columns hold (Game, Challenge, PoolEntry: 16).
CODE_MAX_LENGTH = 16


def gettext_noop(text: str) -> str:
    """Marks a display name for translation (`makemessages` reads `gettext_noop(...)`);
    `games.models` translates it. Django's own would make the rules import Django."""
    return text


@dataclass(frozen=True, slots=True)
class VariantInfo:
    """One variant: its rules and what the site does with it."""

    rules: Variant
    # The display name in the site's source language (Italian), translated by the catalogs.
    label: str
    # How its games are written to a file: PGN (chess) or PDN (draughts). The rules' `export`
    # writes it; the headers (`export.game_headers`) and the file names follow it.
    export_format: ExportFormat
    # What the game page draws: chessground, or our SVG draughts board of `board_size` squares
    # a side (its squares' places are the rules' `board.coords`).
    board_kind: BoardKind
    board_size: int
    # Whether the side to move may claim a draw (chess: threefold repetition, fifty moves,
    # FIDE 9.2-9.3): the page offers the claim, the server checks `rules.claimable_draw`.
    draw_claims: bool
    # RULES 6: the column of the F.I.D. table of 174 openings this variant plays (its table
    # draws and thematic openings): "italian" (Italian numbering, the official classes) or
    # "english" (the three-move ballots, classes derived, not official). None: the table
    # does not apply, and an event of this variant offers only free and random openings.
    fid_table: FidColumn | None
    # The opening's ECO code and name are looked up as the game goes
    # (`chess_openings`, chess FENs).
    eco_openings: bool

    @property
    def code(self) -> str:
        return self.rules.code

    def __post_init__(self) -> None:
        if not self.code or len(self.code) > CODE_MAX_LENGTH:
            raise ValueError(f"a variant's code has 1 to {CODE_MAX_LENGTH} characters")
        if self.export_format not in ("pgn", "pdn"):
            raise ValueError(f"unknown export format {self.export_format!r}")
        if self.board_kind not in ("chessground", "draughts"):
            raise ValueError(f"unknown board {self.board_kind!r}")
        board = getattr(self.rules, "board", None)
        if self.board_kind == "draughts" and (board is None or board.size != self.board_size):
            raise ValueError("a draughts board is the rules' own board, of its size")
        if self.fid_table not in (None, "italian", "english"):
            raise ValueError(f"the F.I.D. table has no {self.fid_table!r} column")


# The list, in the order the site shows the variants. Only `declare` adds to it.
VARIANTS: list[VariantInfo] = [
    VariantInfo(
        rules=Chess(),
        label=gettext_noop("Scacchi"),
        export_format="pgn",
        board_kind="chessground",
        board_size=8,
        draw_claims=True,
        fid_table=None,
        eco_openings=True,
    ),
    VariantInfo(
        rules=ITALIAN,
        label=gettext_noop("Dama italiana"),
        export_format="pdn",
        board_kind="draughts",
        board_size=8,
        draw_claims=False,
        fid_table="italian",
        eco_openings=False,
    ),
    VariantInfo(
        rules=ENGLISH,
        label=gettext_noop("Dama inglese"),
        export_format="pdn",
        board_kind="draughts",
        board_size=8,
        draw_claims=False,
        fid_table="english",
        eco_openings=False,
    ),
    VariantInfo(
        rules=INTERNATIONAL,
        label=gettext_noop("Dama internazionale"),
        export_format="pdn",
        board_kind="draughts",
        board_size=10,
        draw_claims=False,
        fid_table=None,
        eco_openings=False,
    ),
]

_BY_CODE: dict[str, VariantInfo] = {v.code: v for v in VARIANTS}


def declare(new: VariantInfo) -> None:
    """Add a variant to the list, after the others. Before Django loads the apps (the
    choices are built then); a code already declared raises ValueError."""
    if new.code in _BY_CODE:
        raise ValueError(f"variant {new.code!r} is already declared")
    VARIANTS.append(new)
    _BY_CODE[new.code] = new


def codes() -> tuple[str, ...]:
    """Every variant's code, in the list's order."""
    return tuple(_BY_CODE)


def info(code: str) -> VariantInfo:
    """The variant with this code; KeyError for an unknown code."""
    try:
        return _BY_CODE[code]
    except KeyError:
        raise KeyError(f"unknown variant {code!r}; known: {', '.join(_BY_CODE)}") from None


def export_formats() -> tuple[ExportFormat, ...]:
    """The export formats in use, in the order the list first uses them ('pgn', 'pdn')."""
    return tuple(dict.fromkeys(v.export_format for v in VARIANTS))
