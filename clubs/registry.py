"""What the apps above clubs tell it (STYLE 6: clubs imports none of them), registered from
their `receivers.py`:

- `register_events(reader)`: `reader(club_id) -> [ClubEvent, …]`, the club's events of one kind
  (the events restricted to its members, the battles it was invited to): the club's page, its
  calendar, and the refusal to dissolve a club with a live event (RULES 12.8);
- `register_commitments(func)`: `func(club_id, user_id) -> [name, …]`, the club's competitions
  not over that the player is in for the club: they may not leave the club until those end
  (RULES 12.3);
- `register_calendar(writer)`: `writer(events, host=, now=) -> str`, the events as one .ics
  file (the events' calendar code, `events.calendar`);
- `register_opener(opener)`: a `ClubOpener`, what an officer may open for the club (a team
  match against another club): a link on the club's page, for its officers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class ClubEvent:
    kind: str  # events.kinds code: "tournament", "arena"
    pk: int
    name: str
    url: str
    starts_at: datetime
    ends_at: datetime
    status: str  # events.models.Event.Status
    status_label: str
    kind_label: str
    battle: bool = False
    result: str = ""  # how it went for the club, once over

    @property
    def live(self) -> bool:
        return self.status in ("scheduled", "running")


@dataclass(frozen=True)
class ClubOpener:
    label: Callable[[], str]  # said in the page's language
    url: Callable[[int], str]  # the opening form's address, for the club's id
    testid: str


_readers: list[Callable[[int], list[ClubEvent]]] = []
_openers: list[ClubOpener] = []
_commitments: list[Callable[[int, int], list[str]]] = []
_calendar: list[Callable[..., str]] = []


def register_events(reader: Callable[[int], list[ClubEvent]]) -> None:
    if reader not in _readers:
        _readers.append(reader)


def register_commitments(func: Callable[[int, int], list[str]]) -> None:
    if func not in _commitments:
        _commitments.append(func)


def register_calendar(writer: Callable[..., str]) -> None:
    _calendar[:] = [writer]


def register_opener(opener: ClubOpener) -> None:
    if opener.testid not in {o.testid for o in _openers}:
        _openers.append(opener)


def openers() -> list[ClubOpener]:
    return list(_openers)


def events_of(club_id: int) -> list[ClubEvent]:
    found = [event for reader in _readers for event in reader(club_id)]
    return sorted(found, key=lambda e: (e.starts_at, e.kind, e.pk))


def commitments_of(club_id: int, user_id: int) -> list[str]:
    return sorted({name for func in _commitments for name in func(club_id, user_id)})


def calendar(events: list[ClubEvent], *, host: str, now: datetime) -> str:
    if not _calendar:
        raise LookupError("no calendar writer registered (events.receivers)")
    return _calendar[0](events, host=host, now=now)
