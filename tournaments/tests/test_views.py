"""Pages: list filters, the form (bad input saves nothing), the 7.3 live hint, detail, joining
through the page, the invite link, edit and cancel permissions."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from accounts.tests.factories import UserFactory
from tournaments.models import Tournament
from tournaments.tests.factories import RegistrationFactory, TournamentFactory

pytestmark = pytest.mark.django_db


def form_data(**overrides) -> dict:
    start = timezone.localtime(timezone.now() + timedelta(hours=2))
    values = {
        "name": "Torneo della sera",
        "variant": "italian",
        "time_control": "5+3",
        "starts_at": start.strftime("%Y-%m-%dT%H:%M"),
        "timezone": "Europe/Rome",
        "seats": "16",
        "minimum": "4",
        "threshold": "7",
        "opening_mode": "free",
        "rated": "on",
    }
    values.update(overrides)
    return {k: v for k, v in values.items() if v is not None}


# List -------------------------------------------------------------------------------------------


def test_list_filters_by_variant_and_cadence(client, django_assert_max_num_queries):
    chess = TournamentFactory(name="Scacchi lampo", variant="chess", cadence="blitz")
    dama = TournamentFactory(
        name="Dama rapida",
        variant="italian",
        base_seconds=900,
        increment_seconds=10,
        cadence="rapid",
        password_hash="x",
    )
    TournamentFactory(name="Deserto", status="cancelled")
    RegistrationFactory(tournament=dama)
    with django_assert_max_num_queries(8):
        page = client.get(reverse("tournaments:list")).content.decode()
    assert chess.name in page and dama.name in page
    assert 'data-testid="private-mark"' in page and "1/16" in page
    # A cancelled tournament stays in the list, among the ended ones, marked.
    ended = page[page.index("Conclusi") :]
    assert "Deserto" in ended and 'data-testid="cancelled-badge"' in ended
    # A start within the day is a countdown with its unit ("23:38" read as a time of day).
    assert re.search(r'data-testid="starts">tra \d+ (h \d+ min|min)<', page)
    page = client.get(reverse("tournaments:list"), {"variant": "italian"}).content.decode()
    assert dama.name in page and chess.name not in page
    page = client.get(reverse("tournaments:list"), {"cadence": "blitz"}).content.decode()
    assert chess.name in page and dama.name not in page
    # htmx asks for the rows only.
    rows = client.get(reverse("tournaments:list"), {"cadence": "rapid"}, HTTP_HX_REQUEST="true")
    assert b"<html" not in rows.content and dama.name.encode() in rows.content


# Opening through the form --------------------------------------------------------------------------


def test_guests_are_sent_to_log_in(client):
    response = client.get(reverse("tournaments:new"))
    assert response.status_code == 302 and reverse("accounts:login") in response["Location"]


def test_bots_cannot_open_through_the_page(client):
    client.force_login(UserFactory(is_bot=True))
    response = client.post(reverse("tournaments:new"), form_data())
    assert response.status_code == 302
    assert not Tournament.objects.exists()


def test_open_a_tournament(client):
    user = UserFactory()
    client.force_login(user)
    response = client.post(reverse("tournaments:new"), form_data(floor="1200"))
    t = Tournament.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("tournaments:detail", args=[t.pk])
    assert t.opened_by == user and t.floor == 1200 and t.rated


def test_bad_input_rerenders_with_messages_and_saves_nothing(client):
    client.force_login(UserFactory())
    response = client.post(reverse("tournaments:new"), form_data(seats="201", threshold="6"))
    assert response.status_code == 200
    page = response.content.decode()
    assert "I posti vanno da 4 a 200." in page and "La soglia va da 7 a 20." in page
    assert not Tournament.objects.exists()


def test_second_live_event_refused_with_a_link(client):
    user = UserFactory()
    live = TournamentFactory(opened_by=user)
    client.force_login(user)
    response = client.post(reverse("tournaments:new"), form_data())
    assert response.status_code == 200
    assert Tournament.objects.count() == 1
    assert reverse("tournaments:detail", args=[live.pk]).encode() in response.content


def test_live_hint_for_rule_7_3(client):
    client.force_login(UserFactory())
    url = reverse("tournaments:new")
    headers = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "rated-hint"}
    hint = client.post(url, form_data(opening_mode="table3"), **headers)
    assert b'data-testid="rated-hint"' in hint.content and b"<html" not in hint.content
    assert b'class="error"' not in hint.content  # no validation messages while choosing
    hint = client.post(url, form_data(opening_mode="table3", double_games="on"), **headers)
    assert b'data-testid="rated-hint"' not in hint.content
    assert not Tournament.objects.exists()


def test_saved_casual_with_a_notice_on_its_page(client):
    client.force_login(UserFactory())
    client.post(reverse("tournaments:new"), form_data(opening_mode="table_all", floor="1500"))
    t = Tournament.objects.get()
    assert not t.rated and t.floor is None and t.rated_switched_off
    page = client.get(reverse("tournaments:detail", args=[t.pk]))
    assert b'data-testid="rated-off-notice"' in page.content


# Detail, join, withdraw ------------------------------------------------------------------------------


def test_detail_explains_the_format_and_lists_players(client):
    t = TournamentFactory(threshold=9, double_games=True)
    RegistrationFactory(tournament=t, player=UserFactory(username="alfiere"))
    page = client.get(reverse("tournaments:detail", args=[t.pk])).content.decode()
    assert "Svizzero da 9 giocatori in su, girone all&#x27;italiana sotto i 9" in page
    assert "alfiere" in page and "1500" in page and "1/16" in page
    assert "Accedi per iscriverti" in page
    fragment = client.get(reverse("tournaments:detail", args=[t.pk]), HTTP_HX_REQUEST="true")
    assert b"<html" not in fragment.content and b"alfiere" in fragment.content


def test_guest_join_goes_to_log_in_and_back(client):
    t = TournamentFactory()
    response = client.post(reverse("tournaments:join", args=[t.pk]))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("accounts:login"))
    assert reverse("tournaments:detail", args=[t.pk]) in response["Location"]


def test_join_and_withdraw_through_the_page(client):
    t = TournamentFactory()
    player = UserFactory()
    client.force_login(player)
    page = client.post(reverse("tournaments:join", args=[t.pk]), follow=True).content.decode()
    assert t.registrations.filter(player=player).exists()
    assert "Ritirati" in page and page.count("Sei iscritto") == 1  # said by the page, once
    client.post(reverse("tournaments:withdraw", args=[t.pk]))
    assert not t.registrations.exists()


def test_refusal_reason_is_shown(client):
    t = TournamentFactory(floor=1700)
    client.force_login(UserFactory())
    response = client.post(reverse("tournaments:join", args=[t.pk]), follow=True)
    assert "(1500)" in response.content.decode() and "(1700)" in response.content.decode()


def test_no_buttons_after_the_start(client):
    t = TournamentFactory(starts_at=timezone.now() + timedelta(hours=1))
    Tournament.objects.filter(pk=t.pk).update(starts_at=timezone.now() - timedelta(minutes=1))
    client.force_login(UserFactory())
    page = client.get(reverse("tournaments:detail", args=[t.pk])).content.decode()
    assert "Iscriviti" not in page and "Ritirati" not in page


def test_private_join_by_password_or_invite_link(client):
    t = TournamentFactory()
    from django.contrib.auth.hashers import make_password

    Tournament.objects.filter(pk=t.pk).update(password_hash=make_password("segreta"))
    t.refresh_from_db()
    first, second = UserFactory(), UserFactory()
    client.force_login(first)
    client.post(reverse("tournaments:join", args=[t.pk]), {"password": "sbagliata"})
    assert not t.registrations.exists()
    client.post(reverse("tournaments:join", args=[t.pk]), {"password": "segreta"})
    assert t.registrations.filter(player=first).exists()
    # The invite link: no password asked.
    client.force_login(second)
    client.get(reverse("tournaments:invite", args=[t.pk, "wrong-token"]))
    client.post(reverse("tournaments:join", args=[t.pk]))
    assert not t.registrations.filter(player=second).exists()
    client.get(reverse("tournaments:invite", args=[t.pk, t.invite_token]))
    page = client.get(reverse("tournaments:detail", args=[t.pk])).content.decode()
    assert 'name="password"' not in page and t.invite_token not in page  # only the opener sees it
    client.post(reverse("tournaments:join", args=[t.pk]))
    assert t.registrations.filter(player=second).exists()


def test_invite_link_shown_only_to_the_opener(client):
    t = TournamentFactory(password_hash="x")
    client.force_login(t.opened_by)
    assert t.invite_token.encode() in client.get(reverse("tournaments:detail", args=[t.pk])).content


# Edit and cancel permissions -------------------------------------------------------------------------


def test_edit_and_cancel_by_someone_else_are_refused(client):
    t = TournamentFactory()
    client.force_login(UserFactory())
    response = client.get(reverse("tournaments:edit", args=[t.pk]))
    assert response.status_code == 302
    client.post(reverse("tournaments:edit", args=[t.pk]), form_data(name="Rubato"))
    client.post(reverse("tournaments:cancel", args=[t.pk]))
    t.refresh_from_db()
    assert t.name != "Rubato" and t.status == "scheduled"


def test_opener_edits_and_cancels(client):
    t = TournamentFactory(variant="italian")
    client.force_login(t.opened_by)
    assert client.get(reverse("tournaments:edit", args=[t.pk])).status_code == 200
    response = client.post(reverse("tournaments:edit", args=[t.pk]), form_data(name="Nuovo nome"))
    assert response.status_code == 302
    t.refresh_from_db()
    assert t.name == "Nuovo nome"
    client.post(reverse("tournaments:cancel", args=[t.pk]))
    t.refresh_from_db()
    assert t.status == "cancelled"


def test_admin_cancel_action(admin_client):
    t = TournamentFactory(status="running")
    admin_client.post(
        reverse("admin:tournaments_tournament_changelist"),
        {"action": "cancel_tournaments", "_selected_action": [t.pk]},
    )
    t.refresh_from_db()
    assert t.status == "cancelled"
    assert admin_client.get(reverse("admin:tournaments_registration_changelist")).status_code == 200


def test_pages_in_english(client):
    t = TournamentFactory(threshold=9)
    client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    page = client.get(reverse("tournaments:detail", args=[t.pk])).content.decode()
    assert "Swiss from 9 players, round robin below 9" in page
    assert "Log in to join" in page
    assert "Upcoming" in client.get(reverse("tournaments:list")).content.decode()
