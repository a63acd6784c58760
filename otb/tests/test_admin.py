"""The over-the-board tournaments in the admin: staff see a tournament with its players and
rounds, a round with its results and record, in Italian; only the text the organizer typed may
be corrected, nothing of the table's pairings, numbers or results."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.tests.factories import UserFactory
from otb.models import OtbBoard, OtbBye, OtbPlayer, OtbRound, OtbTournament
from otb.tests import scenario
from tests.test_admin_italian import english_leftovers, messages_of, resubmit

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(client):
    boss = UserFactory(username="boss", is_staff=True, is_superuser=True)
    client.force_login(boss)
    client.cookies.load({"django_language": "it"})
    return boss


def test_staff_see_the_tournament_its_players_rounds_and_results(client, staff):
    organizer = UserFactory(username="arbitro")
    tournament = scenario.open_tournament(organizer)
    scenario.play(tournament, organizer, rounds=range(1, 5))  # a refused edit, a bye, a forfeit
    round_two = tournament.rounds.get(number=2)
    leftovers = english_leftovers()
    pages = {}
    for model, obj in (
        (OtbTournament, tournament),
        (OtbPlayer, OtbBye.objects.get().player),
        (OtbRound, round_two),
        (OtbBoard, round_two.boards.first()),
    ):
        name = f"admin:otb_{model._meta.model_name}"
        for url in (reverse(f"{name}_changelist"), reverse(f"{name}_change", args=[obj.pk])):
            response = client.get(url)
            assert response.status_code == 200, url
            page = response.content.decode()
            found = [w for w in leftovers if re.search(rf">\s*{re.escape(w)}:?\s*<", page)]
            assert found == [], (url, found)
            pages[url] = page
        # Staff add and delete nothing here (the table's rows; boards protect their players).
        assert client.get(reverse(f"{name}_add")).status_code == 403
        assert client.get(reverse(f"{name}_delete", args=[obj.pk])).status_code == 403

    tournament_page = pages[reverse("admin:otb_otbtournament_change", args=[tournament.pk])]
    assert "Svizzero (sistema Lim)" in tournament_page and "Giocatori a tavolino" in tournament_page
    assert "Turni a tavolino" in tournament_page
    round_page = pages[reverse("admin:otb_otbround_change", args=[round_two.pk])]
    assert "Scacchiere a tavolino" in round_page and "Verbale" in round_page
    assert "&quot;refused&quot;: true" in round_page  # the checker's refusal, in the record
    board = round_two.boards.exclude(black=None).first()
    result = re.escape(board.get_result_display())
    assert re.search(rf'class="field-result">\s*<p>{result}</p>', round_page), result
    player_page = pages[
        reverse("admin:otb_otbplayer_change", args=[OtbBye.objects.get().player_id])
    ]
    assert "Riposi richiesti" in player_page and "mezzo punto" in player_page


def test_staff_correct_the_name_and_nothing_of_the_table(client, staff):
    organizer = UserFactory(username="arbitro")
    tournament = scenario.open_tournament(organizer)
    scenario.play(tournament, organizer, rounds=range(1, 2))
    url = reverse("admin:otb_otbtournament_change", args=[tournament.pk])
    response = resubmit(
        client, url, name="Open di Natale", status="entries", total_rounds="3", _save="Salva"
    )
    assert messages_of(response) == ["Il torneo a tavolino «Open di Natale» è stato modificato."]
    tournament.refresh_from_db()
    assert tournament.name == "Open di Natale"
    assert (tournament.status, tournament.total_rounds) == ("running", 7)  # read only
    round_ = tournament.rounds.get(number=1)
    assert (
        client.get(reverse("admin:otb_otbround_change", args=[round_.pk])).context[
            "has_change_permission"
        ]
        is False
    )


def test_a_correction_writes_only_its_columns_under_the_lock_and_tells_the_pages(client, staff):
    """The admin's own save would write every column as read when the POST began: a status or
    version an arbiter's change committed meanwhile would be written back. Only the corrected
    columns are written, after the tournament's row is locked, and its version moves on (its
    public page re-reads)."""
    organizer = UserFactory(username="arbitro")
    tournament = scenario.open_tournament(organizer)
    url = reverse("admin:otb_otbtournament_change", args=[tournament.pk])
    before = OtbTournament.objects.get(pk=tournament.pk).version
    with CaptureQueriesContext(connection) as queries:
        response = resubmit(client, url, venue="Sala Borsa", _save="Salva")
    assert response.status_code == 200
    table = OtbTournament._meta.db_table
    statements = [q["sql"] for q in queries.captured_queries if f'"{table}"' in q["sql"]]
    (locked,) = [i for i, sql in enumerate(statements) if "FOR UPDATE" in sql]
    (corrected,) = [
        i for i, sql in enumerate(statements) if sql.startswith("UPDATE") and '"venue"' in sql
    ]
    assert locked < corrected
    assert '"status"' not in statements[corrected] and '"version"' not in statements[corrected]
    tournament = OtbTournament.objects.get(pk=tournament.pk)
    assert tournament.venue == "Sala Borsa" and tournament.version == before + 1
