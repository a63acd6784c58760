"""RULES 16.6, one board at a time, through the event pages: a player named in a line-up (board
or reserve) of a match not over posts the tournament's join form or the arena's entry form for
an event whose time overlaps the match's; the page says why, naming the match, both as a page
(the form posted, then its page) and as the fragment htmx swaps in, and nothing is saved."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from arena.models import Arena, Entry
from arena.tests.factories import ArenaFactory
from teams import services
from teams.tests.factories import open_match, side
from tournaments.models import Registration
from tournaments.tests.factories import TournamentFactory

pytestmark = pytest.mark.django_db

REFUSAL = "Sei nella formazione di «Milano – Torino», che si gioca nello stesso tempo"


@pytest.fixture
def named():
    """A match of 2 boards (10 minutes expected) with two board players and one reserve."""
    milano, torino = side([1900, 1800, 1700]), side([])
    match = open_match(milano, torino, boards=2, name="Milano – Torino")
    services.lineup_set(
        match_id=match.pk, by=milano.captain, player_ids=[p.pk for p in milano.players]
    )
    return match, milano.players


def _events(match):
    now = timezone.now()
    return {
        "tournament": TournamentFactory(name="Lampo", starts_at=match.starts_at),
        "scheduled arena": ArenaFactory(
            starts_at=match.starts_at - timedelta(minutes=30), duration_minutes=60
        ),
        "running arena": ArenaFactory(
            starts_at=now - timedelta(minutes=10),
            duration_minutes=180,
            status=Arena.Status.RUNNING,
        ),
    }


def _post(client, event, *, htmx: bool):
    name = "tournaments:join" if event._meta.model_name == "tournament" else "arena:enter"
    url = reverse(name, args=[event.pk])
    if htmx:
        return client.post(url, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="live")
    return client.post(url, follow=True)


@pytest.mark.parametrize("htmx", [False, True], ids=["page", "htmx"])
@pytest.mark.parametrize("who", [0, 2], ids=["board 1", "reserve"])
def test_the_join_and_entry_forms_refuse_a_named_player_naming_the_match(client, named, htmx, who):
    match, players = named
    client.force_login(players[who])
    for label, event in _events(match).items():
        response = _post(client, event, htmx=htmx)
        assert response.status_code == 200, label
        page = response.content.decode()
        assert REFUSAL in page, label
        if htmx:  # the fragment, not the whole page, with the message for the page's #messages
            assert "<html" not in page and 'hx-swap-oob="true"' in page, label
        else:
            assert response.redirect_chain == [(event.get_absolute_url(), 302)], label
        # The message is said once: the next page does not say it again.
        assert REFUSAL not in client.get(event.get_absolute_url()).content.decode(), label
    assert not Registration.objects.exists()
    assert not Entry.objects.exists()


def test_once_the_match_is_cancelled_the_same_forms_let_the_player_in(client, named):
    match, players = named
    events = _events(match)
    services.match_cancel(match_id=match.pk, by=match.opened_by)
    client.force_login(players[2])
    for event in events.values():
        page = _post(client, event, htmx=True).content.decode()
        assert REFUSAL not in page
    assert Registration.objects.filter(player=players[2]).count() == 1
    assert Entry.objects.filter(player=players[2]).count() == 2


def test_a_member_not_named_is_let_in(client, named):
    match, _players = named
    outsider = side([1600]).players[0]
    client.force_login(outsider)
    tournament = _events(match)["tournament"]
    response = _post(client, tournament, htmx=False)
    assert REFUSAL not in response.content.decode()
    assert Registration.objects.filter(player=outsider, tournament=tournament).exists()
