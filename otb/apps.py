from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class OtbConfig(AppConfig):
    name = "otb"
    verbose_name = _("Tornei a tavolino")

    def ready(self) -> None:
        from otb import receivers  # noqa: F401  (what the app hooks into)
