from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AnalysisConfig(AppConfig):
    name = "analysis"
    verbose_name = _("Analisi al computer")

    def ready(self) -> None:
        from analysis import receivers  # noqa: F401  (what the app hooks into)
