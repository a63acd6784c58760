"""The headers of a game's PGN (chess) or PDN (draughts), as players' programs read them
(docs/features.md, "PGN / PDN downloads"). Pure: the caller (games.selectors) gathers the facts
into a `GameRecord`.

PGN (PGN standard 8.1, and the tags lichess writes, which every reader knows): the Seven Tag
Roster in its order — Event, Site, Date, Round, White, Black, Result — then UTCDate, UTCTime,
WhiteElo, BlackElo, WhiteRatingDiff, BlackRatingDiff, TimeControl, Termination, ECO, Opening.
python-chess writes the roster first in that order whatever the dict's order; the rest keep
the order given here.

PDN (PDN 3.0 takes the PGN tags over): the same roster, then GameType (20 International,
21 English, 22 Italian: the variant's own `export` adds it, with FEN when the start is not
the standard one), TimeControl, WhiteRating and BlackRating (the names pydraughts' reader and
lidraughts use, not PGN's Elo), Termination, and Opening for a F.I.D. table opening an event
imposed (RULES 6).

A tag whose value is unknown is left out, except the roster's, which PGN requires: "?" (and
"????.??.??" for a date), "-" for a Round that does not apply (PGN 8.1.1.4).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from .base import Result
from .chess_openings import ChessOpening
from .variants import info

# PGN 8.1.1.3 / 9.8.1: the Termination tag's values, in the spelling lichess writes them.
NORMAL = "Normal"
TIME_FORFEIT = "Time forfeit"
ABANDONED = "Abandoned"
ADJUDICATION = "Adjudication"
UNTERMINATED = "Unterminated"

# Why a game ended (`games.models.EndReason` values) -> Termination. Every other end (mate,
# stalemate, a draw rule, resignation, an agreed draw, no legal move) is "Normal".
_TERMINATION = {
    "timeout": TIME_FORFEIT,
    "timeout_vs_insufficient_material": TIME_FORFEIT,
    "abandonment": ABANDONED,  # RULES 3: gone for 30 s
    "both_absent": ABANDONED,  # RULES 3: neither sat, nobody scores
    "aborted": ABANDONED,  # RULES 3: aborted before a player's first move, no result
    "event_end": ADJUDICATION,  # the event ended it and gave the result
}


def termination(reason: str, *, over: bool) -> str:
    """The Termination tag of a game that ended for `reason` (an `EndReason` value);
    "Unterminated" while it is not over."""
    if not over:
        return UNTERMINATED
    return _TERMINATION.get(reason, NORMAL)


@dataclass(frozen=True, slots=True)
class GameRecord:
    """What a game's headers say. Ratings are those at the start of the game; the diffs what
    the game changed on its own (None: not rated, not settled yet, or rated with its event as
    one period)."""

    variant: str  # 'chess', 'italian', 'english', 'international'
    event: str
    site: str  # the game page's absolute URL
    started_at: datetime  # aware
    white: str
    black: str
    result: Result | None  # None: not over, or nobody scored (RULES 3)
    reason: str  # an EndReason value, "" while live
    over: bool
    base_seconds: int
    increment_seconds: int
    round: str = "-"  # "3", "3.2" for the second game of a double pairing (RULES 4.5)
    white_rating: int | None = None
    black_rating: int | None = None
    white_rating_diff: int | None = None
    black_rating_diff: int | None = None
    chess_opening: ChessOpening | None = None
    fid_opening: str = ""  # the F.I.D. opening an event imposed, e.g. "FID 12, 1N"


def _diff(value: int) -> str:
    return f"+{value}" if value >= 0 else str(value)


def game_headers(record: GameRecord) -> dict[str, str]:
    """The headers, in the order they are written (Result is the variant export's: it writes
    it from the result it is given)."""
    when = record.started_at.astimezone(UTC)
    pgn = info(record.variant).export_format == "pgn"  # else PDN
    headers = {
        "Event": record.event or "?",
        "Site": record.site or "?",
        "Date": when.strftime("%Y.%m.%d"),
        "Round": record.round or "-",
        "White": record.white or "?",
        "Black": record.black or "?",
    }
    if pgn:
        headers["UTCDate"] = when.strftime("%Y.%m.%d")
        headers["UTCTime"] = when.strftime("%H:%M:%S")
    elo = ("WhiteElo", "BlackElo") if pgn else ("WhiteRating", "BlackRating")
    for tag, rating in zip(elo, (record.white_rating, record.black_rating), strict=True):
        if rating is not None:
            headers[tag] = str(rating)
    if pgn:
        diffs = (record.white_rating_diff, record.black_rating_diff)
        for tag, diff in zip(("WhiteRatingDiff", "BlackRatingDiff"), diffs, strict=True):
            if diff is not None:
                headers[tag] = _diff(diff)
    # PGN 9.6.1: seconds of the base and the increment per move, "600+5" (as lichess writes).
    headers["TimeControl"] = f"{record.base_seconds}+{record.increment_seconds}"
    headers["Termination"] = termination(record.reason, over=record.over)
    if pgn and record.chess_opening is not None:
        headers["ECO"] = record.chess_opening.eco
        headers["Opening"] = record.chess_opening.name
    if not pgn and record.fid_opening:
        headers["Opening"] = record.fid_opening
    return headers
