"""Every page of a signed-in player carries the handler of "your game opened"
(live/static/live/mygame.js) with its words in the page's language; guests, who have no site
socket, do not."""

from __future__ import annotations

import pytest

from accounts.tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("language", "opens_in", "stay"),
    [
        ("it", "La tua partita si apre tra {n} s", "Resta qui"),
        ("en", "Your game opens in {n} s", "Stay here"),
    ],
)
def test_every_page_of_a_player_has_the_handler_in_their_language(client, language, opens_in, stay):
    client.force_login(UserFactory())
    client.cookies["django_language"] = language  # the language switch's choice
    for url in ("/", "/players/", "/tournaments/"):
        html = client.get(url).content.decode()
        assert "live/mygame.js" in html
        assert f'data-t-opens-in="{opens_in}"' in html
        assert f'data-t-stay="{stay}"' in html


def test_guests_do_not_get_it(client):
    assert "live/mygame.js" not in client.get("/").content.decode()
