from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class LiveConfig(AppConfig):
    name = "live"
    verbose_name = _("Dal vivo")

    def ready(self) -> None:
        # The live layer's tasks registered in every process (a daphne too): `live.pushes`
        # sends its trailing push by name, without importing the task module above it.
        from live import tasks  # noqa: F401
