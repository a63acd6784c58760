"""A move's UPDATE of the game row does less (issue 17, bench/live.py).

- `status` and `event_type` lose their own indexes: the indexes on (status, white/black_away_
  since_ms) and on (event_type, event_id) serve the same lookups, and each index of the table
  is one more entry to write whenever a move cannot be written in place on its page.
- The nine CHECK constraints (two players, and eight columns `>= 0`) become one saying the same:
  PostgreSQL prepares each CHECK of a table afresh for every UPDATE.
"""

import django.db.models.deletion
import games.models
from django.conf import settings
from django.db import migrations, models


# The columns whose own `>= 0` CHECK goes (Django's AlterField keeps a field's CHECK as long as
# its internal type is the same, so they are dropped here).
COUNTED = (
    "base_seconds",
    "increment_seconds",
    "opening_number",
    "ply",
    "version",
    "white_connections",
    "black_connections",
    "event_id",
)


def drop_column_checks(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return  # SQLite rebuilds the table from the new fields, which have no CHECK of their own
    game = apps.get_model("games", "Game")
    for column in COUNTED:
        for name in schema_editor._constraint_names(
            game, [column], check=True, exclude={"games_game_sound"}
        ):
            schema_editor.execute(schema_editor._delete_check_sql(game, name))


def add_column_checks(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    table = schema_editor.quote_name(apps.get_model("games", "Game")._meta.db_table)
    for column in COUNTED:
        name = schema_editor.quote_name(f"games_game_{column}_check")
        schema_editor.execute(
            f"ALTER TABLE {table} ADD CONSTRAINT {name}"
            f" CHECK ({schema_editor.quote_name(column)} >= 0)"
        )


class Migration(migrations.Migration):

    dependencies = [
        ('contenttypes', '0002_remove_content_type_name'),
        ('games', '0009_row_stamp'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name='game',
            name='games_game_two_players',
        ),
        migrations.AlterField(
            model_name='game',
            name='base_seconds',
            field=games.models.NonNegativeInteger(verbose_name='tempo base (s)'),
        ),
        migrations.AlterField(
            model_name='game',
            name='black_connections',
            field=games.models.NonNegativeInteger(default=0),
        ),
        migrations.AlterField(
            model_name='game',
            name='event_id',
            field=games.models.NonNegativeBigInteger(blank=True, null=True),
        ),
        migrations.AlterField(
            model_name='game',
            name='event_type',
            field=models.ForeignKey(blank=True, db_index=False, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='contenttypes.contenttype'),
        ),
        migrations.AlterField(
            model_name='game',
            name='increment_seconds',
            field=games.models.NonNegativeInteger(verbose_name='incremento (s)'),
        ),
        migrations.AlterField(
            model_name='game',
            name='opening_number',
            field=games.models.NonNegativeSmallInteger(blank=True, null=True, verbose_name='apertura F.I.D.'),
        ),
        migrations.AlterField(
            model_name='game',
            name='ply',
            field=games.models.NonNegativeInteger(default=0, verbose_name='semimosse'),
        ),
        migrations.AlterField(
            model_name='game',
            name='status',
            field=models.CharField(choices=[('live', 'In corso'), ('finished', 'Finita')], default='live', max_length=10, verbose_name='stato'),
        ),
        migrations.AlterField(
            model_name='game',
            name='version',
            field=games.models.NonNegativeInteger(default=0),
        ),
        migrations.AlterField(
            model_name='game',
            name='white_connections',
            field=games.models.NonNegativeInteger(default=0),
        ),
        migrations.AddConstraint(
            model_name='game',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('white', models.F('black')), _negated=True), ('base_seconds__gte', 0), ('black_connections__gte', 0), ('increment_seconds__gte', 0), ('ply__gte', 0), ('version__gte', 0), ('white_connections__gte', 0), models.Q(('opening_number__isnull', True), ('opening_number__gte', 0), _connector='OR'), models.Q(('event_id__isnull', True), ('event_id__gte', 0), _connector='OR')), name='games_game_sound'),
        ),
        migrations.RunPython(drop_column_checks, add_column_checks),
    ]
