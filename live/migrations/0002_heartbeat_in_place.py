"""The presence heartbeat rewrites its rows in place (issue 17).

Every socket process rewrites `seen_ms` of all its rows every few seconds. With `seen_ms`
indexed, each of those row updates added an entry to each of the table's six indexes; without
it, and with room left on every page (fillfactor 50: a table of one row per open socket), the
update is a HOT one, written on the row's own page with no index touched. `key` stays unique by
a constraint, without the LIKE-pattern index `unique=True` adds on PostgreSQL.
"""

from django.conf import settings
from django.db import migrations, models


def fillfactor(percent):
    def apply(apps, schema_editor):
        if schema_editor.connection.vendor != "postgresql":
            return
        table = schema_editor.quote_name(apps.get_model("live", "Connection")._meta.db_table)
        schema_editor.execute(f"ALTER TABLE {table} SET (fillfactor = {percent})")

    return apply


class Migration(migrations.Migration):
    dependencies = [
        ("live", "0001_initial"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AlterField(
            model_name="connection",
            name="key",
            field=models.CharField(max_length=200),
        ),
        migrations.AlterField(
            model_name="connection",
            name="seen_ms",
            field=models.BigIntegerField(),
        ),
        migrations.AddConstraint(
            model_name="connection",
            constraint=models.UniqueConstraint(fields=("key",), name="live_connection_key"),
        ),
        migrations.RunPython(fillfactor(50), fillfactor(100)),
    ]
