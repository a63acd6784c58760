"""Player page ratings, leaderboards and admin."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from django.template import Context, Template
from django.urls import reverse
from django.utils import translation

from ratings.models import Rating, RatingChange
from ratings.services import GameResult, game_rate
from ratings.tests.factories import FinishedGameFactory, PlayerFactory, RatingFactory
from ratings.views import PAGE_SIZE

pytestmark = pytest.mark.django_db


def play(white, black, result=GameResult.WHITE_WINS, **overrides) -> None:
    game_rate(
        game=FinishedGameFactory(white_id=white.pk, black_id=black.pk, result=result, **overrides)
    )


def test_player_page_shows_ratings_and_a_chart_after_rated_games(client) -> None:
    player, rival = PlayerFactory(username="rossi"), PlayerFactory(username="bianchi")
    play(player, rival)
    play(rival, player, result=GameResult.BLACK_WINS)
    play(player, rival, variant="italian")

    response = client.get(reverse("player", args=["rossi"]))

    assert response.status_code == 200
    html = response.content.decode()
    assert 'data-testid="rating-chess-blitz"' in html
    assert 'data-testid="rating-italian-blitz"' in html
    assert "1530" in html  # two wins at blitz chess: 1500 -> 1515 -> 1530
    assert "Terza Nazionale" in html  # RULES 7.1: 1500-1599
    assert 'data-testid="chart-chess-blitz"' in html
    assert "<polyline" in html
    # The Italian locale must not turn SVG coordinates into "514,0".
    assert re.search(r'<circle class="chart-dot" cx="\d+\.\d" cy="\d+\.\d"', html)
    assert "/static/ratings/ratings.css" in html  # our own static file, no CDN
    assert "cdn" not in html.lower()


def test_player_ratings_tag_without_games() -> None:
    player = PlayerFactory()
    html = Template("{% load ratings_tags %}{% player_ratings player %}").render(
        Context({"player": player})
    )
    assert "Nessuna partita valutata" in html
    assert "<table" not in html


def test_player_ratings_tag_columns_and_chart_points() -> None:
    player = PlayerFactory()
    rating = RatingFactory(player=player, value=2210, peak=2250, games=12, cadence="rapid")
    html = Template("{% load ratings_tags %}{% player_ratings player %}").render(
        Context({"player": player})
    )
    assert "Maestro" in html and "Candidato" not in html
    assert ">12<" in html and ">2250<" in html
    assert "Rapido" in html
    assert rating.history.count() == 0  # no history yet: one point at the current value
    assert html.count('data-testid="chart-point"') == 1 and "<polyline" not in html


def test_player_ratings_tag_queries_do_not_grow_with_pools(django_assert_num_queries) -> None:
    player, rival = PlayerFactory(), PlayerFactory()
    for variant in ("chess", "italian", "english", "international"):
        play(player, rival, variant=variant)
    template = Template("{% load ratings_tags %}{% player_ratings player %}")
    with django_assert_num_queries(2):
        html = template.render(Context({"player": player}))
    assert html.count("<polyline") == 4


def chart_of(html: str, variant: str, cadence: str) -> str:
    start = html.index(f'data-testid="chart-{variant}-{cadence}"')
    return html[start : html.index("</figure>", start)]


def test_the_chart_has_dates_round_rating_lines_and_a_label_per_point() -> None:
    """A chart you can read: Italian dates under it, round ratings beside it, every
    point focusable with its value, change and date, and the same as a table."""
    player, rival = (
        PlayerFactory(date_joined=datetime(2026, 11, 2, 9, 0, tzinfo=UTC)),
        PlayerFactory(),
    )
    moments = [datetime(2026, 11, 3, 20, 0, tzinfo=UTC), datetime(2026, 12, 1, 20, 0, tzinfo=UTC)]
    for when, result in zip(moments, [GameResult.WHITE_WINS, GameResult.BLACK_WINS], strict=True):
        play(player, rival, result=result)
        RatingChange.objects.filter(created_at__gte=when).update(created_at=when)

    with translation.override("it"):
        html = Template("{% load ratings_tags %}{% player_ratings player %}").render(
            Context({"player": player})
        )
    chart = chart_of(html, "chess", "blitz")
    # 1500 at joining, +15 on 3 November, then a loss on 1 December (rounded as REI C says).
    dates = re.findall(r'data-testid="chart-date">([^<]+)<', chart)
    assert dates[0] == "2 nov 2026" and dates[-1] == "1 dic 2026", dates
    labels = re.findall(r'class="chart-label"[^>]*text-anchor="end">(\d+)<', chart)
    assert labels and all(int(v) % 5 == 0 for v in labels), labels
    points = re.findall(r'role="img" data-testid="chart-point"\s+aria-label="([^"]+)"', chart)
    assert points[0] == "1500, 2 nov 2026"
    assert points[1] == "1515 (+15), 3 nov 2026"
    assert re.fullmatch(r"15\d\d \(−\d+\), 1 dic 2026", points[2]), points[2]
    assert chart.count('tabindex="0"') == 3  # chart.js turns these into one tab stop
    assert chart.count('data-testid="chart-tip"') == 3
    assert "I valori in tabella" in chart and "iniziale" in chart
    assert "/static/ratings/chart.js" in html


def test_the_chart_dates_are_in_english_for_english_readers() -> None:
    player, rival = (
        PlayerFactory(date_joined=datetime(2026, 11, 2, 9, 0, tzinfo=UTC)),
        PlayerFactory(),
    )
    play(player, rival)
    with translation.override("en"):
        html = Template("{% load ratings_tags %}{% player_ratings player %}").render(
            Context({"player": player})
        )
    assert "Nov 2, 2026" in chart_of(html, "chess", "blitz")
    assert "Show the values as a table" in html


@pytest.mark.parametrize(("change", "text"), [(12, "+12"), (-8, "−8"), (0, "0"), (None, "")])
def test_signed_filter(change, text) -> None:
    html = Template("{% load ratings_tags %}{{ c|signed }}").render(Context({"c": change}))
    assert html == text


@pytest.mark.parametrize(
    ("rating", "name"),
    [(2400, "Maestro Internazionale"), (1399, "Categorie Inferiori"), (1400, "Prima Sociale")],
)
def test_rating_category_filter(rating: int, name: str) -> None:
    html = Template("{% load ratings_tags %}{{ r|rating_category }}").render(Context({"r": rating}))
    assert html == name


def test_leaderboard_lists_only_players_with_rated_games(client) -> None:
    RatingFactory(player=PlayerFactory(username="primo"), value=1800, games=3)
    RatingFactory(player=PlayerFactory(username="secondo"), value=1700, games=1)
    RatingFactory(player=PlayerFactory(username="maigiocato"), value=1900, games=0)
    RatingFactory(player=PlayerFactory(username="robot", is_bot=True), value=2500, games=9)
    RatingFactory(player=PlayerFactory(username="altrapool"), value=2000, games=5, cadence="rapid")

    response = client.get(reverse("ratings:leaderboard", args=["chess", "blitz"]))

    html = response.content.decode()
    assert response.status_code == 200
    assert html.index("primo") < html.index("secondo")
    for absent in ("maigiocato", "robot", "altrapool"):
        assert absent not in html
    assert "Prima Nazionale" in html


def test_leaderboard_is_paginated_and_htmx_gets_the_fragment(client) -> None:
    for n in range(PAGE_SIZE + 1):
        RatingFactory(player=PlayerFactory(username=f"p{n:03d}"), value=2000 - n, games=1)
    url = reverse("ratings:leaderboard", args=["chess", "blitz"])

    first = client.get(url).content.decode()
    second = client.get(url, {"page": 2}, headers={"HX-Request": "true"}).content.decode()

    assert "p000" in first and f"p{PAGE_SIZE:03d}" not in first
    assert "Pagina 1 di 2" in first
    assert f"p{PAGE_SIZE:03d}" in second and "p000" not in second
    assert "<html" not in second and 'id="leaderboard"' in second
    assert f"<td>{PAGE_SIZE + 1}</td>" in second  # the rank continues across pages


def test_leaderboard_queries_do_not_grow_with_players(client, django_assert_num_queries) -> None:
    for n in range(20):
        RatingFactory(value=1500 + n, games=1)
    url = reverse("ratings:leaderboard", args=["chess", "blitz"])
    client.get(url)  # warm up sessions and the like
    with django_assert_num_queries(2):  # count + page
        client.get(url, headers={"HX-Request": "true"})


@pytest.mark.parametrize(("variant", "cadence"), [("go", "blitz"), ("chess", "slow")])
def test_leaderboard_of_an_unknown_pool_is_404(client, variant: str, cadence: str) -> None:
    assert client.get(f"/ratings/{variant}/{cadence}/").status_code == 404


def test_leaderboards_index_shows_every_pool_with_its_top(
    client, django_assert_num_queries
) -> None:
    RatingFactory(player=PlayerFactory(username="campione"), value=1900, games=2)
    RatingFactory(player=PlayerFactory(username="damista"), variant="italian", games=2)
    with django_assert_num_queries(1):  # one window-function query for all 16 pools
        response = client.get(reverse("ratings:index"))
    html = response.content.decode()
    assert response.status_code == 200
    assert html.count('data-testid="pool-') == 16  # 4 variants x 4 cadences
    assert "campione" in html and "damista" in html
    assert "Dama italiana" in html and "Lampo" in html


# --- admin -----------------------------------------------------------------------------------


@pytest.fixture
def staff_client(client):
    admin = PlayerFactory(username="arbitro", is_staff=True, is_superuser=True)
    client.force_login(admin)
    return client


def test_admin_recompute_action(staff_client) -> None:
    player, rival = PlayerFactory(), PlayerFactory()
    play(player, rival)
    rating = Rating.objects.get(player=player)
    Rating.objects.filter(pk=rating.pk).update(value=1, games=0, peak=1)

    response = staff_client.post(
        reverse("admin:ratings_rating_changelist"),
        {"action": "recompute_from_history", "_selected_action": [rating.pk]},
        follow=True,
    )

    assert response.status_code == 200
    rating.refresh_from_db()
    assert (rating.value, rating.games, rating.peak) == (1515, 1, 1515)
    assert "ricalcolati" in response.content.decode()


def test_admin_history_is_read_only(staff_client) -> None:
    player, rival = PlayerFactory(), PlayerFactory()
    play(player, rival)
    change = Rating.objects.get(player=player).history.get()
    assert staff_client.get(reverse("admin:ratings_ratingchange_changelist")).status_code == 200
    assert staff_client.get(reverse("admin:ratings_ratingchange_add")).status_code == 403
    detail = staff_client.get(reverse("admin:ratings_ratingchange_change", args=[change.pk]))
    assert detail.status_code == 200
    assert 'name="delta"' not in detail.content.decode()  # shown, not editable
    post = staff_client.post(
        reverse("admin:ratings_ratingchange_change", args=[change.pk]), {"delta": 99}
    )
    assert post.status_code == 403
    change.refresh_from_db()
    assert change.delta == 15
    rating_page = staff_client.get(reverse("admin:ratings_rating_change", args=[change.rating_id]))
    assert rating_page.status_code == 200
    assert staff_client.get(reverse("admin:ratings_ratingperiod_changelist")).status_code == 200


RATINGS_CATALOGUE = Path(__file__).resolve().parents[1] / "locale/en/LC_MESSAGES/django.mo"


@pytest.mark.skipif(
    not RATINGS_CATALOGUE.exists(), reason="compile messages first (make test does)"
)
def test_pages_in_english(client) -> None:
    player, rival = PlayerFactory(username="rossi"), PlayerFactory()
    play(player, rival)
    with translation.override("en"):
        html = Template("{% load ratings_tags %}{% player_ratings player %}").render(
            Context({"player": player})
        )
    assert "Elo Italia ratings" in html and "Third National" in html and "Blitz" in html
    client.post(reverse("set_language"), {"language": "en"})
    board = client.get(reverse("ratings:leaderboard", args=["chess", "blitz"]))
    assert "Leaderboard Chess · Blitz" in board.content.decode()
