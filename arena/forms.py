"""The arena form (RULES 8). What every event shares (time control, start
and its zone, openings, rated and floor, private) is `events.forms`."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from arena.engine import battle as battle_rules
from arena.models import DURATION_MAX, DURATION_MIN
from arena.services import ArenaOptions
from clubs.models import Club
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
    battle_clubs = forms.ModelMultipleChoiceField(
        label=_("Circoli invitati (da 2 a 10, anche il tuo)"),
        queryset=Club.objects.none(),
        required=False,
        widget=forms.SelectMultiple(attrs={"size": 6}),
    )
    battle_top_n = forms.TypedChoiceField(
        label=_("Migliori che contano per circolo"),
        coerce=int,
        choices=[(n, str(n)) for n in range(battle_rules.TOP_N_MIN, battle_rules.TOP_N_MAX + 1)],
        initial=battle_rules.TOP_N_DEFAULT,
        required=False,
    )

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["battle_clubs"].queryset = Club.objects.listed().order_by("name")

    @classmethod
    def initial_from(cls, arena) -> dict:
        return {**super().initial_from(arena), "duration_minutes": arena.duration_minutes}

    def clean(self) -> dict:
        data = super().clean()
        if data.get("battle") and self.instance is None:
            chosen = data.get("battle_clubs") or []
            if not battle_rules.CLUBS_MIN <= len(chosen) <= battle_rules.CLUBS_MAX:
                self.add_error("battle_clubs", _("Scegli da 2 a 10 circoli."))
            if data.get("club_only"):
                self.add_error(
                    "club_only",
                    _("Una battaglia tra circoli è aperta ai soci dei circoli invitati."),
                )
            if not data.get("battle_top_n"):
                data["battle_top_n"] = battle_rules.TOP_N_DEFAULT
        return data

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
