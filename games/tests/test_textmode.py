"""The text mode's command table (games/textmode.py), its guide page and its switch."""

from __future__ import annotations

import pytest
from django.urls import reverse

from games.rules import VARIANT_CODES, variant
from games.rules.typed import read_move
from games.tests.factories import UserFactory, open_game
from games.textmode import COMMANDS, commands_for_page, page_texts

WORDS = [word for c in COMMANDS for word in (*c.italian, *c.english)]


@pytest.mark.parametrize("code", VARIANT_CODES)
def test_no_command_word_is_a_move_in_any_variant(code):
    """The page sends anything that is no command to the server as a move: a word that could
    also be a move would shadow it."""
    rules = variant(code)
    for word in WORDS:
        assert read_move(rules, rules.start_fen(), word).problem == "unreadable", word


def test_each_word_names_one_command():
    """A word may be the same in both languages (`p`, `boost`), never two commands'."""
    owners = {}
    for command in COMMANDS:
        for word in {*command.italian, *command.english}:
            assert owners.setdefault(word, command.key) == command.key, word


def test_the_page_gets_every_command_and_text_in_english(settings):
    from django.utils import translation

    with translation.override("en"):
        page = commands_for_page()
        texts = page_texts()
    assert [c["key"] for c in page] == [c.key for c in COMMANDS]
    assert (
        page[0]["shown"] == "clocks"
        and texts["n"] == "Knight"
        and texts["d_to"] == "{from} to {to}"
    )


@pytest.mark.django_db
def test_the_guide_lists_every_command_in_both_languages(client):
    response = client.get(reverse("games:text_guide"))
    assert response.status_code == 200
    html = response.content.decode()
    for command in COMMANDS:
        assert ", ".join(command.italian) in html and ", ".join(command.english) in html


@pytest.mark.django_db
def test_the_switch_is_saved_from_the_game_page_and_the_account_page(client):
    user = UserFactory()
    client.force_login(user)
    url = reverse("accounts:account_text_mode")
    answer = client.post(url, {"text_mode": "on"}, headers={"X-Requested-With": "fetch"})
    assert answer.status_code == 204
    user.refresh_from_db()
    assert user.text_mode
    game = open_game(white=user)
    page = client.get(reverse("games:game", args=[game.pk])).context["page_data"]
    assert page["text_mode"] is True and page["signed_in"] is True
    assert client.post(url, {}).status_code == 302  # the account page's form: unticked
    user.refresh_from_db()
    assert not user.text_mode
