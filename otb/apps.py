from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class OtbConfig(AppConfig):
    name = "otb"
    verbose_name = _("Tornei a tavolino")
