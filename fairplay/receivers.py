"""Everything the fair-play app hooks into (imported by `FairplayConfig.ready`): what is
personal to a player (accounts.personal). The focus losses a player's page reported are theirs
to download and go with their account; the staff's marks on an event's players stay with the
event (RULES 15.4)."""

from __future__ import annotations

from accounts import personal
from fairplay.models import FocusLoss


def focus_section(user) -> list[dict]:
    return [
        {"game": game_id, "ply": ply, "at": at.isoformat()}
        for game_id, ply, at in FocusLoss.objects.filter(player=user)
        .order_by("at", "pk")
        .values_list("game_id", "ply", "at")
    ]


def forget_focus(user) -> None:
    FocusLoss.objects.filter(player=user).delete()


personal.register_section("focus_lost", focus_section)
personal.register_eraser(forget_focus)
