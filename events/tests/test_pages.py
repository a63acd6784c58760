"""The web layer every kind of event shares (events.views.EventPages, events.admin): what each
kind gets from its model's names, and the pages and admin rows it no longer writes itself."""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.urls import reverse

from accounts.tests.factories import UserFactory
from arena.models import Arena, Entry
from arena.tests.factories import ArenaFactory
from arena.views import pages as arena_pages
from tournaments.models import Pairing, Round, Tournament
from tournaments.tests.factories import TournamentFactory
from tournaments.views import pages as tournament_pages

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("pages", "prefix", "code"),
    [(arena_pages, "/arenas/", "arena"), (tournament_pages, "/tournaments/", "tournament")],
)
def test_names_come_from_the_model(pages, prefix, code):
    # The URLs, the session's invite key and the services' keyword are those the kinds had
    # before sharing them: an invite remembered in a session still works.
    assert reverse(pages.url_name("list")) == prefix
    assert reverse(pages.url_name("new")) == prefix + "new/"
    for name, path in [
        ("detail", ""),
        ("edit", "edit/"),
        ("cancel", "cancel/"),
        ("invite_regenerate", "invite/regenerate/"),
    ]:
        assert reverse(pages.url_name(name), args=[7]) == f"{prefix}7/{path}"
    assert reverse(pages.url_name("invite"), args=[7, "abc"]) == f"{prefix}7/invite/abc/"
    assert pages.invite_key(7) == f"{code}_invite_7"
    assert pages.by_id(7) == {f"{code}_id": 7}
    assert pages.code == code


def test_each_kind_lists_its_sections_in_its_order_and_words(client):
    ArenaFactory(name="Adesso", status=Arena.Status.RUNNING)
    TournamentFactory(name="Dopo")
    arenas = client.get(reverse("arena:list")).content.decode()
    assert arenas.index("In corso") < arenas.index("In programma") < arenas.index("Concluse")
    assert 'data-testid="arena-row"' in arenas and "Adesso" in arenas
    tournaments = client.get(reverse("tournaments:list")).content.decode()
    assert tournaments.index("In programma") < tournaments.index("In corso")
    assert tournaments.index("In corso") < tournaments.index("Conclusi")
    assert 'data-testid="tournament-row"' in tournaments and "Dopo" in tournaments


def test_the_forms_hint_keeps_double_games_in_the_tournaments_openings(client):
    client.force_login(UserFactory())
    for url, double_games in [(reverse("tournaments:new"), True), (reverse("arena:new"), False)]:
        response = client.post(
            url,
            {"variant": "italian", "opening_mode": "table_all", "rated": "on"},
            HTTP_HX_REQUEST="true",
            HTTP_HX_TARGET="rated-hint",
        )
        fragment = response.content.decode()
        assert fragment.lstrip().startswith('<fieldset id="opening-section">')
        assert 'data-testid="rated-hint"' in fragment
        assert ('name="double_games"' in fragment) is double_games


def test_the_organizer_block_links_to_its_own_kind(client):
    opener = UserFactory()
    client.force_login(opener)
    for event, name in [
        (ArenaFactory(opened_by=opener), "arena"),
        (TournamentFactory(opened_by=opener), "tournaments"),
    ]:
        page = client.get(event.get_absolute_url()).content.decode()
        assert f'href="{reverse(f"{name}:edit", args=[event.pk])}"' in page
        assert f'action="{reverse(f"{name}:cancel", args=[event.pk])}"' in page


def test_read_only_rows_show_the_fields_the_run_writes():
    arena_admin = admin.site._registry[Arena]
    entries, battle_clubs = arena_admin.get_inline_instances(_request())
    assert battle_clubs.model.__name__ == "BattleClub"  # a club battle's clubs (RULES 12.7)
    assert entries.model is Entry and not entries.has_add_permission(_request(), None)
    assert entries.get_fields(_request()) == [
        "player",
        "state",
        "pause_reason",
        "points",
        "wins",
        "games",
        "on_streak",
        "rank",
        "club",
    ]
    (pairings,) = admin.site._registry[Round].get_inline_instances(_request())
    assert pairings.model is Pairing
    assert "played1" not in pairings.get_fields(_request())
    assert pairings.get_fields(_request())[:3] == ["board", "white", "black"]


def test_each_kinds_columns_follow_the_start():
    columns = admin.site._registry[Tournament].get_list_display(_request())
    assert columns[columns.index("starts_at") + 1] == "seats"
    columns = admin.site._registry[Arena].get_list_display(_request())
    assert columns[columns.index("starts_at") + 1] == "duration_minutes"


def _request():
    from django.test import RequestFactory

    request = RequestFactory().get("/admin/")
    request.user = UserFactory(is_staff=True, is_superuser=True)
    return request
