from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = _("Partite e sfide")

    def ready(self) -> None:
        from games import receivers  # noqa: F401  (what the app hooks into)
