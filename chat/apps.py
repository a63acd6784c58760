from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ChatConfig(AppConfig):
    name = "chat"
    verbose_name = _("Chat")

    def ready(self) -> None:
        from accounts import personal
        from chat import personal as chat_personal

        # A player's own words go with the data download and with the account (accounts.personal).
        personal.register_section("chat", chat_personal.messages_section)
        personal.register_eraser(chat_personal.erase_messages)
