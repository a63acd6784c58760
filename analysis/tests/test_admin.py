"""The computer analyses in the admin (RULES 14), in Italian and read only: the list with the
game, the state, who asked, the times and the error, filtered by state; an analysis's page with
its requests; nothing added, changed or deleted there (`analysis.services` writes them)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from accounts.tests.factories import UserFactory
from analysis.models import AnalysisRequest, GameAnalysis
from games.tests.factories import open_game

pytestmark = pytest.mark.django_db
State = GameAnalysis.State


@pytest.fixture
def staff(client):
    boss = UserFactory(username="boss", is_staff=True, is_superuser=True)
    client.force_login(boss)
    client.cookies.load({"django_language": "it"})
    return boss


def analyses():
    asker = UserFactory(username="chiede")
    now = timezone.now()
    done = GameAnalysis.objects.create(
        game=open_game(),
        requested_by=asker,
        state=State.DONE,
        engine="stockfish",
        nodes=200_000,
        requested_at=now - timedelta(minutes=5),
        started_at=now - timedelta(minutes=4),
        finished_at=now - timedelta(minutes=3),
        white_accuracy=91.5,
    )
    failed = GameAnalysis.objects.create(
        game=open_game(),
        requested_by=UserFactory(username="altro"),
        state=State.FAILED,
        requested_at=now,
        error="engine died at ply 12",
    )
    AnalysisRequest.objects.create(player=asker, analysis=done, asked_at=done.requested_at)
    return done, failed


def test_the_list_says_in_italian_who_asked_when_and_why_one_failed(client, staff):
    done, failed = analyses()
    url = reverse("admin:analysis_gameanalysis_changelist")
    page = client.get(url).content.decode()
    for label in ("Partita", "Stato", "Motore", "Chiesta da", "Chiesta il", "Iniziata il"):
        assert f">{label}<" in page, label
    assert "Finita il" in page and "Errore" in page
    assert "engine died at ply 12" in page and "chiede" in page
    assert "non riuscita" in page and "pronta" in page  # the states' Italian names
    # Filtered by state: the failed one alone.
    page = client.get(url, {"state__exact": "failed"}).content.decode()
    assert "engine died at ply 12" in page and f"/{done.pk}/change/" not in page
    # Found by who asked.
    page = client.get(url, {"q": "altro"}).content.decode()
    assert f"/{failed.pk}/change/" in page and f"/{done.pk}/change/" not in page


def test_an_analysis_is_read_there_never_changed(client, staff):
    done, _failed = analyses()
    url = reverse("admin:analysis_gameanalysis_change", args=[done.pk])
    page = client.get(url).content.decode()
    assert "Richieste di analisi" in page  # its requests, inline
    assert "Conta nel limite del giorno" in page
    assert reverse("games:analysis", args=[done.game_id]) in page
    assert 'name="state"' not in page and 'name="_save"' not in page  # nothing to edit
    # Posting a change anyway changes nothing; there is no adding nor deleting.
    assert client.post(url, {"state": "failed", "error": "x"}).status_code == 403
    done.refresh_from_db()
    assert done.state == State.DONE and done.error == ""
    add = reverse("admin:analysis_gameanalysis_add")
    delete = reverse("admin:analysis_gameanalysis_delete", args=[done.pk])
    assert client.get(add).status_code == 403
    assert client.post(delete, {"post": "yes"}).status_code == 403
    assert GameAnalysis.objects.filter(pk=done.pk).exists()
    # And only the staff see it.
    client.force_login(UserFactory())
    assert client.get(url).status_code == 302  # to the admin's log-in
