"""The tick reads only due tournaments (`next_due_at`), so its cost follows the due work, not
the number of tournaments (bench/tournament.py); the options come from the abstract
events.models.Event."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def due_now(apps, schema_editor):
    """Scheduled ones are due at their start; running ones at once (their next step then says
    when they are due next)."""
    from django.db.models import F
    from django.utils import timezone

    Tournament = apps.get_model("tournaments", "Tournament")
    Tournament.objects.filter(status="scheduled").update(next_due_at=F("starts_at"))
    Tournament.objects.filter(status="running").update(next_due_at=timezone.now())


class Migration(migrations.Migration):

    dependencies = [
        ('tournaments', '0003_end_reason_by_staff'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name='tournament',
            name='next_due_at',
            field=models.DateTimeField(blank=True, db_index=True, null=True),
        ),
        migrations.RunPython(due_now, migrations.RunPython.noop),
        migrations.AlterField(
            model_name='tournament',
            name='opened_by',
            field=models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='%(class)ss_opened', to=settings.AUTH_USER_MODEL, verbose_name='aperto da'),
        ),
    ]
