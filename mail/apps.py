from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class MailConfig(AppConfig):
    name = "mail"
    verbose_name = _("Posta")

    def ready(self) -> None:
        # The sender's task registered in every process (a daphne too): the outbox sends it by
        # name, without importing the task module above it.
        from mail import tasks  # noqa: F401
