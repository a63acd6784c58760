"""Everything the games app hooks into, in one place (imported by `GamesConfig.ready`)."""

from __future__ import annotations

from django.db import connections
from django.db.models.signals import post_migrate
from django.dispatch import receiver

from accounts import personal as account_data
from games import personal, tasks  # noqa: F401  (tasks: registered in every process, sent by name)
from games.row_stamp import ensure_sqlite_trigger
from games.rules import variants
from live import messages
from live.consumers import news_on_connect


def game_waiting_news(user_id: int) -> list[dict]:
    """A site socket that opens takes its page to a game waiting for the player
    (`games.selectors.game_waiting_for`), as the `mygame` push would have: a push lost while
    the socket was down, or sent a second before the page opened, must not cost the game."""
    from games.selectors import game_waiting_for

    game_id = game_waiting_for(user_id)
    return [] if game_id is None else [messages.user_changed(messages.What.MYGAME, game=game_id)]


news_on_connect(game_waiting_news)


def challenge_news(user_id: int) -> list[dict]:
    """A site socket that opens re-fetches its page's challenge notices when a challenge came to
    the player in the last moments (`games.selectors.challenge_came_to`): the game page writes
    its notices into itself (one request a view), and a challenge posted between that render
    and the socket's joining its group would otherwise wait for the minute's poll."""
    from games.selectors import challenge_came_to

    return [messages.user_changed(messages.What.CHALLENGES)] if challenge_came_to(user_id) else []


news_on_connect(challenge_news)

# What is personal to a player (accounts.personal): their games, in the data download and as
# PGN/PDN files; a live game keeps them from deleting the account.
account_data.register_section_pages("games", personal.games_section)
for export_format in variants.export_formats():  # games.pgn, games.pdn
    account_data.register_file_pages(f"games.{export_format}", personal.games_file(export_format))
account_data.register_blocker(personal.live_game_blocker)
account_data.register_eraser(personal.erase)
account_data.register_locker(personal.lock_challenges)


@receiver(post_migrate, dispatch_uid="games.row_stamp")
def keep_the_row_stamp_trigger(sender, using, **kwargs) -> None:
    """SQLite drops a table's triggers when a migration rebuilds it: put the stamp's back."""
    if sender.name == "games":
        from games.models import Game

        ensure_sqlite_trigger(connections[using], Game._meta.db_table)
