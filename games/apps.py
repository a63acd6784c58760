from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = _("Partite e sfide")

    def ready(self) -> None:
        from live.consumers import news_on_connect

        news_on_connect(game_waiting_news)


def game_waiting_news(user_id: int) -> list[dict]:
    """Issue 24: a site socket that opens takes its page to a game waiting for the player
    (`games.selectors.game_waiting_for`), as the `mygame` push would have."""
    from games.selectors import game_waiting_for

    game_id = game_waiting_for(user_id)
    return [] if game_id is None else [{"what": "mygame", "game": game_id}]
