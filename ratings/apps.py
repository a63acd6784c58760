from django.apps import AppConfig


class RatingsConfig(AppConfig):
    name = "ratings"

    def ready(self) -> None:
        # STYLE 6: ratings learn that a game ended from the game_finished signal.
        from ratings import receivers  # noqa: F401
