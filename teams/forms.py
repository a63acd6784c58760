"""The team match's forms: opening a match (RULES 16.1) and the captain's line-up (RULES 16.2:
one choice per board, then per reserve, among the club's members best-rated first). What they
send is checked again by `teams.services`."""

from __future__ import annotations

from datetime import datetime

from django import forms
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from clubs.models import Club
from clubs.names import name_key
from events.forms import EventForm
from teams import rules
from teams.models import START_MAX, START_MIN
from teams.services import MatchData


class LineupForm(forms.Form):
    def __init__(
        self,
        *args,
        boards: int,
        members: list[tuple[int, str, int]],
        available: set[int] = frozenset(),
        **kwargs,
    ):
        super().__init__(*args, **kwargs)
        self.boards = boards
        # RULES 16.2: the members who said they are available are marked in every choice.
        choices = [("", "—")] + [
            (
                str(pk),
                _("%(name)s (%(rating)d) · disponibile") % {"name": name, "rating": rating}
                if pk in available
                else f"{name} ({rating})",
            )
            for pk, name, rating in members
        ]
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


class TeamMatchForm(EventForm):
    """RULES 16.1: the shared options of an event (no floor, no password, no club-only: the
    two clubs are the match's), the other club by its short name, the boards, double games."""

    second_club = forms.CharField(
        label=_("Sigla del circolo avversario"),
        max_length=20,
        help_text=_("La sigla che il circolo mostra accanto ai nomi dei suoi soci."),
    )
    boards = forms.TypedChoiceField(
        label=_("Scacchiere"),
        coerce=int,
        choices=[(n, str(n)) for n in range(rules.BOARDS_MIN, rules.BOARDS_MAX + 1)],
        initial=4,
    )
    double_games = forms.BooleanField(
        label=_("Andata e ritorno"),
        required=False,
        help_text=_("Su ogni scacchiera due partite, colori invertiti, stessa apertura."),
    )
    double_games_field = "double_games"

    def __init__(self, *args, first_club_id: int | None = None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # The opener's club: the other club is checked against it with the other fields, so a
        # refusal names every wrong field at once (the service checks again).
        self.first_club_id = first_club_id
        for name in ("floor", "private", "club_only", "password"):
            del self.fields[name]

    def clean_starts_at(self) -> datetime:
        value = self.cleaned_data["starts_at"]
        now = self.now or timezone.now()
        if not now + START_MIN <= value <= now + START_MAX:  # RULES 16.1
            raise forms.ValidationError(
                _("L'incontro inizia tra un'ora e trenta giorni da adesso.")
            )
        return value

    def clean_second_club(self) -> Club:
        """The club whose short name reads as the one typed (RULES 12.2), listed (RULES 12.1:
        not dissolved, not hidden)."""
        typed = self.cleaned_data["second_club"].strip()
        club = Club.objects.listed().filter(short_key=name_key(typed)).first()
        if club is None:
            raise forms.ValidationError(_("Nessun circolo con questa sigla."))
        if club.pk == self.first_club_id:
            raise forms.ValidationError(_("Un circolo non gioca contro sé stesso."))
        return club

    def to_data(self) -> MatchData:
        d = self.cleaned_data
        return MatchData(
            name=d["name"].strip(),
            description=d["description"].strip(),
            second_club_id=d["second_club"].pk,
            boards=d["boards"],
            variant=d["variant"],
            base_seconds=d["base_seconds"],
            increment_seconds=d["increment_seconds"],
            starts_at=d["starts_at"],
            double_games=d["double_games"],
            rated=d["rated"],
            opening_mode=d["opening_mode"],
            thematic_opening=d["thematic_opening"],
        )
