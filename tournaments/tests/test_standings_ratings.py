"""The final standings' rating change and performance (RULES 7.1; FIDE's performance formula,
ratings/performance.py), read from a tournament run to its end in the database."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tournaments.models import Tournament
from tournaments.selectors import run_standings
from tournaments.tests.factories import tick
from tournaments.tests.test_run import T0, make, run_stronger_wins

pytestmark = pytest.mark.django_db


def test_rated_round_robin_shows_change_and_performance(client, django_assert_max_num_queries):
    """Five players at 1500, four games and a bye each, the stronger always winning: the period
    gives +60 … −60 (K 30, expected 2.0 of 4) and the performance is 1500 + dp(p) with p = 1,
    .75, .5, .25, 0 (dp 800, 193, 0, −193, −800); the bye counts for neither."""
    tournament = make(5)
    users = run_stronger_wins(tournament)
    rows = {r.username: r for r in run_standings(tournament)}
    got = [
        (rows[u.username].rank, rows[u.username].rating_change, rows[u.username].performance)
        for u in users
    ]
    assert got == [(1, 60, 2300), (2, 30, 1693), (3, 0, 1500), (4, -30, 1307), (5, -60, 700)]
    assert all(r.rated for r in rows.values())

    # The page shows both columns and says in the legend that the performance is FIDE's.
    with django_assert_max_num_queries(40):
        page = client.get(reverse("tournaments:detail", args=[tournament.pk])).content.decode()
    assert 'data-testid="rating-change-head"' in page
    assert ">+60<" in page and ">\u221260<" in page
    assert ">2300<" in page and ">700<" in page
    assert "formula FIDE" in page
    printed = client.get(reverse("tournaments:print", args=[tournament.pk])).content.decode()
    assert 'data-testid="performance-head"' in printed


def test_unrated_or_running_tournaments_show_no_rating_columns(client):
    """A casual tournament is never rated (RULES 7.2): no columns, no legend line; nor while a
    rated one is still running (it is rated once, at its end: RULES 7.1)."""
    casual = make(4, rated=False)
    run_stronger_wins(casual)
    rows = run_standings(casual)
    assert rows and not any(r.rated for r in rows)
    assert {(r.rating_change, r.performance) for r in rows} == {(None, None)}
    page = client.get(reverse("tournaments:detail", args=[casual.pk])).content.decode()
    assert 'data-testid="rating-change-head"' not in page
    assert 'data-testid="legend-rating"' not in page

    running = make(4)
    tick(T0)
    running.refresh_from_db()
    assert running.status == Tournament.Status.RUNNING
    assert not any(r.rated for r in run_standings(running))
