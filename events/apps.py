from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class EventsConfig(AppConfig):
    name = "events"
    verbose_name = _("Eventi")

    def ready(self) -> None:
        # An opener of a live event cannot leave it behind (RULES 1); reminders go with them.
        from accounts import personal
        from events import receivers  # noqa: F401  (the game_finished router)

        personal.register_blocker(opened_event_blocker)
        personal.register_eraser(forget_reminders)


def opened_event_blocker(user) -> list[str]:
    from django.utils.translation import gettext as _

    from events.kinds import open_live_event

    event = open_live_event(user.pk)
    if event is None:
        return []
    return [
        _("Hai aperto «%(name)s», che non è ancora finito: annullalo o aspetta che finisca.")
        % {"name": event.name}
    ]


def forget_reminders(user) -> None:
    from events.models import Reminder

    Reminder.objects.filter(user=user).delete()
