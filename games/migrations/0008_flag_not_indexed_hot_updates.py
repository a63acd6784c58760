"""A move rewrites the game row: let PostgreSQL do it as a heap-only (HOT) update.

Two conditions (PostgreSQL docs, "Heap-Only Tuples"): no indexed column changes — `flag_at_ms`,
which moves with every move, loses its index — and the new row version fits on the same page:
the table keeps a fifth of each page free (fillfactor 80) for the versions a game's moves
write. SQLite (the `make run` default) has neither, so there it only drops the index.
"""

from django.db import migrations, models


def fillfactor(value: int):
    def apply(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            table = schema_editor.quote_name(apps.get_model("games", "Game")._meta.db_table)
            schema_editor.execute(f"ALTER TABLE {table} SET (fillfactor = {value})")

    return apply


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0007_pool_entry"),
    ]

    operations = [
        migrations.AlterField(
            model_name="game",
            name="flag_at_ms",
            field=models.BigIntegerField(blank=True, null=True),
        ),
        migrations.RunPython(fillfactor(80), fillfactor(100)),
    ]
