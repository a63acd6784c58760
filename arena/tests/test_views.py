"""Arena pages (RULES 8): the list, the form, the detail page with its live fragment, the
player page; refusals shown on the page; query counts that do not grow."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from accounts.tests.factories import UserFactory
from arena.models import Arena, Entry
from arena.tests.factories import T0, ArenaFactory, EntryFactory, ms, on_page, tick

pytestmark = pytest.mark.django_db


def form_data(**overrides) -> dict:
    start = timezone.localtime(timezone.now() + timedelta(hours=2))
    data = {
        "name": "Arena del venerdì",
        "description": "Lampo per tutti",
        "variant": "chess",
        "time_control": "3+2",
        "starts_at": start.strftime("%Y-%m-%dT%H:%M"),
        "timezone": "Europe/Rome",
        "duration_minutes": "60",
        "opening_mode": "free",
        "rated": "on",
    }
    data.update(overrides)
    return data


def test_open_an_arena_through_the_form(client):
    user = UserFactory()
    client.force_login(user)
    assert client.get(reverse("arena:new")).status_code == 200
    response = client.post(reverse("arena:new"), form_data())
    arena = Arena.objects.get()
    assert response.status_code == 302 and response.url == arena.get_absolute_url()
    assert (arena.base_seconds, arena.increment_seconds, arena.duration_minutes) == (180, 2, 60)
    page = client.get(arena.get_absolute_url()).content.decode()
    assert "Arena del venerdì" in page and 'data-testid="enter"' in page


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"duration_minutes": "5"}, "duration_minutes"),
        ({"duration_minutes": "600"}, "duration_minutes"),
        ({"name": ""}, "name"),
        ({"time_control": "custom", "base_minutes": "500", "increment": "0"}, "base_minutes"),
        ({"opening_mode": "table1"}, "opening_mode"),  # table openings are for draughts
        ({"private": "on", "password": ""}, "password"),
        ({"private": "on", "password": "1234"}, "password"),  # 8 letters at least
        ({"rated": "", "floor": "1200"}, "floor"),
        ({"starts_at": "2020-01-01T10:00"}, "starts_at"),
        ({"timezone": "America"}, None),  # not a zone: the default is used, no 500
    ],
)
def test_the_form_refuses_with_a_message_and_saves_nothing(client, overrides, field):
    client.force_login(UserFactory())
    response = client.post(reverse("arena:new"), form_data(**overrides))
    if field is None:
        assert response.status_code == 302
        return
    assert response.status_code == 200
    assert field in response.context["form"].errors
    assert not Arena.objects.exists()


def test_unfair_openings_are_shown_as_casual_before_submitting(client):
    client.force_login(UserFactory())
    response = client.post(
        reverse("arena:new"),
        form_data(variant="italian", opening_mode="table_all"),
        HTTP_HX_REQUEST="true",
        HTTP_HX_TARGET="rated-hint",
    )
    assert 'data-testid="rated-hint"' in response.content.decode()
    assert not Arena.objects.exists()


def test_entering_from_the_page_and_the_buttons(client):
    arena = ArenaFactory(starts_at=timezone.now() + timedelta(minutes=30))
    player = UserFactory()
    client.force_login(player)
    response = client.post(reverse("arena:enter", args=[arena.pk]), follow=True)
    page = response.content.decode()
    assert Entry.objects.filter(arena=arena, player=player).exists()
    assert 'data-testid="pause"' in page and 'data-testid="leave"' in page
    client.post(reverse("arena:pause", args=[arena.pk]))
    page = client.get(arena.get_absolute_url()).content.decode()
    assert "Riprendi" in page


def test_the_live_leaderboard_and_player_page(client):
    arena = ArenaFactory(base_seconds=600)
    players = []
    for _ in range(4):
        entry = EntryFactory(arena=arena)
        on_page(arena, entry.player, T0)
        players.append(entry.player)
    tick(T0)
    fragment = client.get(arena.get_absolute_url(), HTTP_HX_REQUEST="true").content.decode()
    assert 'id="live"' in fragment and "<html" not in fragment
    assert fragment.count('data-testid="leader-row"') == 4
    assert 'data-testid="live-games"' in fragment
    page = client.get(reverse("arena:player", args=[arena.pk, players[0].username]))
    assert page.status_code == 200 and players[0].username in page.content.decode()


def test_pages_query_counts_do_not_grow_with_players(client):
    def queries(n: int) -> int:
        arena = ArenaFactory(base_seconds=600)
        for _ in range(n):
            on_page(arena, EntryFactory(arena=arena).player, T0)
        tick(T0)
        with CaptureQueriesContext(connection) as captured:
            assert client.get(arena.get_absolute_url()).status_code == 200
        return len(captured)

    assert queries(4) == queries(12)


def test_the_list_shows_arenas_by_status(client):
    ArenaFactory(name="Presto", starts_at=timezone.now() + timedelta(hours=3))
    ArenaFactory(name="Ora", status=Arena.Status.RUNNING)
    ArenaFactory(name="Annullata", status=Arena.Status.CANCELLED)
    page = client.get(reverse("arena:list")).content.decode()
    assert "Presto" in page and "Ora" in page
    # A cancelled arena stays, among the ended ones, marked.
    ended = page[page.index("Concluse") :]
    assert "Annullata" in ended and 'data-testid="cancelled-badge"' in ended
    fragment = client.get(reverse("arena:list") + "?variant=italian", HTTP_HX_REQUEST="true")
    assert "Presto" not in fragment.content.decode()


def test_the_game_page_of_an_arena_game_shows_the_arena_and_boost(client):
    arena = ArenaFactory(base_seconds=600)
    for _ in range(2):
        on_page(arena, EntryFactory(arena=arena).player, T0)
    tick(T0)
    game = arena.arena_games.get().game
    client.force_login(game.white)
    page = client.get(reverse("games:game", args=[game.pk])).content.decode()
    assert 'data-testid="game-event"' in page and arena.name in page
    assert 'data-testid="boost"' in page and 'data-event-returns="1"' in page


def test_admin_lists_arenas_and_cancels(admin_client):
    arena = ArenaFactory(starts_at=timezone.now() + timedelta(hours=1))
    assert admin_client.get(reverse("admin:arena_arena_changelist")).status_code == 200
    assert admin_client.get(reverse("admin:arena_arena_change", args=[arena.pk])).status_code == 200
    admin_client.post(
        reverse("admin:arena_arena_changelist"),
        {"action": "cancel_arenas", "_selected_action": [arena.pk]},
    )
    arena.refresh_from_db()
    assert arena.status == Arena.Status.CANCELLED


def test_the_organiser_controls_are_in_the_live_fragment_until_the_start(client):
    """After the start a refreshed fragment drops "Modifica / Annulla"; a private
    arena's opener enters without typing their own password."""
    from django.contrib.auth.hashers import make_password

    arena = ArenaFactory(
        starts_at=timezone.now() + timedelta(hours=1), password_hash=make_password("x")
    )
    client.force_login(arena.opened_by)
    url = reverse("arena:detail", args=[arena.pk])
    fragment = client.get(url, HTTP_HX_REQUEST="true").content.decode()
    assert 'data-testid="organizer"' in fragment and 'data-testid="countdown"' in fragment
    assert "enter-password" not in fragment  # the opener needs no password
    client.post(reverse("arena:enter", args=[arena.pk]))
    assert Entry.objects.filter(arena=arena, player=arena.opened_by).exists()
    Arena.objects.filter(pk=arena.pk).update(
        starts_at=timezone.now() - timedelta(minutes=1), status=Arena.Status.RUNNING
    )
    fragment = client.get(url, HTTP_HX_REQUEST="true").content.decode()
    assert 'data-testid="organizer"' not in fragment and "Modifica" not in fragment
    # The time to the end is written by the server, never an empty countdown.
    assert re.search(r'data-testid="time-to-end">\d+ min \d\d s<', fragment)


def _admin_post_data(response) -> dict:
    """What the admin's change form would post back unchanged (its fields as shown, the inline
    entries' management form), to be edited by a test."""
    from django.forms import MultiWidget

    data: dict = {}

    def add(form) -> None:
        for bound in form:
            if isinstance(bound.field.widget, MultiWidget):
                shown = bound.field.widget.get_context(bound.html_name, bound.value(), {})
                for sub in shown["widget"]["subwidgets"]:
                    data[sub["name"]] = sub["value"] or ""
                continue
            value = bound.value()
            if value is None or value is False:
                continue
            if value is True:
                data[bound.html_name] = "on"
            elif isinstance(value, datetime):
                data[bound.html_name] = timezone.localtime(value).strftime("%Y-%m-%d %H:%M:%S")
            else:
                data[bound.html_name] = bound.field.widget.format_value(value) or value

    add(response.context["adminform"].form)
    for inline in response.context["inline_admin_formsets"]:
        add(inline.formset.management_form)
        for form in inline.formset.forms:
            add(form)
    return data


def test_staff_moving_the_end_in_the_admin_reschedules_and_tells_the_pages(
    admin_client, django_capture_on_commit_callbacks
):
    # A running arena's end moved into the past through the admin is in the tick's
    # schedule at once (its games end at the grace's end, not later), and open pages are told.
    from arena import running
    from arena.tests.test_run import live
    from live import pushes

    now = timezone.now()
    arena = ArenaFactory(starts_at=now - timedelta(minutes=30), duration_minutes=60)
    for _ in range(2):
        on_page(arena, EntryFactory(arena=arena).player, now)
    running.arena_advance(arena_id=arena.pk, now=now)
    (game,) = live(arena)
    url = reverse("admin:arena_arena_change", args=[arena.pk])
    data = _admin_post_data(admin_client.get(url))
    assert data["duration_minutes"] == "60"
    data["duration_minutes"] = "15"  # the end 15 minutes ago: the grace is over
    with pushes.collected() as outbox, django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(url, data)
    assert response.status_code == 302, response.context["adminform"].form.errors
    arena.refresh_from_db()
    assert arena.next_due_at == arena.ends_at + running.GRACE <= timezone.now()
    assert (running.group_name(arena.pk), {"type": "arena.changed"}) in [
        (group, message) for group, message in outbox
    ]
    running.arenas_due_process()  # the next tick
    arena.refresh_from_db()
    game.refresh_from_db()
    assert game.status == "finished" and arena.status == Arena.Status.FINISHED


def test_after_the_end_no_streak_badge_and_the_ratings_at_its_end(client):
    # A finished arena shows no "in serie" badge and the ratings its players held
    # at its end (its own games rated), not today's.
    from arena import running
    from arena.tests.test_run import live, sit
    from games import services as games
    from games.services import game_settle
    from ratings.models import Rating

    now = timezone.now()
    arena = ArenaFactory(starts_at=now - timedelta(minutes=11), duration_minutes=10)
    a, b = (EntryFactory(arena=arena).player for _ in range(2))
    began = now - timedelta(seconds=90)  # started late by the tick: ends a minute ago
    for player in (a, b):
        on_page(arena, player, began)
    running.arena_advance(arena_id=arena.pk, now=began)
    (game,) = live(arena)
    sit(game, began)
    games.game_resign(game_id=game.pk, user_id=game.black_id, at_ms=ms(now))
    game_settle(game_id=game.pk)  # rated, scored; the arena closes
    arena.refresh_from_db()
    assert arena.status == Arena.Status.FINISHED
    Entry.objects.filter(arena=arena).update(on_streak=True)  # as if a streak had been left
    at_end = dict(
        Rating.objects.filter(player__in=(a, b), variant="chess", cadence="blitz").values_list(
            "player_id", "value"
        )
    )
    # Later, outside the arena, the winner loses a rated game: today's rating changes.
    winner = game.white_id
    later = games.game_open(
        white_id=winner,
        black_id=UserFactory().pk,
        variant_code="chess",
        base_seconds=180,
        increment_seconds=2,
        rated=True,
        at_ms=ms(timezone.now()),
    )
    sit(later, timezone.now())
    games.game_resign(game_id=later.pk, user_id=winner, at_ms=ms(timezone.now()))
    game_settle(game_id=later.pk)
    today = Rating.objects.get(player_id=winner, variant="chess", cadence="blitz").value
    assert today != at_end[winner]
    page = client.get(reverse("arena:detail", args=[arena.pk])).content.decode()
    row = re.search(rf'data-player="{game.white.username}">.*?</tr>', page, re.S).group(0)
    assert f'<span class="muted">{at_end[winner]}</span>' in row
    assert "streak" not in row.split('class="sheet-col"')[0]  # no "in serie" badge


@pytest.mark.parametrize("variant", ["chess", "italian"])
def test_the_top_boards_of_a_running_arena(client, variant):
    """ "Prime scacchiere" (events/top_boards.py): the live games, the best-placed player's
    first, each named for a screen reader and drawn from the variant's geometry."""
    from games.models import Game

    arena = ArenaFactory(base_seconds=600, variant=variant)
    for _ in range(6):
        on_page(arena, EntryFactory(arena=arena).player, T0)
    tick(T0)
    games = list(Game.objects.filter(event_type__model="arena", event_id=arena.pk))
    assert len(games) == 3
    leader = games[-1]  # the last opened, so its board comes first only by rank
    Entry.objects.filter(arena=arena, player_id=leader.black_id).update(points=4, wins=1)
    fragment = client.get(arena.get_absolute_url(), HTTP_HX_REQUEST="true").content.decode()
    labels = re.findall(r'aria-label="(Scacchiera \d+: [^"]+)"', fragment)
    assert labels[0] == f"Scacchiera 1: {leader.white.username} – {leader.black.username}"
    assert len(labels) == 3
    assert f'href="/games/{leader.pk}/"' in fragment
    kind = "chessground" if variant == "chess" else "draughts"
    assert f"&quot;kind&quot;: &quot;{kind}&quot;" in fragment


def test_a_finished_rated_arena_shows_each_players_rating_change(client):
    """RULES 7.1: each arena game is rated on its own; the final leaderboard sums them."""
    from arena.tests.test_run import one_game_ending_in_the_grace
    from games.services import game_settle

    arena, game, late = one_game_ending_in_the_grace(loser="black")
    assert game_settle(game_id=game.pk)
    tick(late)
    arena.refresh_from_db()
    assert arena.status == Arena.Status.FINISHED
    page = client.get(arena.get_absolute_url()).content.decode()
    assert 'data-testid="arena-rating-change-head"' in page
    # 1500 against 1500, K 30: +15 and −15.
    winner = page.index(f'data-player="{game.white.username}"')
    loser = page.index(f'data-player="{game.black.username}"')
    assert ">+15<" in page[winner:loser] and ">\u221215<" in page[loser:]


def test_a_casual_or_running_arena_shows_no_rating_column(client):
    arena = ArenaFactory(base_seconds=600)
    for _ in range(2):
        on_page(arena, EntryFactory(arena=arena).player, T0)
    tick(T0)
    page = client.get(arena.get_absolute_url()).content.decode()
    assert 'data-testid="arena-rating-change-head"' not in page


def test_english_pages_say_durations_and_dates_in_english(client):
    """The durations were labelled once, in the language of the import ("10 minuti" on English
    pages), and the events' dates written with Italian's day-month order ("6 dec 2026")."""
    from django.conf import settings

    client.force_login(UserFactory())
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "it"
    assert "10 minuti" in client.get(reverse("arena:new")).content.decode()
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    form = client.get(reverse("arena:new")).content.decode()
    assert "10 minutes" in form and "10 minuti" not in form
    ended = ArenaFactory(
        name="Arena di dicembre", starts_at=datetime(2026, 12, 6, 18, 0, tzinfo=UTC)
    )
    Arena.objects.filter(pk=ended.pk).update(status="finished")
    listing = client.get(reverse("arena:list")).content.decode()
    assert "Dec 6, 2026" in listing and "6 dec 2026" not in listing.lower()
