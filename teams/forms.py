"""The captain's line-up form (RULES 16.2): one choice per board, then per reserve, among the
club's members best-rated first. What it sends is checked by `services.lineup_set`."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _


class LineupForm(forms.Form):
    def __init__(self, *args, boards: int, members: list[tuple[int, str, int]], **kwargs):
        super().__init__(*args, **kwargs)
        self.boards = boards
        choices = [("", "—")] + [(str(pk), f"{name} ({rating})") for pk, name, rating in members]
        for place in range(1, 2 * boards + 1):
            label = (
                _("Scacchiera %(n)d") % {"n": place}
                if place <= boards
                else _("Riserva %(n)d") % {"n": place - boards}
            )
            self.fields[f"place_{place}"] = forms.ChoiceField(
                label=label, choices=choices, required=False
            )

    @classmethod
    def initial_from(cls, player_ids: list[int]) -> dict:
        return {f"place_{place}": str(pk) for place, pk in enumerate(player_ids, start=1)}

    def player_ids(self) -> list[int]:
        """The players chosen, in place order; an empty place is left out (the players below
        move up, RULES 16.4)."""
        chosen = (self.cleaned_data.get(f"place_{p}") for p in range(1, 2 * self.boards + 1))
        return [int(value) for value in chosen if value]

    def board_fields(self):
        return [self[f"place_{p}"] for p in range(1, self.boards + 1)]

    def reserve_fields(self):
        return [self[f"place_{p}"] for p in range(self.boards + 1, 2 * self.boards + 1)]
