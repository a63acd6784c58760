"""The arena form (RULES 8). What every event shares (time control, start
and its zone, openings, rated and floor, private) is `events.forms`."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from arena.engine import battle as battle_rules
from arena.models import DURATION_MAX, DURATION_MIN
from arena.services import ArenaOptions
from clubs import selectors as clubs
from clubs.models import Club
from clubs.picker import ClubChoice, chosen_ids, club_choice, is_id, sent_values
from events.forms import EventForm

DURATIONS = [10, 15, 20, 30, 45, 60, 90, 120, 180, 240, 300, 360, 420, 480]


def duration_label(minutes: int) -> str:
    hours, rest = divmod(minutes, 60)
    if not hours:
        return _("%(m)d minuti") % {"m": minutes}
    if not rest:
        return _("%(h)d h") % {"h": hours}
    return _("%(h)d h %(m)d min") % {"h": hours, "m": rest}


class ArenaForm(EventForm):
    duration_minutes = forms.TypedChoiceField(
        label=_("Durata"),
        coerce=int,
        # A callable: the labels in the language of each request, not of the import.
        choices=lambda: [(m, duration_label(m)) for m in DURATIONS],
        initial=60,
        help_text=_(
            "Da 10 minuti a 8 ore: finché dura, chi finisce una partita ne inizia un'altra."
        ),
    )
    password = forms.CharField(
        label=_("Password dell'arena"),
        required=False,
        max_length=128,
        widget=forms.PasswordInput(render_value=True),
    )

    # RULES 12.7: a club battle, fixed at the opening (the edit form leaves it out).
    battle = forms.BooleanField(
        label=_("Battaglia tra circoli"),
        required=False,
        help_text=_(
            "Ogni giocatore segna punti per il suo circolo; conta la somma dei migliori di "
            "ogni circolo. Compagni di circolo non si affrontano mai."
        ),
    )
    # The clubs chosen, by id: drawn by the template as ticked boxes (`battle_choice`), added
    # to from a search among the clubs (`battle_club_q`), checked in `clean`.
    battle_clubs = forms.Field(
        label=_("Circoli invitati (da 2 a 10, anche il tuo)"),
        required=False,
        widget=forms.MultipleHiddenInput,
    )
    battle_club_q = forms.CharField(label=_("Cerca un circolo"), required=False, max_length=60)
    battle_top_n = forms.TypedChoiceField(
        label=_("Migliori che contano per circolo"),
        coerce=int,
        choices=[(n, str(n)) for n in range(battle_rules.TOP_N_MIN, battle_rules.TOP_N_MAX + 1)],
        initial=battle_rules.TOP_N_DEFAULT,
        required=False,
    )

    # Without JavaScript, the search button sends the whole form back to be drawn again with
    # what it finds, nothing checked or saved; with it, htmx asks only for the picker's part.
    echo_buttons = ("battle_search",)
    echo_parts = {"battle-found-list": "battle-clubs"}

    @classmethod
    def echo(cls, data, *, instance=None, **kwargs):
        form = super().echo(data, instance=instance, **kwargs)
        form.initial["battle_clubs"] = chosen_ids(sent_values(data, "battle_clubs"))
        return form

    def battle_choice(self) -> ClubChoice:
        """What the picker draws (clubs.picker)."""
        return club_choice(self, field="battle_clubs", query_field="battle_club_q")

    @classmethod
    def initial_from(cls, arena) -> dict:
        return {**super().initial_from(arena), "duration_minutes": arena.duration_minutes}

    def clean(self) -> dict:
        data = super().clean()
        if data.get("battle") and self.instance is None:
            data["battle_clubs"] = self._invited(sent_values(self.data, "battle_clubs"))
            if data.get("club_only"):
                self.add_error(
                    "club_only",
                    _("Una battaglia tra circoli è aperta ai soci dei circoli invitati."),
                )
            if not data.get("battle_top_n"):
                data["battle_top_n"] = battle_rules.TOP_N_DEFAULT
        return data

    def _invited(self, raw: list[str]) -> list[Club]:
        """RULES 12.7: 2 to 10 clubs that exist, are not dissolved and not hidden by the staff
        (out of every list, they are invited by nobody); each refusal says which case it is,
        and the picker drops what cannot be invited."""
        ids = chosen_ids(raw)
        by_id = clubs.clubs_by_id(ids)
        unknown = not all(is_id(value) for value in raw) or any(
            pk not in by_id or not by_id[pk].is_active for pk in ids
        )
        if unknown:
            self.add_error(
                "battle_clubs",
                _("Un circolo scelto non esiste o è stato sciolto: è stato tolto dalla scelta."),
            )
        if any(pk in by_id and by_id[pk].is_active and by_id[pk].hidden for pk in ids):
            self.add_error(
                "battle_clubs",
                _(
                    "Un circolo scelto è stato nascosto dallo staff e non può essere invitato: "
                    "è stato tolto dalla scelta."
                ),
            )
        invited = [by_id[pk] for pk in ids if pk in by_id and by_id[pk].is_active]
        invited = [club for club in invited if not club.hidden]
        n = len(invited)
        if not battle_rules.CLUBS_MIN <= n <= battle_rules.CLUBS_MAX:
            self.add_error(
                "battle_clubs",
                ngettext(
                    "Scegli da 2 a 10 circoli: ora ne hai scelto %(n)d.",
                    "Scegli da 2 a 10 circoli: ora ne hai scelti %(n)d.",
                    n,
                )
                % {"n": n},
            )
        return invited

    def clean_duration_minutes(self) -> int:
        value = self.cleaned_data["duration_minutes"]
        if not DURATION_MIN <= value <= DURATION_MAX:  # RULES 8
            raise forms.ValidationError(_("La durata va da 10 minuti a 8 ore."))
        return value

    def to_options(self) -> ArenaOptions:
        data = self.cleaned_data
        is_battle = bool(data.get("battle")) and self.instance is None
        return ArenaOptions(
            **self.event_options(),
            duration_minutes=data["duration_minutes"],
            battle_club_ids=tuple(c.pk for c in data.get("battle_clubs") or ())
            if is_battle
            else (),
            battle_top_n=data.get("battle_top_n") or battle_rules.TOP_N_DEFAULT
            if is_battle
            else None,
        )
