from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class EventsConfig(AppConfig):
    name = "events"
    verbose_name = _("Eventi")

    def ready(self) -> None:
        from events import receivers  # noqa: F401  (what the app hooks into)
