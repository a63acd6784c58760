"""A round's page says why it was paired as it was, from the trace the engine kept."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tournaments.tests.test_run import make, run
from tournaments.why import reasons

pytestmark = pytest.mark.django_db

NAMES = {1: "anna", 2: "bruno", 3: "carla", 4: "dario", 5: "elena"}


@pytest.mark.parametrize(
    ("step", "words"),
    [
        ({"kind": "bye", "rule": "Lim 1", "players": [5], "score": 2, "detail": "lowest"},
         "Riposo a elena (5): è il più basso in classifica del gruppo di punteggio più basso"),
        ({"kind": "skip", "rule": "Lim 1", "players": [4], "score": 2, "detail": "had-bye"},
         "dario (4) non riposa: ha già riposato."),
        ({"kind": "float", "rule": "Lim 4a", "players": [1], "score": 4, "detail": "down met-all"},
         "anna (1) scende dal gruppo di 4 punti: ha già incontrato tutti gli altri del gruppo."),
        ({"kind": "float", "rule": "Lim 5.3", "players": [3], "score": 0, "detail": "up even-d"},
         "carla (3) sale dal gruppo di 0 punti: il gruppo era dispari"),
        ({"kind": "pair", "rule": "Lim 8.1", "players": [1, 3, 2], "score": 2,
          "detail": "transposition incompatible"},
         "anna (1) – carla (3): trasposizione nella metà bassa, invece di bruno (2) (non possono incontrarsi)."),
        ({"kind": "pair", "rule": "Lim 8.1", "players": [1, 4, 2], "score": 2,
          "detail": "exchange rest"},
         "scambio con la metà alta, invece di bruno (2) (il resto del gruppo non si sarebbe potuto abbinare)."),
        ({"kind": "pair", "rule": "Lim 10.3", "players": [1, 4, 2], "score": 2, "detail": "colour rest"},
         "anna (1) – dario (4): preferito a bruno (2) perché dovuto al colore opposto."),
        ({"kind": "colour", "rule": "Lim 10.4", "players": [2, 1], "score": 2, "detail": "history"},
         "bruno (2) col Bianco contro anna (1): entrambi dovuti allo stesso colore"),
        ({"kind": "berger", "rule": "RULES 5.1", "players": [], "score": None, "detail": "5 3"},
         "tabella di Berger per 5 giocatori, turno 3."),
    ],
)  # fmt: skip
def test_each_decision_in_words_with_its_rule(step, words):
    [said] = reasons([step], NAMES)
    assert words in said.text and said.rule == step["rule"]


def test_a_swiss_round_page_says_why_and_the_list_of_rounds_gets_the_table_alone(client):
    tournament = make(9)
    run(tournament)
    tournament.refresh_from_db()
    assert tournament.format == "swiss"
    url = reverse("tournaments:round", args=[tournament.pk, 2])
    page = client.get(url).content.decode()
    assert 'data-testid="why-pairings"' in page and "Perché questi abbinamenti" in page
    assert "Riposo a" in page and "Lim 1" in page and "col Bianco" in page and "Lim 3" in page
    fragment = client.get(url, HTTP_HX_REQUEST="true").content.decode()
    assert "why-pairings" not in fragment


def test_a_round_robin_round_names_its_berger_row(client):
    tournament = make(5)
    run(tournament)
    page = client.get(reverse("tournaments:round", args=[tournament.pk, 3])).content.decode()
    assert "tabella di Berger per 5 giocatori, turno 3" in page
