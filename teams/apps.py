from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TeamsConfig(AppConfig):
    name = "teams"
    verbose_name = _("Incontri a squadre")

    def ready(self) -> None:
        from teams import receivers  # noqa: F401  (what the app hooks into)
