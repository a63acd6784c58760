from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class FairplayConfig(AppConfig):
    name = "fairplay"
    verbose_name = _("Fair play")

    def ready(self) -> None:
        from fairplay import receivers  # noqa: F401  (what the app hooks into)
