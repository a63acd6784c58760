"""What is personal to a player, across the apps: the data they can take away, what keeps them
from leaving now, and what is forgotten when they go.

Accounts know no games, ratings or events (STYLE 6): each app registers its part when it is
ready (`AppConfig.ready`), as the games app registers commitments:
- a *section* of the data download, `(user) -> JSON-able`, under a name ("games", "ratings");
- a *file* of the download, `(user) -> str`, under a file name;
- a *paged* section or file, for what grows with the games played ("games", "games.pgn"):
  `Pages(count, page)`, `count(user) -> int` and `page(user, after, limit) -> (items, last)`,
  the next at most `limit` items after the key `after` (0 at first) and the key of the last
  one; a section's items are JSON-able, a file's are texts. The data archive is built by the
  worker a page at a time (accounts/archive.py), so no task costs more than one page;
- a *blocker*, `(user) -> [reason, …]`, why the account cannot be deleted now, in the
  player's language (RULES 1: a player in a live event);
- an *eraser*, `(user) -> None`, run in the deleting transaction: what the app forgets (an
  open challenge, a wait in a pool);
- a *locker*, `(user_id) -> None`, run first in the deleting transaction, before the player's
  user row is locked: it locks the rows of a lower rank than USER (`live.locks`) that the app's
  erasers change (the player's open challenges), so the deletion keeps the site's lock order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Section = Callable[[Any], Any]
File = Callable[[Any], str]
Blocker = Callable[[Any], list[str]]
Eraser = Callable[[Any], None]
Locker = Callable[[int], None]


@dataclass(frozen=True)
class Pages:
    count: Callable[[Any], int]
    page: Callable[[Any, int, int], tuple[list[Any], int | None]]


_sections: dict[str, Section] = {}
_files: dict[str, File] = {}
_paged_sections: dict[str, Pages] = {}
_paged_files: dict[str, Pages] = {}
_blockers: list[Blocker] = []
_erasers: list[Eraser] = []
_lockers: list[Locker] = []


def register_section(name: str, func: Section) -> None:
    _sections[name] = func


def register_file(name: str, func: File) -> None:
    _files[name] = func


def register_section_pages(name: str, pages: Pages) -> None:
    _paged_sections[name] = pages


def register_file_pages(name: str, pages: Pages) -> None:
    _paged_files[name] = pages


def register_blocker(func: Blocker) -> None:
    if func not in _blockers:
        _blockers.append(func)


def register_eraser(func: Eraser) -> None:
    if func not in _erasers:
        _erasers.append(func)


def register_locker(func: Locker) -> None:
    if func not in _lockers:
        _lockers.append(func)


def sections(user) -> dict[str, Any]:
    return {name: func(user) for name, func in sorted(_sections.items())}


def files(user) -> dict[str, str]:
    return {name: func(user) for name, func in sorted(_files.items())}


def paged_sections() -> list[tuple[str, Pages]]:
    return sorted(_paged_sections.items())


def file_names() -> list[str]:
    """Every file of the download, whole or paged, in the order they are written."""
    return sorted({*_files, *_paged_files})


def file(name: str) -> File | Pages:
    return _paged_files.get(name) or _files[name]


def blockers(user) -> list[str]:
    found: list[str] = []
    for func in _blockers:
        found.extend(func(user))
    return found


def erase(user) -> None:
    for func in _erasers:
        func(user)


def lock(user_id: int) -> None:
    for func in _lockers:
        func(user_id)
