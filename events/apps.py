from django.apps import AppConfig


class EventsConfig(AppConfig):
    name = "events"
    verbose_name = "Eventi"

    def ready(self) -> None:
        from events import receivers  # noqa: F401  (the game_finished router)
