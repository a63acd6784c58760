"""The kinds of event, registered by their apps (`AppConfig.ready`), so that what holds for
every event is written once, here, without a chain of `if`s that would make one kind import
another.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib.contenttypes.models import ContentType
from django.db import models


@dataclass(frozen=True)
class EventKind:
    """One kind of event: its model (a concrete `events.models.Event`), what it does when
    one of its games ends (`game_finished(game_id=...)`, safe to run twice), and who joined an
    event and when (`entrants(event_ids) -> [(event_id, player_id, joined_at), …]`, for the
    reminders before its start)."""

    model: type[models.Model]
    game_finished: Callable[..., Any]
    entrants: Callable[[Iterable[int]], Iterable[tuple[int, int, datetime]]] | None = None
    # The kind's own pages tell a player that an event of theirs was cancelled (the
    # tournaments' banner, with the reason): the shared notice would say it twice (RULES 11.3).
    tells_cancellation: bool = False
    # RULES 15.5: annul a player's results before the event is rated,
    # `annul(event_id=, player_id=)`, raising `events.services.EventError` when it cannot. None
    # for a kind that rates each game as it ends (an arena): there is no "before".
    annul: Callable[..., Any] | None = None
    # RULES 16.6: `busy(player_ids, start, end) -> {player_id: event name}`, those of the players
    # in an event of this kind not over (registered, entered) whose time, from its start to its
    # expected end, overlaps [start, end). Read from the players' side (their own rows, by the
    # player's index), not from every live event: a team match's line-up asks it.
    busy: Callable[[Iterable[int], datetime, datetime], dict[int, str]] | None = None
    # The kind's own notices on the site's pages (events.models.Reminder rows of a topic other
    # than `START`, written by the kind): the template that says one, given `r`, the row, whose
    # `detail` carries what it needs (RULES 16.2: a player named in a line-up).
    notice_template: str | None = None

    @property
    def code(self) -> str:
        return self.model._meta.model_name


_kinds: dict[str, EventKind] = {}


def register(kind: EventKind) -> None:
    _kinds[kind.code] = kind


def all_kinds() -> list[EventKind]:
    return list(_kinds.values())


def by_code(code: str) -> EventKind | None:
    """The kind named `code` ("tournament", "arena"), or None for no such kind."""
    return _kinds.get(code)


def kind_of_game(game: Any) -> EventKind | None:
    """The kind of the event a game belongs to, or None for a game of no event (a challenge)."""
    if game.event_type_id is None:
        return None
    content_type = ContentType.objects.get_for_id(game.event_type_id)
    return _kinds.get(content_type.model)


def open_live_event(user_id: int) -> models.Model | None:
    """RULES 1, one live event per person: the event of any kind this person opened that is
    neither finished nor cancelled, else None."""
    for kind in all_kinds():
        event = kind.model.objects.live().filter(opened_by_id=user_id).order_by("id").first()
        if event is not None:
            return event
    return None
