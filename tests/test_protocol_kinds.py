"""The pushes declared in live/messages.py are the ones docs/protocol.md describes, and each
page group's message has a consumer handler to receive it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from live import messages

PROTOCOL = Path(__file__).resolve().parent.parent / "docs" / "protocol.md"


def test_every_kind_of_site_news_is_in_the_protocol_and_no_other():
    documented = set(re.findall(r'"what": "([a-z]+)"', PROTOCOL.read_text()))
    assert documented == set(messages.whats())
    # The kinds of event add their own: the live layer names none of them.
    assert {"mytournament", "myarena"} <= set(messages.whats())
    assert not {"mytournament", "myarena"} & {what.value for what in messages.What}


@pytest.mark.parametrize(
    ("message", "handler"),
    [
        (messages.lobby_changed(), "games.consumers.LobbyConsumer.lobby_changed"),
        (messages.game_state("{}", 1), "games.consumers.GameConsumer.game_state"),
        (messages.game_declined("draw_declined", "{}"), "games.consumers.GameConsumer.game_draw_declined"),
        (messages.game_declined("takeback_declined", "{}"), "games.consumers.GameConsumer.game_takeback_declined"),
        (messages.game_settled(1), "games.consumers.GameConsumer.game_settled"),
        (messages.tournament_changed(0), "tournaments.consumers.TournamentConsumer.tournament_changed"),
        (messages.arena_changed(), "arena.consumers.ArenaConsumer.arena_changed"),
        (messages.otb_changed(1), "otb.consumers.OtbConsumer.otb_changed"),
        (messages.team_match_changed(1), "teams.consumers.TeamMatchConsumer.teams_changed"),
        (messages.user_changed(messages.What.POOL), "live.consumers.UserConsumer.user_changed"),
        (messages.chat_line("game:1:players", {}), "chat.consumers.ChatConsumer.chat_line"),
        (messages.chat_closed("arena:1", True), "chat.consumers.ChatConsumer.chat_closed"),
        (messages.chat_removed("arena:1", 1), "chat.consumers.ChatConsumer.chat_removed"),
        (messages.chat_muted([]), "chat.consumers.ChatConsumer.chat_muted"),
        (messages.membership_ended("club.1"), "chat.consumers.ChatConsumer.membership_ended"),
        (messages.account_closed(), "live.sockets.LiveConsumer.account_closed"),
    ],
)  # fmt: skip
def test_each_page_message_has_its_handler(message, handler):
    """Channels calls the method named by the message's type, dots made underscores."""
    module, cls, method = handler.rsplit(".", 2)
    assert method == message["type"].replace(".", "_")
    consumer = getattr(__import__(module, fromlist=[cls]), cls)
    assert callable(getattr(consumer, method))


def test_only_what_a_player_may_decline_is_declined():
    with pytest.raises(TypeError):
        messages.game_declined("resign_declined", "{}")


def test_site_news_carries_only_its_own_data():
    assert messages.user_changed(messages.What.MYGAME, game=7) == {
        "type": "user.changed",
        "what": "mygame",
        "game": 7,
    }
    with pytest.raises(TypeError, match="required"):
        messages.user_changed(messages.What.MYGAME)
    with pytest.raises(TypeError, match="must be int"):
        messages.user_changed(messages.What.MYGAME, game="7")
    with pytest.raises(TypeError, match="no such data"):
        messages.user_changed(messages.What.POOL, game=7)
    with pytest.raises(TypeError, match="no site news"):
        messages.user_changed("nonsense")
    with pytest.raises(TypeError, match="required"):
        messages.user_changed(messages.What.EVENT_CALL)
    with pytest.raises(ValueError):
        messages.register_what("My Match")
