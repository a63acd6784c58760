from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class RatingsConfig(AppConfig):
    name = "ratings"
    verbose_name = _("Punteggi Elo Italia")

    def ready(self) -> None:
        # STYLE 6: ratings learn that a game ended from the game_finished signal.
        # Games show ratings beside their players and quick pairing compares them; games
        # cannot import ratings (STYLE 6), so ratings hand them their reader.
        from games import player_ratings
        from ratings import receivers  # noqa: F401
        from ratings.selectors import game_rating_changes, ratings_for

        player_ratings.register(
            player_ratings.RatingReader(current=ratings_for, game_changes=game_rating_changes)
        )

        # The data download's ratings and their history (accounts.personal).
        from accounts import personal as account_data
        from ratings.personal import ratings_section

        account_data.register_section("ratings", ratings_section)
