from __future__ import annotations

from datetime import UTC, datetime, timedelta

import factory

from accounts.tests.factories import UserFactory
from arena.models import Arena, Entry

T0 = datetime(2030, 6, 1, 18, 0, tzinfo=UTC)


class ArenaFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Arena

    name = factory.Sequence(lambda n: f"Arena {n}")
    opened_by = factory.SubFactory(UserFactory)
    variant = "chess"
    base_seconds = 180
    increment_seconds = 2
    cadence = "blitz"
    starts_at = T0
    duration_minutes = 60


class EntryFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Entry

    arena = factory.SubFactory(ArenaFactory)
    player = factory.SubFactory(UserFactory)
    waiting_since = factory.LazyAttribute(lambda e: e.arena.starts_at - timedelta(minutes=1))


def ms(at: datetime) -> int:
    return int(at.timestamp() * 1000)


def on_page(arena, user, at: datetime, key: str | None = None) -> str:
    """The player has the arena's page open (its socket's presence row), as of `at`."""
    from arena.selectors import topic
    from live import presence

    key = key or f"arena-page-{arena.pk}-{user.pk}"
    presence.opened(key=key, topic=topic(arena.pk), user_id=user.pk, at_ms=ms(at))
    return key


def tick(now: datetime) -> list[int]:
    """The site's periodic work at `now` in a test that never commits: every finished arena game
    not yet settled reaches `arena_game_finished` as its settle task would deliver it, at the
    test's clock; then the arenas' tick. Every open page's socket is still alive."""
    from arena import running
    from games.models import Game, Status
    from live.models import Connection

    Connection.objects.update(seen_ms=ms(now))  # the open pages' sockets keep beating
    finished = Game.objects.filter(
        status=Status.FINISHED, settled=False, event_type__model="arena"
    ).order_by("pk")
    for game_id in list(finished.values_list("pk", flat=True)):
        running.arena_game_finished(game_id=game_id, now=now)
        Game.objects.filter(pk=game_id).update(settled=True)
    return running.arenas_due_process(now=now)
