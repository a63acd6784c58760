"""Issue 12: a version on every game state, the rating decision fixed on the game, `settled`
(every game_finished receiver ran), and presence rows moved to the live layer."""

from django.conf import settings
from django.db import migrations, models


def move_connections(apps, schema_editor):
    """Open sockets of the old table become live.Connection rows on the game's topic."""
    old = apps.get_model("games", "GameConnection")
    Connection = apps.get_model("live", "Connection")
    rows = []
    for row in old.objects.select_related("game"):
        user_id = row.game.white_id if row.color == "white" else row.game.black_id
        rows.append(
            Connection(key=row.key, topic=f"game:{row.game_id}", user_id=user_id, seen_ms=row.seen_ms)
        )
    Connection.objects.bulk_create(rows, ignore_conflicts=True)


def settle_finished(apps, schema_editor):
    apps.get_model("games", "Game").objects.filter(status="finished").update(settled=True)


class Migration(migrations.Migration):

    dependencies = [
        ('contenttypes', '0002_remove_content_type_name'),
        ('games', '0003_game_connection'),
        ('live', '0001_initial'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RunPython(move_connections, migrations.RunPython.noop),
        migrations.RemoveField(
            model_name='gameconnection',
            name='game',
        ),
        migrations.AddField(
            model_name='game',
            name='rated_with_event',
            field=models.BooleanField(default=False, verbose_name="valutata con l'evento"),
        ),
        migrations.AddField(
            model_name='game',
            name='settled',
            field=models.BooleanField(default=False),
        ),
        migrations.AddField(
            model_name='game',
            name='version',
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AlterField(
            model_name='game',
            name='reason',
            field=models.CharField(blank=True, choices=[('', '—'), ('checkmate', 'scacco matto'), ('stalemate', 'stallo'), ('insufficient_material', 'materiale insufficiente'), ('fivefold_repetition', 'quintupla ripetizione'), ('seventy_five_moves', 'regola delle 75 mosse'), ('threefold_repetition', 'triplice ripetizione'), ('fifty_moves', 'regola delle 50 mosse'), ('no_legal_move', 'nessuna mossa possibile'), ('king_moves', 'mosse di sole dame'), ('endgame_moves', 'regola del finale'), ('timeout', 'tempo scaduto'), ('timeout_vs_insufficient_material', "tempo scaduto, ma l'avversario non può vincere"), ('resignation', 'abbandono per resa'), ('agreed_draw', "patta d'accordo"), ('abandonment', 'abbandono della partita'), ('both_absent', 'entrambi assenti'), ('event_end', "fine dell'evento")], default='', max_length=40, verbose_name='motivo'),
        ),
        # Games that ended before this release were handled by then: settled.
        migrations.RunPython(settle_finished, migrations.RunPython.noop),
        migrations.AddIndex(
            model_name='game',
            index=models.Index(condition=models.Q(('settled', False), ('status', 'finished')), fields=['finished_at'], name='games_game_unsettled'),
        ),
        migrations.DeleteModel(
            name='GameConnection',
        ),
    ]
