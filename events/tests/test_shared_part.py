"""The part of an event's live page every viewer sees alike, rendered once per change
(events/shared_part.py): kept until the event's page group has another push, per language,
never the viewer's own bits, rendered per request with Redis away, once for many at a time."""

from __future__ import annotations

import threading

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import translation

from events import shared_part
from games import services as games
from live import pushes
from tournaments.tests.test_run import T0, live_games, ms
from tournaments.tests.test_run_views import started

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def parts_on(settings):
    settings.EVENT_PART_SECONDS = 60
    shared_part.forget()
    yield
    shared_part.forget()


def fetch(client, url, *, answering_push: bool = False) -> tuple[str, int]:
    headers = {**HX, "HTTP_X_EVENT_REFRESH": "push"} if answering_push else HX
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url, **headers)
    assert response.status_code == 200
    return response.content.decode(), len(queries)


def test_a_running_tournament_renders_its_run_once_per_change(
    client, parts_on, django_capture_on_commit_callbacks
):
    tournament = started(8)
    url = reverse("tournaments:detail", args=[tournament.pk])
    first_game, second_game = live_games(tournament)[:2]
    client.force_login(first_game.white)
    page, rendered = fetch(client, url)
    assert page.count('class="leg live"') == 4
    assert reverse("games:game", args=[first_game.pk]) in page.split('data-testid="run"')[0]

    # Another viewer: the run comes from the part kept, their own game is their own.
    client.force_login(second_game.black)
    page, kept = fetch(client, url)
    assert kept <= rendered - 5  # rounds, standings, top boards: not asked again
    assert page.count('class="leg live"') == 4
    mine = page.split('data-testid="run"')[0]
    assert reverse("games:game", args=[second_game.pk]) in mine
    assert reverse("games:game", args=[first_game.pk]) not in mine

    # A change that pushes nothing (a player renamed) is not seen while the part is young...
    rename(first_game.white, "rinominato")
    assert "rinominato" not in fetch(client, url)[0]
    # ...and is once a change is pushed: the push is counted after commit, before it is sent.
    with django_capture_on_commit_callbacks(execute=True):
        games.game_resign(game_id=second_game.pk, user_id=second_game.white_id, at_ms=ms(T0))
    page, _ = fetch(client, url)
    assert page.count('class="leg live"') == 3 and "rinominato" in page


def rename(user, name: str) -> None:
    type(user).objects.filter(pk=user.pk).update(username=name)


def test_a_part_lives_at_most_its_seconds(client, parts_on, monkeypatch):
    tournament = started(4)
    url = reverse("tournaments:detail", args=[tournament.pk])
    game = live_games(tournament)[0]
    now = [1000.0]
    monkeypatch.setattr(shared_part, "clock", lambda: now[0])
    assert "rinominato" not in fetch(client, url)[0]
    rename(game.white, "rinominato")  # no push
    now[0] += 59
    assert "rinominato" not in fetch(client, url)[0]
    now[0] += 1
    assert "rinominato" in fetch(client, url)[0]


def test_each_language_has_its_own_part(client, parts_on):
    tournament = started(4)
    url = reverse("tournaments:detail", args=[tournament.pk])
    assert "Classifica" in fetch(client, url)[0]
    client.cookies["django_language"] = "en"
    english, _ = fetch(client, url)
    assert "Standings" in english and "Classifica" not in english


def test_with_redis_away_the_part_is_rendered_for_each_request(client, parts_on, settings):
    tournament = started(4)
    url = reverse("tournaments:detail", args=[tournament.pk])
    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens there
    game = live_games(tournament)[0]
    page, first = fetch(client, url)
    assert "rinominato" not in page
    rename(game.white, "rinominato")
    page, second = fetch(client, url)
    assert "rinominato" in page and second == first


def running_arena():
    """An arena of four players on its page, paired into two games."""
    from arena.tests.factories import T0 as ARENA_T0
    from arena.tests.factories import ArenaFactory, EntryFactory, on_page, tick

    arena = ArenaFactory(base_seconds=600)
    entries = [EntryFactory(arena=arena) for _ in range(4)]
    for entry in entries:
        on_page(arena, entry.player, ARENA_T0)
    tick(ARENA_T0)
    return arena, entries


def test_an_arena_board_is_shared_and_the_entry_controls_are_each_players(client, parts_on):
    arena, entries = running_arena()
    url = arena.get_absolute_url()
    client.force_login(entries[0].player)
    page, rendered = fetch(client, url)
    assert page.count('data-testid="leader-row"') == 4
    client.force_login(entries[1].player)
    page, kept = fetch(client, url)
    assert kept < rendered and page.count('data-testid="leader-row"') == 4
    assert page.count('data-testid="your-game"') == 1
    client.logout()
    page, _ = fetch(client, url)
    assert 'data-testid="your-game"' not in page and page.count('data-testid="leader-row"') == 4


def test_an_arena_fetch_answering_a_push_is_as_new_as_that_push(client, parts_on):
    """Inside an arena's push window the changes are counted but not yet pushed: the waiting
    pages, fetching because of the window's first push, share its part; a page loaded now gets
    every change; the window's trailing push brings the fetches up to it."""
    from arena.running.common import group_name

    arena, entries = running_arena()
    url, group = arena.get_absolute_url(), group_name(arena.pk)
    pushes.mark_pushed(group, more=1)  # a change, pushed at once
    page, rendered = fetch(client, url, answering_push=True)
    assert "rinominato" not in page

    rename(entries[0].player, "rinominato")
    pushes.count_push(group)  # counted after its commit; its push waits for the window's end
    page, kept = fetch(client, url, answering_push=True)
    assert "rinominato" not in page and kept < rendered
    assert "rinominato" in fetch(client, url)[0]

    pushes.mark_pushed(group)  # the trailing push
    page, shared = fetch(client, url, answering_push=True)
    assert "rinominato" in page and shared == kept  # the part the page load rendered


def test_only_a_get_answers_a_push(rf):
    assert shared_part.answers_push(rf.get("/", HTTP_X_EVENT_REFRESH="push"))
    assert not shared_part.answers_push(rf.get("/"))
    assert not shared_part.answers_push(rf.post("/", HTTP_X_EVENT_REFRESH="push"))


def test_many_asking_at_once_render_the_part_once(parts_on):
    calls, first_inside, release = [], threading.Event(), threading.Event()

    def render() -> str:
        calls.append(1)
        if len(calls) == 1:
            first_inside.set()
            release.wait(10)
        return "<p>run</p>"

    results: list[str] = []

    def ask():
        with translation.override("it"):
            results.append(shared_part.shared_html("tournament-0", "run", render))

    first = threading.Thread(target=ask)
    first.start()
    assert first_inside.wait(10)
    others = [threading.Thread(target=ask) for _ in range(4)]
    for thread in others:
        thread.start()
    # They wait for the one rendering instead of rendering it too.
    for thread in others:
        thread.join(0.2)
        assert thread.is_alive()
    release.set()
    for thread in [first, *others]:
        thread.join(10)
    assert len(calls) == 1 and results == ["<p>run</p>"] * 5
