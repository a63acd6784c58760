"""Chess opening names (ECO code and name), looked up by position.

The table is lichess's chess-openings data set (public domain, CC0; provenance and how to
refresh it in ``data/README.md``), kept as ``data/chess_openings.tsv``: one row per named
position with its ECO code, its name, the line that reaches it (PGN) and the position itself as
an EPD (a FEN without its two move counters, en passant only when a capture is possible: the
spelling of this package's canonical FEN, so the key of a game's position is its FEN's first
four fields).

Looking names up by position, not by move sequence, lets a transposition find its name. A
game's opening is the name of the last of its positions found in the table, as lichess names
games ("play moves backwards until a named position is found", the data set's README): a
position not in the table keeps the name found before it.

Pure: no Django. The table is read once per process, on first use, and never changes after.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import chess

from .chess_openings_it import italian

TABLE_PATH = Path(__file__).parent / "data" / "chess_openings.tsv"
COLUMNS = ("eco", "name", "pgn", "epd")


@dataclass(frozen=True, slots=True)
class ChessOpening:
    eco: str  # ECO code, A00-E99
    name: str  # English, "Family: Variation, Subvariation"
    pgn: str  # a line that reaches the position
    name_it: str = ""  # Italian where established (`chess_openings_it`), else the English name

    @property
    def label(self) -> str:
        """How players read it: `B90 Sicilian Defense: Najdorf Variation`."""
        return f"{self.eco} {self.name}"


@dataclass(frozen=True, slots=True)
class _Table:
    by_epd: dict[str, ChessOpening]
    max_plies: int  # the longest line in the table


@cache
def _table() -> _Table:
    by_epd: dict[str, ChessOpening] = {}
    max_plies = 0
    with TABLE_PATH.open(encoding="utf-8") as rows:
        header = next(rows).rstrip("\n").split("\t")
        if tuple(header) != COLUMNS:
            raise ValueError(f"{TABLE_PATH.name}: expected columns {COLUMNS}, got {header}")
        for row in rows:
            eco, name, pgn, epd = row.rstrip("\n").split("\t")
            by_epd[epd] = ChessOpening(eco, name, pgn, italian(name) or name)
            max_plies = max(max_plies, sum(1 for token in pgn.split() if token[0].isalpha()))
    return _Table(by_epd, max_plies)


def position_key(fen: str) -> str:
    """A FEN's key in the table: its first four fields (placement, side to move, castling,
    en passant). This package's FENs write en passant only when a capture is possible, as the
    table's EPDs do (`chess_variant._fen`)."""
    return fen.rsplit(" ", 2)[0] if fen.count(" ") >= 5 else " ".join(fen.split()[:4])


def named(fen: str) -> ChessOpening | None:
    """The opening named for exactly this position, or None."""
    return _table().by_epd.get(position_key(fen))


def max_plies() -> int:
    """How deep the table's longest line goes: past it in a game from the start, a position
    found would only be one reached again by moving pieces back and forth, which names
    nothing (lichess also stops looking after a fixed depth)."""
    return _table().max_plies


def opening_of(positions: Sequence[str]) -> ChessOpening | None:
    """The opening of a game whose positions (FENs, the start first) are `positions`: that of
    the last of the first `max_plies() + 1` positions found in the table (a position not in
    the table keeps the name found before it), or None if none is."""
    table = _table()
    for fen in reversed(positions[: table.max_plies + 1]):  # the last found is the name
        opening = table.by_epd.get(position_key(fen))
        if opening is not None:
            return opening
    return None


def named_at_ply(fen: str, ply: int) -> ChessOpening | None:
    """`named(fen)` for the position after `ply` plies of a game, skipping the lookup past
    the table's depth: what one move changes of the game's opening (None: unchanged). This is
    what runs on a live move."""
    table = _table()
    if ply > table.max_plies:
        return None
    return table.by_epd.get(position_key(fen))


# -- building the table from lichess's files ---------------------------------------------------


def rows_from_sources(texts: Iterable[str]) -> list[tuple[str, str, str, str]]:
    """The table's rows from the text of lichess's a.tsv ... e.tsv (columns eco, name, pgn):
    each line replayed with python-chess to its EPD. Raises ValueError for a bad file, an
    illegal move, or two rows naming the same position (the lookup needs one name each)."""
    rows: list[tuple[str, str, str, str]] = []
    seen: dict[str, str] = {}
    for text in texts:
        lines = text.splitlines()
        if not lines or lines[0].split("\t") != ["eco", "name", "pgn"]:
            raise ValueError("expected the columns eco, name, pgn")
        for line in lines[1:]:
            eco, name, pgn = line.split("\t")
            board = chess.Board()
            for token in pgn.split():
                if not token[0].isdigit():
                    board.push_san(token)
            epd = board.epd()
            if epd in seen:
                raise ValueError(f"{name!r} and {seen[epd]!r} name the same position")
            seen[epd] = name
            rows.append((eco, name, pgn, epd))
    return rows


def main(paths: Sequence[str]) -> int:
    """`python -m games.rules.chess_openings a.tsv b.tsv c.tsv d.tsv e.tsv > data/...tsv`"""
    texts = [Path(path).read_text(encoding="utf-8") for path in paths]
    sys.stdout.write("\t".join(COLUMNS) + "\n")
    for row in rows_from_sources(texts):
        sys.stdout.write("\t".join(row) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
