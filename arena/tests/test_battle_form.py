"""The club battle's form (RULES 12.7) through the real view: the invited clubs are picked by a
search on the server, which works without JavaScript (its button sends the form back and the
page returns with what it found, nothing saved) and as htmx's part; each wrong choice of clubs
is refused with its own message and nothing saved."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse
from django.utils import timezone

from accounts.tests.factories import UserFactory
from arena.models import Arena
from arena.tests.test_views import form_data
from clubs.selectors import SEARCH_SHOWN
from clubs.tests.factories import club_with

pytestmark = pytest.mark.django_db
NEW = reverse("arena:new")


def battle(*club_ids, **more) -> dict:
    fields = {"name": "Battaglia di primavera", "battle": "on", "battle_top_n": "5"}
    return form_data(**{**fields, **more}, battle_clubs=[str(pk) for pk in club_ids])


def ticked(html: str, part: str) -> dict[int, bool]:
    """The clubs' boxes of one part of the picker: id -> ticked."""
    found = re.search(rf'id="{part}".*?</(?:ul|div)>', html, re.S)
    assert found, part
    return {
        int(value): "checked" in box
        for box, value in re.findall(
            r'(<input type="checkbox" name="battle_clubs" value="(\d+)"[^>]*>)', found.group(0)
        )
    }


@pytest.fixture
def captain(client):
    player = UserFactory()
    client.force_login(player)
    return player


def test_a_search_without_javascript_finds_clubs_and_keeps_the_form(client, captain):
    mine = club_with(president=captain, name="Scacchi Lodi", city="Lodi", province="LO")
    milano = club_with(name="Torre di Milano", city="Milano", province="MI")
    citta = club_with(name="Circolo Città Studi", city="Milano", province="MI")
    club_with(name="Re Nero", city="Bergamo", province="BG")
    club_with(name="Milano Nascosto", city="Milano", province="MI", hidden=True)
    page = client.post(
        NEW, battle(mine.pk, battle_club_q="milano", battle_search="1", name="La mia battaglia")
    )
    html = page.content.decode()
    assert page.status_code == 200 and not Arena.objects.exists()
    assert ticked(html, "battle-chosen") == {mine.pk: True}
    # By name or city, the hidden club not among them, the chosen one not twice.
    assert ticked(html, "battle-found") == {milano.pk: False, citta.pk: False}
    assert 'value="La mia battaglia"' in html and 'value="milano"' in html
    assert 'role="alert"' not in html  # a search is no failed submit

    # Accents and look-alike letters aside (RULES 12.2); ticking one and searching again
    # moves it among the chosen.
    html = client.post(
        NEW, battle(mine.pk, milano.pk, battle_club_q="citta", battle_search="1")
    ).content.decode()
    assert ticked(html, "battle-chosen") == {mine.pk: True, milano.pk: True}
    assert ticked(html, "battle-found") == {citta.pk: False}

    # Sent to open the arena with the three of them: a battle of those clubs.
    opened = client.post(NEW, battle(mine.pk, milano.pk, citta.pk))
    arena = Arena.objects.get()
    assert opened.status_code == 302 and arena.is_battle
    assert set(arena.battle_clubs.values_list("club_id", flat=True)) == {
        mine.pk,
        milano.pk,
        citta.pk,
    }


def test_a_search_with_characters_no_name_holds_finds_without_them(client, captain):
    """A NUL (which PostgreSQL refuses in a query's text) or a format character typed or sent
    in the search: searched without them, never a 500."""
    mine = club_with(president=captain, name="Scacchi Lodi", city="Lodi", province="LO")
    pavia = club_with(name="Dama Pavia", city="Pavia", province="PV")
    for typed in ("pav\x00", "\u202epav", "\x00"):
        page = client.post(NEW, battle(mine.pk, battle_club_q=typed, battle_search="1"))
        assert page.status_code == 200 and not Arena.objects.exists()
        if typed != "\x00":  # nothing left to search: no list of what was found
            assert ticked(page.content.decode(), "battle-found") == {pavia.pk: False}


def test_the_search_as_htmx_returns_the_pickers_part_and_many_clubs_ask_a_closer_search(
    client, captain
):
    mine = club_with(president=captain)
    for n in range(SEARCH_SHOWN + 3):
        club_with(name=f"Circolo Scacchi {n:02d}", city="Pavia", province="PV")
    part = client.post(
        NEW,
        battle(mine.pk, battle_club_q="pavia"),
        HTTP_HX_REQUEST="true",
        HTTP_HX_TARGET="battle-found-list",
    )
    html = part.content.decode()
    assert part.status_code == 200 and "<html" not in html and not Arena.objects.exists()
    assert 'id="battle-chosen"' in html and 'id="battle-found"' in html
    assert len(ticked(html, "battle-found")) == SEARCH_SHOWN
    assert "scrivi di più per restringere la ricerca" in html
    nothing = client.post(
        NEW,
        battle(mine.pk, battle_club_q="Trieste"),
        HTTP_HX_REQUEST="true",
        HTTP_HX_TARGET="battle-found-list",
    ).content.decode()
    assert "Nessun altro circolo trovato per «Trieste»." in nothing


@pytest.mark.parametrize(
    ("choice", "message"),
    [
        ("unknown", "Un circolo scelto non esiste o è stato sciolto"),
        ("not_an_id", "Un circolo scelto non esiste o è stato sciolto"),
        ("dissolved", "Un circolo scelto non esiste o è stato sciolto"),
        ("hidden", "Un circolo scelto è stato nascosto dallo staff e non può essere invitato"),
        ("one", "Scegli da 2 a 10 circoli: ora ne hai scelto 1."),
        ("none", "Scegli da 2 a 10 circoli: ora ne hai scelti 0."),
        ("eleven", "Scegli da 2 a 10 circoli: ora ne hai scelti 11."),
    ],
)
def test_each_wrong_choice_of_clubs_says_which_and_saves_nothing(client, captain, choice, message):
    mine = club_with(president=captain)
    other = club_with()
    ids: list = [mine.pk, other.pk]
    if choice == "unknown":
        ids.append(999_999_999)
    elif choice == "not_an_id":
        ids.append("dodici")
    elif choice == "dissolved":
        ids.append(club_with(dissolved_at=timezone.now()).pk)
    elif choice == "hidden":
        ids.append(club_with(hidden=True).pk)
    elif choice == "one":
        ids = [mine.pk]
    elif choice == "none":
        ids = []
    else:
        ids += [club_with().pk for _ in range(9)]
    page = client.post(NEW, battle(*ids))
    assert page.status_code == 200 and not Arena.objects.exists()
    assert any(message in error for error in page.context["form"].errors["battle_clubs"])
    html = page.content.decode()
    assert 'id="battle-clubs-error"' in html and message in html.replace("&#x27;", "'")
    # What can be invited stays chosen; what cannot is dropped from the picker.
    assert set(ticked(html, "battle-chosen")) == {
        pk for pk in ids if pk in (mine.pk, other.pk) or choice == "eleven"
    }
