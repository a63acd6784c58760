"""`Game.row_stamp` on SQLite too: every move, on either database, is one UPDATE written only
where the row still carries the stamp it was decided from (`games.services.play.game_move`).

SQLite cannot change NEW in a BEFORE trigger, so an AFTER UPDATE trigger adds one to the stamp
the row had (recursive triggers are off by default, so its own UPDATE does not fire it again).
A row's stamp only grows: a stamp once seen never comes back. Inserts keep 0 (a game's first
move reads the row first). PostgreSQL has had its sequence and trigger since games 0009.
"""

from django.db import migrations

TRIGGER = "games_game_row_stamp"


def create(apps, schema_editor):
    if schema_editor.connection.vendor != "sqlite":
        return
    table = schema_editor.quote_name(apps.get_model("games", "Game")._meta.db_table)
    schema_editor.execute(
        f"CREATE TRIGGER {TRIGGER} AFTER UPDATE ON {table} FOR EACH ROW"
        f" BEGIN UPDATE {table} SET row_stamp = OLD.row_stamp + 1 WHERE id = OLD.id; END"
    )


def drop(apps, schema_editor):
    if schema_editor.connection.vendor != "sqlite":
        return
    schema_editor.execute(f"DROP TRIGGER {TRIGGER}")


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0013_clocks_label"),
    ]

    operations = [migrations.RunPython(create, drop)]
