"""The live games a socket process remembers, so that a move is decided without reading the
row first (`play.game_move`; docs/architecture.md, walk 1).

Why: a move decided from a read costs two statements (the read of the row, the UPDATE); from
memory it is the UPDATE alone, its own transaction.

What is remembered: exactly the columns a move reads (`READ`, `store.MOVE_READ`), as the row was
at a stamp (`Game.row_stamp`) this process was given: by its own write of the game (a move, or
any service's through `acting.save_and_push`), by a read of the row (a socket's connect,
`sync`, a move's read), or by the push of a write made by another process, applied on top of
the version before it (`heard`). Nothing else is ever read from a remembered game.

Why memory can be trusted: the database gives the row a new stamp with every write, whoever
writes (a trigger, games 0009 and 0014). A move is written only `WHERE row_stamp = S AND
ply = p AND status = 'live'`, S the stamp of the version it was decided from: when that UPDATE
writes, the row, locked by the statement itself, was exactly that version, so whose turn it is,
the fallen flag, the ply, the legality, the clocks and the repetitions were all decided from the
row as it is. When it writes nothing, or memory would refuse the move, the move is decided again
from the row read afresh. So a memory that is late or gone costs at most that second read.
What makes a remembered stamp and its columns belong together: they are taken from one row
image — a write's own object with the stamp its UPDATE returned, a read of the row, or the
push its writer sent with both. The one column a push does not carry is the list of positions:
a move appends one (the position before it, checked to be the one remembered) and no other
write changes it, so a process that follows a move appends the same one.

Shared by the event loop (`heard`) and the socket threads (the moves): every change is a whole
new object put in place under a lock; a remembered game is never changed in place. PostgreSQL
only: on SQLite (`make run`'s default) every move reads the row.
"""

from __future__ import annotations

import operator
import threading
from typing import Any

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections

from games.models import Game, Status
from games.rules import variant
from games.services.store import MOVE_COLUMNS, MOVE_READ

# What a move changes of the columns it reads but the positions (grown by the position before
# the move), and all that any other write of a live game may change of them: what the push of
# a write carries for other processes (`image`, `heard`).
MOVED = ("row_stamp", *MOVE_COLUMNS)
READ = MOVE_READ
_read_values = operator.itemgetter(*READ)  # a remembered game's columns, in one call (`_copy`)
# At most this many games are remembered (the oldest remembered go first): a few kB each.
LIMIT = 20_000

_games: dict[int, Game] = {}
_lock = threading.Lock()
# Moves of this process written as decided from memory or from a read of the row, and writes
# that found the row written since (decided again): for the tests and the benchmark. Counted
# without a lock (approximate under threads).
counts = {"remembered": 0, "read": 0, "changed": 0}


def enabled() -> bool:
    return settings.GAMES_IN_MEMORY and connections[DEFAULT_DB_ALIAS].vendor == "postgresql"


def _copy(game: Game, changes: dict[str, Any] | None = None) -> Game:
    """A new model object holding only READ (the other columns deferred: they load from the
    database if asked for), with `changes`: built by Django (`Model.from_db`, as a query would
    build it). Measured against building it by hand past `Model.__init__`: 13 µs against 2 µs
    a copy, one copy a move, under 1% of a move's CPU (bench/live.py)."""
    copy = Game.from_db(DEFAULT_DB_ALIAS, READ, _read_values(game.__dict__))
    for name, value in (changes or {}).items():
        setattr(copy, name, value)
    return copy


def recall(game_id: int) -> Game | None:
    """The game as remembered (never to be changed)."""
    return _games.get(game_id) if enabled() else None


def take(game_id: int) -> tuple[Game, Any] | None:
    """What a move is decided from, when the game is remembered: a copy of the game as
    remembered (the caller's to play on) and the board held for its position (given up to the
    caller, or None: the rules read the FEN)."""
    known = recall(game_id)
    if known is None:
        return None
    return _copy(known), _board_taken(known.fen)


def _put(game: Game) -> None:
    """Under the lock: `game` replaces what is remembered unless that is newer."""
    known = _games.get(game.pk)
    if known is not None and known.version > game.version:
        return
    if known is None and len(_games) >= LIMIT:
        del _games[next(iter(_games))]
    _games[game.pk] = game


def remember(game: Game, *, board: Any = None, moved: bool = False) -> dict[str, Any] | None:
    """Remember `game` as this process just wrote or read it (its `row_stamp` is the row's),
    with `board`, what the rules gave for its position, for the next move here. A game that is
    over, or a row not read whole, is forgotten instead.

    Returns the `image` of the write for its push (`moved`: a move's), which the other
    processes that remember the game follow (`heard`), whether or not this one remembers;
    None when the game is over."""
    row = image(game, moved=moved)
    if not enabled():
        return row
    values = game.__dict__
    if (
        values.get("status") != Status.LIVE
        or not values.get("row_stamp")
        or any(name not in values for name in READ)
    ):
        forget(game.pk)  # over, not stamped, or not read whole: not to be trusted
        return row
    copy = _copy(game)
    with _lock:
        _put(copy)
    _board_kept(game.fen, board)
    return row


def forget(game_id: int, stamp: int | None = None) -> None:
    """Forget the game (only if it is still remembered at `stamp`, when given)."""
    with _lock:
        known = _games.get(game_id)
        if known is not None and (stamp is None or known.row_stamp == stamp):
            del _games[game_id]


def clear() -> None:
    with _lock:
        _games.clear()
    _boards.clear()


# --- the boards moves left, for the next move ---------------------------------------------------
# The next move on a game comes to the process that played the last one, or to one that heard
# its push: the rules hand back the board a move reached (`Played.board`, chess) or make it from
# the push's bitboards (`Variant.board_of`), and given it the next `play` from that position
# need not read the FEN again (games/rules/chess_variant.py says what it saves). They are held
# here, with the games they belong to, not in the rules, which keep nothing: kept by
# `remember`, given up by `take`. Keyed by the whole FEN, so equal keys are the same position
# whichever game reached it; each board is taken once (the taker plays on it).
_boards: dict[str, Any] = {}
BOARDS_LIMIT = 4096  # positions waiting for their next move; the oldest go first


def _board_taken(fen: str) -> Any:
    """The board held for `fen`, given up to the caller (None if none)."""
    return _boards.pop(fen, None)


def _board_kept(fen: str, board: Any) -> None:
    """Hold `board` (what the rules gave for `fen`) for the next move from `fen` here."""
    if board is None:
        return
    _boards[fen] = board
    if len(_boards) > BOARDS_LIMIT:
        try:  # another thread may be taking the same oldest one
            del _boards[next(iter(_boards))]
        except (KeyError, RuntimeError, StopIteration):
            pass


def boards_held() -> list[str]:
    """The positions a board is held for, oldest first (tests)."""
    return list(_boards)


def image(game: Game, *, moved: bool = True) -> dict[str, Any] | None:
    """What the push of a write of a live game carries for the other processes that remember
    it: the columns of READ a write may change (MOVED), and for a move the position before it
    (which the move added to the positions). None once the game is over (they forget it),
    without a stamp, or when the object does not hold those columns."""
    values = game.__dict__
    if game.status != Status.LIVE or not values.get("row_stamp"):
        return None
    if any(name not in values for name in MOVED) or (moved and "positions" not in values):
        return None
    row = {name: values[name] for name in MOVED}
    if moved:
        row["before"] = game.positions[-1]
    return row


def heard(game_id: int, version: Any, row: dict[str, Any] | None) -> None:
    """A game's push reached this process (a socket of the game here got it): the new state at
    `version`, with the `image` of the write when the game is live.

    A write right after the version remembered — a move from the position remembered, or any
    other write at the same ply (presence, a draw offer, boost: the positions unchanged) —
    moves the memory on; news older than the memory changes nothing; anything else (the end,
    a gap) makes the process forget the game, until its next read or write of the row."""
    known = _games.get(game_id)
    if known is None or not isinstance(version, int) or version <= known.version:
        return
    after = None
    if (
        row is not None
        and version == known.version + 1 == row.get("version")
        and all(name in row for name in MOVED)
    ):
        changes = {name: row[name] for name in MOVED}
        if "before" in row:
            if row["ply"] == known.ply + 1 and row["before"] == known.fen:
                changes["positions"] = [*known.positions, known.fen]
                after = _copy(known, changes)
                if "position" in row and row["fen"] not in _boards:
                    # The next move here finds the board (rules `board_of`).
                    _board_kept(
                        row["fen"], variant(known.variant).board_of(row["fen"], row["position"])
                    )
        elif row["ply"] == known.ply and row["fen"] == known.fen:
            after = _copy(known, changes)
    with _lock:
        if _games.get(game_id) is not known:
            return  # a socket thread wrote meanwhile: what it remembered stands
        if after is None:
            del _games[game_id]
        else:
            _games[game_id] = after
