"""The arena form (RULES 8). What every event shares (time control, start
and its zone, openings, rated and floor, private) is `events.forms`."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from arena.models import DURATION_MAX, DURATION_MIN
from arena.services import ArenaOptions
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

    @classmethod
    def initial_from(cls, arena) -> dict:
        return {**super().initial_from(arena), "duration_minutes": arena.duration_minutes}

    def clean_duration_minutes(self) -> int:
        value = self.cleaned_data["duration_minutes"]
        if not DURATION_MIN <= value <= DURATION_MAX:  # RULES 8
            raise forms.ValidationError(_("La durata va da 10 minuti a 8 ore."))
        return value

    def to_options(self) -> ArenaOptions:
        return ArenaOptions(
            **self.event_options(), duration_minutes=self.cleaned_data["duration_minutes"]
        )
