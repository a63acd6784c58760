from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ArenaConfig(AppConfig):
    name = "arena"
    verbose_name = _("Arene")

    def ready(self) -> None:
        from arena import receivers  # noqa: F401  (what the app hooks into)
