from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = _("Partite e sfide")

    def ready(self) -> None:
        from live.consumers import news_on_connect

        news_on_connect(game_waiting_news)

        # What is personal to a player (accounts.personal): their games, in the data download
        # and as PGN/PDN files; a live game keeps them from deleting the account.
        from accounts import personal as account_data
        from games import personal

        account_data.register_section("games", personal.games_section)
        account_data.register_file("games.pgn", personal.games_pgn)
        account_data.register_file("games.pdn", personal.games_pdn)
        account_data.register_blocker(personal.live_game_blocker)
        account_data.register_eraser(personal.erase)


def game_waiting_news(user_id: int) -> list[dict]:
    """Issue 24: a site socket that opens takes its page to a game waiting for the player
    (`games.selectors.game_waiting_for`), as the `mygame` push would have."""
    from games.selectors import game_waiting_for
    from live import messages

    game_id = game_waiting_for(user_id)
    return [] if game_id is None else [messages.user_changed(messages.What.MYGAME, game=game_id)]
