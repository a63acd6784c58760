from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class RatingsConfig(AppConfig):
    name = "ratings"
    verbose_name = _("Punteggi Elo Italia")

    def ready(self) -> None:
        # STYLE 6: ratings learn that a game ended from the game_finished signal.
        from ratings import receivers  # noqa: F401
