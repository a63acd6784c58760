"""The mover's clock after each move, for the PGN's [%clk] (issue 24): appended in SQL with the
moves (`games.services.store.GROWING`); empty for the games played before."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0010_lighter_move_writes"),
    ]

    operations = [
        migrations.AddField(
            model_name="game",
            name="clocks",
            field=models.JSONField(blank=True, default=list),
        ),
    ]
