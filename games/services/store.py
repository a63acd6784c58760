"""The locked read and the write of a game row: the two statements of every live action.

Every message of a live game locks and rewrites one row. Through the ORM, building those two
queries (the row with both players, ~60 columns; the update of 17) cost more CPU than the rest
of a move together (bench/live.py), so the SQL is built once per process and database vendor
from the model's own metadata, and values go through each field's own converters, as the ORM
would do them (`tests`: the locked read equals the ORM's read field by field, on PostgreSQL
and on SQLite). Only the game row is locked (`FOR UPDATE OF`): the players' rows are read for
their names. This module touches two ORM internals, both public in practice and stable across
Django releases: `Model.from_db` and `Field.get_db_converters`.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.db import DatabaseError, transaction
from psycopg import Cursor

from games.models import Game
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
    "ply",
    "version",
    "draw_offer",
    "status",
    "result",
    "reason",
    "finished_at",
)
# Every concrete column but the primary key: what a full save writes.
ALL_FIELDS = tuple(f.name for f in Game._meta.concrete_fields if not f.primary_key)


class _GameSQL:
    def __init__(self, connection) -> None:
        qn = connection.ops.quote_name
        meta, user = Game._meta, get_user_model()._meta
        self.fields = list(meta.concrete_fields)
        self.attnames = [f.attname for f in self.fields]
        columns = ", ".join(f"g.{qn(f.column)}" for f in self.fields)
        username = qn(user.get_field(get_user_model().USERNAME_FIELD).column)
        lock = ""
        if connection.features.has_select_for_update:  # SQLite locks the whole database instead
            lock = (
                " FOR UPDATE OF g"
                if connection.features.has_select_for_update_of
                else " FOR UPDATE"
            )
        self.select = (
            f"SELECT {columns}, w.{username}, b.{username} FROM {qn(meta.db_table)} g"
            f" JOIN {qn(user.db_table)} w ON w.{qn(user.pk.column)} = g.{qn(meta.get_field('white').column)}"
            f" JOIN {qn(user.db_table)} b ON b.{qn(user.pk.column)} = g.{qn(meta.get_field('black').column)}"
            f" WHERE g.{qn(meta.pk.column)} = %s{lock}"
        )
        self.converters = [
            (connection.ops.get_db_converters(col) + f.get_db_converters(connection), col)
            for f in self.fields
            for col in [f.get_col(meta.db_table)]
        ]
        self.updates: dict[tuple[str, ...], tuple[str, list]] = {}
        self.qn, self.table, self.pk_column = qn, qn(meta.db_table), qn(meta.pk.column)

    def update(self, names: tuple[str, ...]) -> tuple[str, list]:
        if names not in self.updates:
            fields = [Game._meta.get_field(name) for name in names]
            sets = ", ".join(f"{self.qn(f.column)} = %s" for f in fields)
            self.updates[names] = (
                f"UPDATE {self.table} SET {sets} WHERE {self.pk_column} = %s",
                fields,
            )
        return self.updates[names]


def _execute(connection, sql: str, params: list, *, fetch: bool = False) -> Any:
    """Run one of the two statements; with PostgreSQL, as a prepared statement.

    Django's cursors bind parameters on the client and never prepare (for the sake of
    transaction-mode poolers), so PostgreSQL parsed and planned both statements afresh on
    every move: half its CPU time under load (bench/live.py). These two fixed statements go
    through a server-side binding psycopg cursor that prepares them once per connection
    (behind PgBouncer, use 1.21+ with `max_prepared_statements`). Errors are still Django's;
    only the debug query log does not see them."""
    if connection.vendor == "postgresql":
        connection.ensure_connection()
        raw = connection.connection
        if raw.prepare_threshold is None:  # Django's "never": only our cursors can prepare
            raw.prepare_threshold = 5
        with connection.wrap_database_errors, Cursor(raw) as cursor:
            cursor.execute(sql, params, prepare=True)
            return cursor.fetchone() if fetch else None
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone() if fetch else None


_sql_by_vendor: dict[str, _GameSQL] = {}


def _sql(connection) -> _GameSQL:
    sql = _sql_by_vendor.get(connection.vendor)
    if sql is None:
        sql = _sql_by_vendor[connection.vendor] = _GameSQL(connection)
    return sql


def lock_game(game_id: Any) -> Game:
    """The game row, locked until the end of the transaction, with its players' names.

    A GAME lock in the site's lock order (`live.locks`); raises GameNotFound for an unknown or
    unreadable id and `locks.LockTimeout` when another transaction holds the row too long."""
    try:
        game_id = int(game_id)
    except (TypeError, ValueError):
        raise GameNotFound(f"no game {game_id!r}") from None
    connection = locks.entering(locks.Rank.GAME)
    sql = _sql(connection)
    try:
        row = _execute(connection, sql.select, [game_id], fetch=True)
    except DatabaseError as error:
        if locks.is_lock_timeout(error):
            raise locks.LockTimeout(str(error)) from error
        raise
    if row is None:
        raise GameNotFound(f"no game {game_id!r}")
    values = list(row[: len(sql.fields)])
    for i, (converters, col) in enumerate(sql.converters):
        for converter in converters:
            values[i] = converter(values[i], col, connection)
    game = Game.from_db(connection.alias, sql.attnames, values)
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


def write_game(game: Game, fields: tuple[str, ...] | None = None) -> None:
    """`game.save(update_fields=fields)` of a locked, existing row, with SQL built once."""
    connection = transaction.get_connection()
    sql, field_objects = _sql(connection).update(tuple(fields or ALL_FIELDS))
    params = [f.get_db_prep_save(getattr(game, f.attname), connection) for f in field_objects]
    _execute(connection, sql, [*params, game.pk])
