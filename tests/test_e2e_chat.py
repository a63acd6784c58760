"""End to end in Chromium: the chat of a tournament and of a game (docs/rules.md §9).

On a tournament's page two players talk live; a line with markup shows as typed; one mutes
the other, whose next line reaches everyone else but not him, and unmutes; a guest reads and
cannot write; the organizer closes the chat, every page says so and nothing more is written,
and opens it again. In a rated game the players talk in their own room while a spectator
writes in the spectators' room, which the players do not see until the game is over."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from accounts.models import User
from accounts.tests.factories import UserFactory
from chat.models import ClosedRoom, Message, Mute
from games.services import game_open, game_resign
from tests.browser import shoot, signed_in, socket_open, to_board
from tournaments.tests.factories import TournamentFactory

pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("orm_beside_playwright")]

SHOTS = Path(__file__).resolve().parent.parent / "docs" / "screenshots" / "chat"


def write(page, text: str, room: str = "event") -> None:
    box = page.get_by_test_id(f"chat-room-{room}").get_by_test_id("chat-input")
    box.fill(text)
    box.press("Enter")
    expect(box).to_have_value("")  # said: the server took it


def lines(page, room: str = "event"):
    return page.get_by_test_id(f"chat-room-{room}").get_by_test_id("chat-line")


def chat_open(page, path: str) -> None:
    socket_open(page, path)
    expect(page.get_by_test_id("chat-rooms")).not_to_contain_text("Collegamento")


def both_widths(page, name: str) -> None:
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.evaluate("window.dispatchEvent(new Event('resize'))")  # the board redraws
        shoot(page, SHOTS / f"{name}-{width}.png", full_page=True)
    page.set_viewport_size({"width": 1280, "height": 900})


def test_event_chat_with_mute_a_guest_and_the_organizer_closing_it(site, two_players, browser):
    (anna, bruno), names = two_players
    organizer = User.objects.get(username=names[0])  # Anna opened the tournament
    tournament = TournamentFactory(name="Torneo della chat", opened_by=organizer)
    path = f"/ws/chat/tournament/{tournament.pk}/"
    url = f"{site}/tournaments/{tournament.pk}/"
    guest_context = browser.new_context(locale="it-IT")
    guest = guest_context.new_page()
    try:
        for page in (anna, bruno, guest):
            page.goto(url)
            chat_open(page, path)
        expect(guest.get_by_test_id("chat-guest")).to_contain_text("per scrivere")
        expect(guest.get_by_test_id("chat-input")).to_have_count(0)

        write(anna, "Buonasera a tutti!")
        write(bruno, "<b>ciao</b> Anna")
        for page in (anna, bruno, guest):
            expect(lines(page)).to_have_count(2)
            expect(lines(page).nth(1)).to_contain_text("<b>ciao</b> Anna")  # as typed
        assert guest.locator(".chat b").count() == 0

        # Bruno mutes Anna: her next line reaches the guest, not him.
        line = lines(bruno).filter(has_text="Buonasera")
        line.locator("summary").click()
        line.get_by_test_id("chat-mute").click()
        expect(lines(bruno)).to_have_count(1)
        expect(bruno.get_by_test_id("chat-muted")).to_contain_text(names[0])
        write(anna, "Mi senti, Bruno?")
        expect(lines(guest)).to_have_count(3)
        expect(lines(anna)).to_have_count(3)
        assert lines(bruno).count() == 1
        assert Mute.objects.filter(user__username=names[1], muted=organizer).exists()
        both_widths(bruno, "tournament-muted")
        bruno.get_by_test_id("chat-muted").locator("summary").click()
        bruno.get_by_test_id("chat-unmute").click()
        expect(bruno.get_by_test_id("chat-muted")).to_be_hidden()
        bruno.reload()
        chat_open(bruno, path)
        expect(lines(bruno)).to_have_count(3)  # her lines back, on a new page too

        # The organizer closes the chat: every page says so; nothing more is written.
        anna.get_by_test_id("chat-toggle").click()
        for page in (anna, bruno, guest):
            expect(page.get_by_test_id("chat-closed")).to_be_visible()
            expect(lines(page)).to_have_count(0)
        expect(bruno.get_by_test_id("chat-input")).to_be_hidden()
        assert ClosedRoom.objects.filter(room=f"tournament:{tournament.pk}").exists()
        both_widths(bruno, "tournament-closed")
        anna.get_by_test_id("chat-toggle").click()
        for page in (anna, bruno, guest):
            expect(page.get_by_test_id("chat-closed")).to_be_hidden()
            expect(lines(page)).to_have_count(3)
        both_widths(guest, "tournament-guest")
    finally:
        guest_context.close()


def test_a_rated_games_players_do_not_see_the_spectators_until_the_end(site, two_players, browser):
    (anna, bruno), names = two_players
    white, black = (User.objects.get(username=name) for name in names)
    game = game_open(white_id=white.pk, black_id=black.pk, variant_code="chess",
                     base_seconds=600, increment_seconds=0, rated=True)  # fmt: skip
    watcher_name = f"c_{names[0][2:]}"
    UserFactory(username=watcher_name)
    watcher_context = browser.new_context(locale="it-IT")
    watcher_context.set_default_timeout(15_000)
    watcher = watcher_context.new_page()
    signed_in(watcher, site, watcher_name)
    path = f"/ws/chat/game/{game.pk}/"
    # The game page opens one socket, the game's, its chat's and the site's news at once
    # (docs/protocol.md, "Page sockets"): a round start's players each cost one handshake.
    opened = []
    anna.on("websocket", lambda ws: opened.append(ws.url.split("/", 3)[3]))
    try:
        for page in (anna, bruno):
            to_board(page, site, game.pk)
            chat_open(page, path)
            expect(page.get_by_test_id("chat-shielded")).to_be_visible()
            expect(page.get_by_test_id("chat-room-spectators")).to_have_count(0)
        to_board(watcher, site, game.pk)
        chat_open(watcher, path)
        expect(watcher.get_by_test_id("chat-room-players")).to_have_count(0)

        # A line refused is said under the room it was typed in, read with its field.
        room = anna.get_by_test_id("chat-room-players")
        room.get_by_test_id("chat-input").press("Enter")
        expect(room.get_by_test_id("chat-error")).to_have_text("Scrivi qualcosa prima di inviare.")
        expect(room.get_by_test_id("chat-input")).to_have_accessible_description(
            "Scrivi qualcosa prima di inviare."
        )
        write(watcher, "Il nero è in difficoltà", room="spectators")
        write(anna, "Buona partita!", room="players")
        expect(room.get_by_test_id("chat-error")).to_be_empty()
        expect(lines(bruno, "players")).to_contain_text(["Buona partita!"])
        expect(lines(watcher, "spectators")).to_have_count(1)
        both_widths(anna, "game-players")
        assert Message.objects.filter(room=f"game:{game.pk}:spectators").count() == 1
        assert lines(anna, "players").count() == 1  # the audience's line never reached her

        game_resign(game_id=game.pk, user_id=black.pk)
        # The game over, the players' pages read the spectators' room too, without a reload.
        for page in (anna, bruno):
            expect(lines(page, "spectators")).to_have_count(1)
            expect(lines(page, "spectators")).to_contain_text(["Il nero è in difficoltà"])
        # Asked for on the socket it had (`again`), not by a new one (the board may have been
        # loaded twice: a game waiting for her takes her page there as its socket opens).
        assert set(opened) == {f"ws/page/game/{game.pk}/"}, opened
        both_widths(watcher, "game-spectators")
    finally:
        watcher_context.close()
