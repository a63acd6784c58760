"""`Game.row_stamp` kept by SQLite: an AFTER UPDATE trigger adds one to the stamp the row had.

PostgreSQL has its sequence and BEFORE trigger (games 0009). SQLite cannot change NEW in a
BEFORE trigger, and loses a table's triggers whenever a migration rebuilds the table (its way
of altering most columns), so the trigger is created by games 0014 and again, if missing,
after every `migrate` (`games/receivers.py`). Recursive triggers are off by default, so its
own UPDATE does not fire it again; a row's stamp only grows, and a stamp once seen never comes
back. Every move is written only where the row still carries the stamp it was decided from
(`games.services.play.game_move`).
"""

from __future__ import annotations

TRIGGER = "games_game_row_stamp"


def ensure_sqlite_trigger(connection, table: str) -> None:
    """Create the trigger on `table` unless it is there (SQLite only; nothing elsewhere)."""
    if connection.vendor != "sqlite":
        return
    quoted = connection.ops.quote_name(table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"CREATE TRIGGER IF NOT EXISTS {TRIGGER} AFTER UPDATE ON {quoted} FOR EACH ROW"
            f" BEGIN UPDATE {quoted} SET row_stamp = OLD.row_stamp + 1 WHERE id = OLD.id; END"
        )
