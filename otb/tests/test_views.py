"""The arbiter's table's pages (RULES 13): who sees what, the forms, the round sheet's row
for htmx, every printout."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import formats, timezone

from accounts.tests.factories import UserFactory
from otb import services
from otb.models import OtbBoard, OtbTournament
from otb.tests.test_services import field

pytestmark = pytest.mark.django_db


def test_opening_one_through_the_form(client):
    organizer = UserFactory()
    client.force_login(organizer)
    form = {
        "name": "Semilampo di Natale",
        "variant": "italian",
        "cadence": "blitz",
        "time_control": "10'",
        "format_choice": "auto",
        "rounds_wanted": "",
        "venue": "Sede",
        "starts_on": "2026-12-20",
        "ends_on": "2026-12-19",
        "prohibited_rounds": "0",
    }
    response = client.post(reverse("otb:new"), form)
    assert response.status_code == 200 and "viene prima del primo" in response.text
    assert not OtbTournament.objects.exists()
    response = client.post(reverse("otb:new"), form | {"ends_on": "2026-12-20"})
    tournament = OtbTournament.objects.get()
    assert response.url == reverse("otb:desk", args=[tournament.pk])
    assert tournament.is_draughts and tournament.organizer == organizer


def test_the_desk_is_the_arbiters_and_a_broken_csv_names_its_line(client):
    organizer = UserFactory()
    tournament = field(organizer)
    client.force_login(UserFactory())
    assert client.get(reverse("otb:desk", args=[tournament.pk])).status_code == 404
    client.force_login(organizer)
    assert client.get(reverse("otb:desk", args=[tournament.pk])).status_code == 200
    upload = SimpleUploadedFile("g.csv", b"cognome;elo_italia\nNuovo;1500\nAltro;tanti\n")
    response = client.post(
        reverse("otb:action", args=[tournament.pk, "importa"]), {"file": upload}, follow=True
    )
    assert "riga 3: elo_italia: «tanti» non è un numero" in response.text
    assert tournament.players.count() == 8
    model = client.get(reverse("otb:csv_model"))
    assert model["Content-Disposition"] == 'attachment; filename="giocatori.csv"'
    assert model.content.decode().startswith("cognome;nome;sesso;")


def test_the_round_sheet_saves_a_typed_result_and_answers_its_row(client):
    organizer = UserFactory()
    tournament = field(organizer)
    client.force_login(organizer)
    client.post(reverse("otb:action", args=[tournament.pk, "abbina"]))
    client.post(reverse("otb:round_action", args=[tournament.pk, 1, "pubblica"]))
    url = reverse("otb:round_action", args=[tournament.pk, 1, "risultato"])
    response = client.post(url, {"board": "2", "typed": "="}, headers={"HX-Request": "true"})
    assert response.status_code == 200
    assert response.text.lstrip().startswith('<tr id="board-2"')
    assert 'value="½-½"' in response.text
    assert OtbBoard.objects.get(round__tournament=tournament, board=2).result == "½-½"
    response = client.post(url, {"board": "2", "typed": "7"}, headers={"HX-Request": "true"})
    assert "non è un risultato" in response.text and 'role="alert"' in response.text
    response = client.post(url, {"board": "99", "typed": "1"}, headers={"HX-Request": "true"})
    assert response.status_code == 422 and "non è un incontro del turno 1" in response.text


def test_the_public_page_and_the_printouts(client):
    organizer = UserFactory()
    tournament = field(organizer)
    services.round_pair(tournament_id=tournament.pk, by=organizer)
    public = reverse("otb:public", args=[tournament.pk])
    assert "Nessun turno pubblicato" in client.get(public).text  # the draft is not shown
    services.round_publish(tournament_id=tournament.pk, by=organizer, number=1)
    services.result_set(tournament_id=tournament.pk, by=organizer, number=1, board=1, typed="1")
    page = client.get(public)
    assert 'data-event-socket="/ws/otb/' in page.text and "1-0" in page.text
    fragment = client.get(public, headers={"HX-Request": "true"})
    assert "<h1>" not in fragment.text and "otb-public-boards" in fragment.text
    for name, args in (
        ("print_pairings", [tournament.pk, 1]),
        ("print_standings", [tournament.pk]),
        ("print_cross", [tournament.pk]),
    ):
        assert client.get(reverse(f"otb:{name}", args=args)).status_code == 200, name
    for name in ("print_labels", "print_slips"):
        assert client.get(reverse(f"otb:{name}", args=[tournament.pk, 1])).status_code == 404
    assert client.get(reverse("otb:trf", args=[tournament.pk])).status_code == 404
    client.force_login(organizer)
    for name in ("print_labels", "print_slips"):
        assert client.get(reverse(f"otb:{name}", args=[tournament.pk, 1])).status_code == 200
    trf = client.get(reverse("otb:trf", args=[tournament.pk]))
    assert trf.content.decode().startswith("012 Sociale\n022 Sede\n")
    assert client.get(reverse("otb:elo", args=[tournament.pk])).status_code == 200


def test_a_refused_exchange_says_why_and_stays_in_the_round_s_record(client):
    organizer = UserFactory()
    tournament = field(organizer, prohibited_rounds=1)  # families F0 and F1 kept apart
    services.round_pair(tournament_id=tournament.pk, by=organizer)
    boards = list(tournament.rounds.get(number=1).boards.select_related("white", "black"))
    b1, b2 = boards[0], boards[1]
    kin = b2.white if b2.white.family == b1.white.family else b2.black
    pairs = [(b.white_id, b.black_id) for b in boards]
    client.force_login(organizer)
    response = client.post(
        reverse("otb:round_action", args=[tournament.pk, 1, "scambia"]),
        {"first": b1.black.number, "second": kin.number},
        follow=True,
    )
    assert "regola 13.7" in response.text and "forzatura esplicita" in response.text
    after = tournament.rounds.get(number=1).boards.order_by("board")
    assert [(b.white_id, b.black_id) for b in after] == pairs  # the pairing is untouched
    record = response.context["rnd"].record
    assert [e["what"] for e in record] == ["paired", "exchange"] and record[1]["refused"]
    assert "RIFIUTATO" in response.text.split('data-testid="otb-record"')[1]


def test_numbers_too_large_for_their_columns_are_form_errors_not_failures(client):
    # Bad input: a clear error and nothing saved (a number past its column was a 500).
    organizer = UserFactory()
    tournament = field(organizer)
    client.force_login(organizer)
    player = tournament.players.order_by("pk").first()

    def post(action, data):
        return client.post(reverse("otb:action", args=[tournament.pk, action]), data)

    response = post("ritiro", {"w-player": player.pk, "w-from_round": "40000"})
    assert response.status_code == 400
    response = post("riposo", {"b-player": player.pk, "b-round_number": "40000", "b-kind": "half"})
    assert response.status_code == 400
    response = post("giocatore", {"p-last_name": "Lungo", "p-fide_id": "9" * 20})
    assert response.status_code == 400
    response = post("giocatore", {"p-last_name": "Lungo", "p-fide_id": "1234567890123"})
    assert response.status_code == 400  # a FIDE id has at most 11 digits (the TRF's column)
    response = post("ritiro", {"w-player": player.pk, "w-from_round": "9"})
    assert "Il torneo ha 4 turni" in client.get(response.url).text  # a Swiss of 4 typed
    player.refresh_from_db()
    assert player.withdrawn_from is None and not player.byes.exists()
    assert tournament.players.count() == 8


def test_a_player_with_an_unknown_site_user_keeps_what_was_typed(client):
    # The desk's add-player form: the error under its field, in the form's words, the typed
    # fields still there, nothing saved.
    organizer = UserFactory()
    tournament = field(organizer)
    client.force_login(organizer)
    response = client.post(
        reverse("otb:action", args=[tournament.pk, "giocatore"]),
        {
            "p-last_name": "Tale",
            "p-first_name": "Nessuno",
            "p-club": "Sede",
            "p-username": "nessuno_tale",
        },
    )
    assert response.status_code == 400
    form = response.context["player_form"]
    assert form.errors == {"username": ["Nessun utente del sito si chiama «nessuno_tale»."]}
    page = response.text
    assert 'value="Tale"' in page and 'value="Nessuno"' in page and 'value="nessuno_tale"' in page
    assert '<div id="id_p-username_error"><p class="error" role="alert">Nessun utente' in page
    assert "Riga 0" not in page
    assert tournament.players.count() == 8
    # A refusal of the service (a late entry while the round is a draft) keeps them too.
    services.round_pair(tournament_id=tournament.pk, by=organizer)
    response = client.post(
        reverse("otb:action", args=[tournament.pk, "giocatore"]),
        {"p-last_name": "Tardi", "p-first_name": "Arrivato"},
    )
    assert response.status_code == 400 and 'value="Tardi"' in response.text
    assert response.context["player_form"].non_field_errors() == [
        "Il turno 1 è in bozza: annulla l'abbinamento o pubblicalo, poi iscrivi."
    ]
    assert tournament.players.count() == 8


def test_rule_references_read_as_the_site_words_them(client, settings):
    # "regola 13.4" in Italian, "rule 13.4" in English: never the code's "RULES 13.4".
    organizer = UserFactory()
    tournament = field(organizer)
    client.force_login(organizer)
    services.round_pair(tournament_id=tournament.pk, by=organizer)
    pages = {
        "new": reverse("otb:new"),
        "desk": reverse("otb:desk", args=[tournament.pk]),
        "elo": reverse("otb:elo", args=[tournament.pk]),
    }
    for language, word in (("it", "regola"), ("en", "rule")):
        client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
        text = {name: client.get(url).text for name, url in pages.items()}
        assert f"({word} 4.4)" in text["new"]
        assert f"({word} 13.3)" in text["desk"] and f"({word} 13.4)" in text["desk"]
        assert f"({word} 13.10)" in text["elo"]
        assert not [name for name, page in text.items() if "RULES" in page]


def _forms_validated_by_the_browser(page: str) -> list[str]:
    """The opening tags of the page's forms with a field to type in and no `novalidate`."""
    found = []
    for form in re.findall(r"<form\b.*?</form>", page, flags=re.S):
        tag = form[: form.index(">") + 1]
        typed = re.search(r'<(select|textarea)\b|<input\b(?![^>]*type="hidden")', form)
        if typed and "novalidate" not in tag:
            found.append(tag)
    return found


def test_the_forms_leave_their_errors_to_the_site_not_the_browser(client):
    # The browser's own bubbles ("Please fill out this field.") would come before the site's
    # Italian errors under the fields: every form with a field is `novalidate`.
    organizer = UserFactory()
    tournament = field(organizer)
    client.force_login(organizer)
    services.round_pair(tournament_id=tournament.pk, by=organizer)
    draft = client.get(reverse("otb:round", args=[tournament.pk, 1])).text
    services.round_publish(tournament_id=tournament.pk, by=organizer, number=1)
    published = client.get(reverse("otb:round", args=[tournament.pk, 1])).text
    pages = {
        "new": client.get(reverse("otb:new")).text,
        "desk": client.get(reverse("otb:desk", args=[tournament.pk])).text,
        "draft": draft,
        "published": published,
    }
    assert 'data-testid="otb-exchange"' in draft and 'name="typed"' in published
    assert {name: _forms_validated_by_the_browser(page) for name, page in pages.items()} == {
        name: [] for name in pages
    }


def test_the_round_s_record_says_when_in_the_site_s_local_time(client):
    # The record keeps UTC ISO times; the page shows them as the site shows a moment elsewhere
    # (Europe/Rome, DATETIME_FORMAT), not "2026-12-07T04:53:02+00:00".
    organizer = UserFactory()
    tournament = field(organizer)
    client.force_login(organizer)
    services.round_pair(tournament_id=tournament.pk, by=organizer)
    round_ = tournament.rounds.get(number=1)
    round_.record[0]["at"] = "2026-07-01T04:53:02+00:00"  # summer: Rome is UTC+2
    round_.save(update_fields=["record"])
    page = client.get(reverse("otb:round", args=[tournament.pk, 1])).text
    record = page.split('data-testid="otb-record"')[1].split("</ol>")[0]
    moment = datetime(2026, 7, 1, 4, 53, 2, tzinfo=UTC)
    expected = formats.date_format(timezone.localtime(moment), "DATETIME_FORMAT")
    assert "06:53" in expected and expected in record
    assert "+00:00" not in record and "T04:53" not in record
