from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class RatingsConfig(AppConfig):
    name = "ratings"
    verbose_name = _("Punteggi Elo Italia")

    def ready(self) -> None:
        from ratings import receivers  # noqa: F401  (what the app hooks into)
