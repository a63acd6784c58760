"""`Game.row_stamp` on SQLite too (`games.row_stamp`): every move, on either database, is one
UPDATE written only where the row still carries the stamp it was decided from. PostgreSQL has
had its sequence and trigger since games 0009."""

from django.db import migrations

from games.row_stamp import TRIGGER, ensure_sqlite_trigger


def create(apps, schema_editor):
    table = apps.get_model("games", "Game")._meta.db_table
    ensure_sqlite_trigger(schema_editor.connection, table)


def drop(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        schema_editor.execute(f"DROP TRIGGER IF EXISTS {TRIGGER}")


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0013_clocks_label"),
    ]

    operations = [migrations.RunPython(create, drop)]
