"""The club picker of the forms that name several clubs (an arena's club battle, RULES 12.7; a
league, RULES 16.8): the ids sent, read whatever the input, and what the picker draws — the
clubs chosen that may play, and what a search by name, short name or city finds among the
rest (`selectors.club_search`). Without JavaScript the search button sends the whole form back;
with htmx only the picker's part is asked for (the forms' `echo_parts`)."""

from __future__ import annotations

from dataclasses import dataclass

from clubs import selectors
from clubs.models import Club


def is_id(value) -> bool:
    text = str(value).strip()
    return text.isascii() and text.isdigit() and len(text) < 12


def chosen_ids(raw) -> list[int]:
    """The ids as sent, in order, each once; what is not an id is left out (and is "a club
    that does not exist" to the form that checks them)."""
    ids: list[int] = []
    for value in raw or ():
        if is_id(value) and int(str(value).strip()) not in ids:
            ids.append(int(str(value).strip()))
    return ids


def sent_values(data, name: str) -> list:
    """Every value sent under `name` (a QueryDict's list, or a plain dict's value)."""
    if hasattr(data, "getlist"):
        return data.getlist(name)
    value = data.get(name)
    return list(value) if isinstance(value, (list, tuple)) else ([] if value is None else [value])


@dataclass(frozen=True)
class ClubChoice:
    chosen: list[Club]
    query: str
    found: list[Club]
    more: bool  # more clubs match than are shown: a closer search


def club_choice(form, *, field: str, query_field: str) -> ClubChoice:
    """What the picker of `form` draws: the clubs chosen (those that may play; the others are
    left out, and the form's error says why), by name, and what the search finds among the
    rest."""
    if form.is_bound:
        raw, query = sent_values(form.data, field), form.data.get(query_field, "")
    else:
        raw, query = form.initial.get(field) or [], form.initial.get(query_field)
    by_id = selectors.clubs_by_id(chosen_ids(raw))
    chosen = sorted(
        (c for c in by_id.values() if c.is_active and not c.hidden), key=lambda c: (c.name, c.pk)
    )
    query = selectors.search_text(query or "")
    found, more = selectors.club_search(query=query, excluding=[c.pk for c in chosen])
    return ClubChoice(chosen=chosen, query=query, found=found, more=more)
