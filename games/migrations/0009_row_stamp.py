"""`Game.row_stamp`: a new number from a sequence with every write of a game row, by anyone.

A BEFORE INSERT OR UPDATE trigger sets it, so no writer can forget it: the services, the
admin, a Celery task, a hand-typed UPDATE. A process that remembers a live game as it was at
stamp S writes a move from that memory only where the row still carries S
(`games.services.memory`). The sequence belongs to no column, so a flush that restarts the
tables' own sequences does not make a stamp come back. Rows written before keep 0 until their
next write: no process remembers a stamp it was not given by a write. SQLite (`make run`'s default) gets the
column only; the memory is not used there.
"""

from django.db import migrations, models

SEQUENCE = "games_game_row_stamp_seq"
FUNCTION = "games_game_row_stamp"
TRIGGER = "games_game_row_stamp"


def create(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    table = schema_editor.quote_name(apps.get_model("games", "Game")._meta.db_table)
    schema_editor.execute(f"CREATE SEQUENCE {SEQUENCE}")
    schema_editor.execute(
        f"CREATE FUNCTION {FUNCTION}() RETURNS trigger LANGUAGE plpgsql AS $$"
        f" BEGIN NEW.row_stamp := nextval('{SEQUENCE}'); RETURN NEW; END $$"
    )
    schema_editor.execute(
        f"CREATE TRIGGER {TRIGGER} BEFORE INSERT OR UPDATE ON {table}"
        f" FOR EACH ROW EXECUTE FUNCTION {FUNCTION}()"
    )


def drop(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    table = schema_editor.quote_name(apps.get_model("games", "Game")._meta.db_table)
    schema_editor.execute(f"DROP TRIGGER {TRIGGER} ON {table}")
    schema_editor.execute(f"DROP FUNCTION {FUNCTION}()")
    schema_editor.execute(f"DROP SEQUENCE {SEQUENCE}")


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0008_flag_not_indexed_hot_updates"),
    ]

    operations = [
        migrations.AddField(
            model_name="game",
            name="row_stamp",
            field=models.BigIntegerField(default=0, editable=False),
        ),
        migrations.RunPython(create, drop),
    ]
