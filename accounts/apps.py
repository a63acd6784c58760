from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = _("Giocatori")

    def ready(self) -> None:
        # The archives' task registered in every process (a daphne too): a request sends it by
        # name. A deleted account's archives go with it (accounts.personal).
        from accounts import archive, personal, tasks  # noqa: F401

        personal.register_eraser(archive.erase)
