"""RULES 1, one live event per person: the single place that answers "what event has this person
opened that is not finished or cancelled?". The arena app adds its own lookup here when it
exists (another `if` returning its arena)."""

from __future__ import annotations

from django.db import models


def open_live_event(user_id: int) -> models.Model | None:
    """The tournament (later: or arena) this person opened that is still live, else None."""
    from tournaments.models import Tournament

    return Tournament.objects.live().filter(opened_by_id=user_id).order_by("id").first()
