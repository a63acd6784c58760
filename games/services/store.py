"""The reads and writes of a game row: the statements of every live action.

Every message of a live game reads and rewrites one row: a move with one conditional UPDATE
(`write_move_if_unchanged`, after `read_game` when the process does not remember the game),
every other action with a locked read (`lock_game`) and a write (`write_game`). Through the ORM, building those two
queries (the row with both players, ~60 columns; the update of 17) cost more CPU than the rest
of a move together (bench/live.py), so the SQL is built once per process and database vendor
from the model's own metadata, and values go through each field's own converters, as the ORM
would do them (`tests`: the locked read equals the ORM's read field by field, on PostgreSQL
and on SQLite). Only the game row is locked (`FOR UPDATE OF`): the players' rows are read for
their names. What it uses of Django beyond the querying API: `Model.from_db`, `Model._meta`
(documented), `Field.get_db_prep_save`, `Field.get_db_converters`, `Field.set_cached_value` (a
foreign key's cache), `connection.ops.quote_name` and `get_db_converters`, and
`connection.cursor()`. On PostgreSQL the connection binds on the server and psycopg prepares a
statement once it has run a few times (DATABASE_URL's `server_side_binding` and
`prepare_threshold`, config/env.py), so both statements are parsed and planned once per
connection. All are read or called, never replaced; tests/test_store.py checks the reads
against the ORM's.
"""

from __future__ import annotations

import json
from typing import Any

from django.contrib.auth import get_user_model
from django.db import DatabaseError, transaction

from games.models import Game, Status
from games.services.errors import GameNotFound
from live import locks

# What a move, a flag or any end can change: a move writes only these columns (a smaller
# UPDATE to build and send on the hottest path).
PLAY_FIELDS = (
    "white_ms",
    "black_ms",
    "white_increment_ms",
    "black_increment_ms",
    "clock_running",
    "clock_since_ms",
    "flag_at_ms",
    "fen",
    "moves",
    "positions",
    "notation",
    "clocks",
    "ply",
    "version",
    "draw_offer",
    "takeback_offer",
    "status",
    "result",
    "reason",
    "finished_at",
)
# Every concrete column but the primary key: what a full save writes.
ALL_FIELDS = tuple(f.name for f in Game._meta.concrete_fields if not f.primary_key)


# The move list, its notation and the clock after each move only ever grow: a move appends to
# them in SQL and never reads them (at ply 80 they were most of the row read, encoded and
# written on every move).
GROWING = ("moves", "notation", "clocks")
# What only the end of a game changes.
END_FIELDS = ("status", "result", "reason", "finished_at")
# What a move that does not end the game sets (the lists it grows aside): what a move from
# memory writes (`games.services.memory`).
MOVE_COLUMNS = tuple(f for f in PLAY_FIELDS if f not in (*GROWING, "positions", *END_FIELDS))
# The columns a move reads, in the model's order (`Model.from_db` takes them so): the players,
# the variant, the clocks, the position and the positions before it (repetitions), the ply,
# the version, the draw offer, whether the game is live, and the row's stamp, which the move's
# conditional UPDATE checks (`write_move_if_unchanged`). What a process remembers of a live
# game (`games.services.memory`).
_MOVE_READ = {"id", "variant", "base_seconds", "white_id", "black_id", "positions", "row_stamp"}
_MOVE_READ |= {*MOVE_COLUMNS, "status", "result", "reason"}
MOVE_READ = tuple(f.attname for f in Game._meta.concrete_fields if f.attname in _MOVE_READ)
# What a move that ends the game sets besides (`games.services.acting.finish`).
ENDING_MOVE_COLUMNS = (*MOVE_COLUMNS, *END_FIELDS)


class _Select:
    """The read of the game row, of some of its columns: locked and with its players' names
    (`lock_game`), or neither (`read_game`)."""

    def __init__(self, connection, fields: list, *, locked: bool = True) -> None:
        qn = connection.ops.quote_name
        meta, user = Game._meta, get_user_model()._meta
        self.fields = fields
        self.attnames = [f.attname for f in fields]
        columns = ", ".join(f"g.{qn(f.column)}" for f in fields)
        username = qn(user.get_field(get_user_model().USERNAME_FIELD).column)
        lock = ""
        if locked and connection.features.has_select_for_update:  # SQLite locks the database
            lock = (
                " FOR UPDATE OF g"
                if connection.features.has_select_for_update_of
                else " FOR UPDATE"
            )
        self.players = locked
        players = (
            f", w.{username}, b.{username} FROM {qn(meta.db_table)} g"
            f" JOIN {qn(user.db_table)} w ON w.{qn(user.pk.column)} = g.{qn(meta.get_field('white').column)}"
            f" JOIN {qn(user.db_table)} b ON b.{qn(user.pk.column)} = g.{qn(meta.get_field('black').column)}"
            if locked
            else f" FROM {qn(meta.db_table)} g"
        )
        self.sql = f"SELECT {columns}{players} WHERE g.{qn(meta.pk.column)} = %s{lock}"
        # Only the columns that have converters (JSON, booleans on SQLite…), with their index.
        self.converters = [
            (i, converters, col)
            for i, f in enumerate(fields)
            for col in [f.get_col(meta.db_table)]
            for converters in [
                connection.ops.get_db_converters(col) + f.get_db_converters(connection)
            ]
            if converters
        ]


class _GameSQL:
    def __init__(self, connection) -> None:
        meta = Game._meta
        self.vendor = connection.vendor
        fields = list(meta.concrete_fields)
        self.full = _Select(connection, fields)
        self.move = _Select(connection, [f for f in fields if f.attname in MOVE_READ], locked=False)
        self.updates: dict[tuple, tuple[str, list]] = {}
        self.qn, self.table = connection.ops.quote_name, connection.ops.quote_name(meta.db_table)
        self.pk_column = self.qn(meta.pk.column)

    def update(
        self, names: tuple[str, ...], appended: tuple[str, ...] = (), *, if_unchanged: bool = False
    ) -> tuple[str, list]:
        """UPDATE of `names` set to values, and of `appended` JSON lists grown by a list
        (PostgreSQL's `jsonb || jsonb`); on PostgreSQL it returns the row's new `row_stamp`.
        `if_unchanged` adds `AND row_stamp = %s AND ply = %s AND status = %s` (the write of a
        move, `write_move_if_unchanged`)."""
        key = (names, appended, if_unchanged)
        if key not in self.updates:
            qn = self.qn
            fields = [Game._meta.get_field(name) for name in names]
            sets = [f"{qn(f.column)} = %s" for f in fields]
            grown = [qn(Game._meta.get_field(name).column) for name in appended]
            if self.vendor == "postgresql":
                sets += [f"{column} = {column} || %s::jsonb" for column in grown]
            else:  # SQLite's JSON is text: one item appended (`_grown`)
                sets += [f"{column} = json_insert({column}, '$[#]', json(%s))" for column in grown]
            where = f"{self.pk_column} = %s"
            if if_unchanged:
                where += "".join(f" AND {qn(name)} = %s" for name in UNCHANGED)
            # SQLite's RETURNING would give the stamp from before its trigger (games 0014):
            # there the new stamp is the old one plus one (`write_move_if_unchanged`).
            returning = f" RETURNING {qn('row_stamp')}" if self.vendor == "postgresql" else ""
            self.updates[key] = (
                f"UPDATE {self.table} SET {', '.join(sets)} WHERE {where}{returning}",
                fields,
            )
        return self.updates[key]


# What a move's write finds unchanged, or writes nothing: the row's stamp (no write since the
# row the move was decided from), and, said again in the statement itself, the ply the move
# was played at and the live status.
UNCHANGED = ("row_stamp", "ply", "status")


def _execute(connection, sql: str, params: list, *, fetch: bool = False) -> Any:
    """Run one of the statements through Django's cursor: its first row when `fetch`, else the
    number of rows it changed. With PostgreSQL the connection
    binds on the server and psycopg prepares a statement it has run a few times (config/env.py):
    parsed and planned afresh on every move, these two were half of PostgreSQL's CPU under load
    (bench/live.py). Behind PgBouncer, use 1.21+ with `max_prepared_statements`, or set
    `prepare_threshold=none`."""
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone() if fetch else cursor.rowcount


def _execute_locking(connection, sql: str, params: list, *, fetch: bool = True) -> Any:
    """`_execute` of a statement that locks the game row: a lock held too long by another
    transaction is `locks.LockTimeout`."""
    try:
        return _execute(connection, sql, params, fetch=fetch)
    except DatabaseError as error:
        if locks.is_lock_timeout(error):
            raise locks.LockTimeout(str(error)) from error
        raise


_sql_by_vendor: dict[str, _GameSQL] = {}


def _sql(connection) -> _GameSQL:
    sql = _sql_by_vendor.get(connection.vendor)
    if sql is None:
        sql = _sql_by_vendor[connection.vendor] = _GameSQL(connection)
    return sql


def _game_id(game_id: Any) -> int:
    try:
        return int(game_id)
    except (TypeError, ValueError):
        raise GameNotFound(f"no game {game_id!r}") from None


def _game_from_row(connection, select: _Select, row: Any, game_id: Any) -> Game:
    """The model object of a row read by `select`, built by Django (`Model.from_db`), its
    columns through their fields' converters, its players' names cached when read."""
    if row is None:
        raise GameNotFound(f"no game {game_id!r}")
    values = list(row[: len(select.fields)])
    for i, converters, col in select.converters:
        for converter in converters:
            values[i] = converter(values[i], col, connection)
    game = Game.from_db(connection.alias, select.attnames, values)
    if select.players:
        user_model = get_user_model()
        for field, user_id, name in (
            (Game.white.field, game.white_id, row[-2]),
            (Game.black.field, game.black_id, row[-1]),
        ):
            player = user_model.from_db(
                connection.alias, ["id", user_model.USERNAME_FIELD], [user_id, name]
            )
            field.set_cached_value(game, player)
    return game


def lock_game(game_id: Any) -> Game:
    """The game row, locked until the end of the transaction, with its players' names.

    A GAME lock in the site's lock order (`live.locks`); raises GameNotFound for an unknown or
    unreadable id and `locks.LockTimeout` when another transaction holds the row too long."""
    game_id = _game_id(game_id)
    connection = locks.entering(locks.Rank.GAME)
    select = _sql(connection).full
    return _game_from_row(
        connection, select, _execute_locking(connection, select.sql, [game_id]), game_id
    )


def read_game(game_id: Any) -> Game:
    """The columns of the game row a move reads (MOVE_READ), not locked: what a move is decided
    from when the process does not remember the game, one committed version of the row with
    its stamp. Raises GameNotFound."""
    game_id = _game_id(game_id)
    connection = transaction.get_connection()
    select = _sql(connection).move
    return _game_from_row(
        connection, select, _execute(connection, select.sql, [game_id], fetch=True), game_id
    )


def write_game(
    game: Game,
    fields: tuple[str, ...] | None = None,
    appended: dict[str, list] | None = None,
) -> None:
    """`game.save(update_fields=fields)` of a locked, existing row, with SQL built once.

    `appended` grows JSON list columns by the given items without sending (or having read) the
    whole list: in SQL on PostgreSQL; elsewhere (SQLite, the embedded default) the lists are
    read, grown and written whole. `game.row_stamp` becomes the row's new stamp
    (`Game.row_stamp`)."""
    connection = transaction.get_connection()
    sql = _sql(connection)
    appended = appended or {}
    names = tuple(n for n in (fields or ALL_FIELDS) if n not in appended)
    for name, items in appended.items():  # the object stays what the row is
        if name in game.__dict__ or sql.vendor != "postgresql":  # loaded, or to be written whole
            setattr(game, name, [*getattr(game, name), *items])
    if appended and sql.vendor != "postgresql":
        names, appended = names + tuple(appended), {}
    statement, field_objects = sql.update(names, tuple(appended))
    params = [f.get_db_prep_save(getattr(game, f.attname), connection) for f in field_objects]
    params += [json.dumps(items) for items in appended.values()]
    if sql.vendor == "postgresql":
        game.row_stamp = _execute(connection, statement, [*params, game.pk], fetch=True)[0]
    else:  # SQLite's trigger adds one to the stamp of the row locked and read (games 0014)
        _execute(connection, statement, [*params, game.pk])
        game.row_stamp += 1


def write_move_if_unchanged(
    game: Game,
    fields: tuple[str, ...],
    appended: dict[str, list],
    *,
    stamp: int,
    ply: int,
) -> int | None:
    """Write a move (`games.services.play.game_move`): one UPDATE of `fields` (and `appended`
    grown) where the row still carries `stamp`, is at `ply` and is live. Returns the row's new
    stamp, or None when the row is no longer the one the move was decided from (then nothing
    was written).

    The statement locks the row as any UPDATE does, for itself alone or, inside a transaction,
    to its end (a GAME lock in `live.locks`' order); a row locked by another transaction is
    waited for and then checked as it is after that transaction; too long a wait is
    `locks.LockTimeout`."""
    connection = transaction.get_connection()
    if locks.in_code_transaction():
        locks.entering(locks.Rank.GAME)
    sql = _sql(connection)
    statement, field_objects, params = _move_statement(sql, game, fields, appended, stamp, ply)
    # Each column's value as Django prepares it for psycopg; the statement prepared once per
    # connection (`_execute`).
    values = [f.get_db_prep_save(getattr(game, f.attname), connection) for f in field_objects]
    params = [*values, *params[len(values) :]]
    if sql.vendor != "postgresql":  # no RETURNING of the trigger's stamp (games 0014)
        changed = _execute_locking(connection, statement, params, fetch=False)
        return stamp + 1 if changed else None
    row = _execute_locking(connection, statement, params)
    return None if row is None else row[0]


def _move_statement(sql, game, fields, appended, stamp, ply) -> tuple[str, list, list]:
    """The UPDATE of a move, its fields, and its parameters as the columns' own values
    (integers, text or NULL), the grown lists' JSON and the WHERE's keys. The values are read
    from the object's own dict: a move's game holds every column it writes (MOVE_READ, and
    `finished_at` set by the end), and this runs on every move."""
    statement, field_objects = sql.update(fields, tuple(appended), if_unchanged=True)
    values = game.__dict__
    params = [values[f.attname] for f in field_objects]
    params += [_grown(sql.vendor, items) for items in appended.values()]
    params += [game.pk, stamp, ply, Status.LIVE.value]
    return statement, field_objects, params


def _grown(vendor: str, items: list) -> str:
    """The parameter that grows a JSON list by `items` (`_GameSQL.update`): the items as a
    JSON list on PostgreSQL, the one item a move appends on SQLite."""
    if vendor == "postgresql":
        return _json_list(items)
    (item,) = items
    return json.dumps(item)


_quote = json.encoder.encode_basestring_ascii  # json.dumps's own quoting of a string (in C)


def _json_list(items: list) -> str:
    """`json.dumps(items)` for what a move appends: strings (its move, the position before
    it), lists of strings (its notation), quoted by json's own C function, or integers (the
    clock after it); anything else through `json.dumps`. Three `json.dumps` calls were half of
    building a move's statement."""
    parts = []
    for item in items:
        if type(item) is str:
            parts.append(_quote(item))
        elif type(item) is int:
            parts.append(str(item))
        elif type(item) is list and all(type(part) is str for part in item):
            parts.append("[" + ", ".join(map(_quote, item)) + "]")
        else:
            return json.dumps(items)
    return "[" + ", ".join(parts) + "]"
