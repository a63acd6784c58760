"""The tournament form (RULES 4.1). What every event shares (time control, start and its zone,
openings, rated and floor, private, the join form) is `events.forms`."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from events.forms import EventForm
from tournaments import options
from tournaments.services import TournamentOptions


class TournamentForm(EventForm):
    seats = forms.IntegerField(label=_("Posti"), initial=16)
    minimum = forms.IntegerField(label=_("Minimo per iniziare"), initial=4)
    threshold = forms.IntegerField(
        label=_("Soglia"),
        initial=7,
        help_text=_(
            "Sotto la soglia si gioca un girone all'italiana, dalla soglia in su lo svizzero."
        ),
    )
    extra_round = forms.BooleanField(label=_("Turno extra (solo svizzero)"), required=False)
    double_games = forms.BooleanField(label=_("Andata e ritorno"), required=False)
    password = forms.CharField(
        label=_("Password del torneo"),
        required=False,
        max_length=128,
        widget=forms.PasswordInput(render_value=True),
    )

    double_games_field = "double_games"  # RULES 7.3: double games keep a tournament rated

    @classmethod
    def initial_from(cls, t) -> dict:
        return {
            **super().initial_from(t),
            "seats": t.seats,
            "minimum": t.minimum,
            "threshold": t.threshold,
            "extra_round": t.extra_round,
            "double_games": t.double_games,
        }

    def clean_seats(self) -> int:
        value = self.cleaned_data["seats"]
        if not options.SEATS_MIN <= value <= options.SEATS_MAX:  # RULES 4.1
            raise forms.ValidationError(_("I posti vanno da 4 a 200."))
        return value

    def clean_threshold(self) -> int:
        value = self.cleaned_data["threshold"]
        if not options.THRESHOLD_MIN <= value <= options.THRESHOLD_MAX:  # RULES 4.1
            raise forms.ValidationError(_("La soglia va da 7 a 20."))
        return value

    def clean(self) -> dict:
        data = super().clean()
        # RULES 4.1: minimum from 4 up to the seats.
        seats, minimum = data.get("seats"), data.get("minimum")
        if minimum is not None:
            top = seats if seats is not None else options.SEATS_MAX
            if not options.MINIMUM_MIN <= minimum <= top:
                self.add_error(
                    "minimum",
                    _("Il minimo va da 4 al numero dei posti (%(seats)d).") % {"seats": top},
                )
        return data

    def to_options(self) -> TournamentOptions:
        d = self.cleaned_data
        return TournamentOptions(
            **self.event_options(),
            seats=d["seats"],
            minimum=d["minimum"],
            threshold=d["threshold"],
            extra_round=d["extra_round"],
            double_games=d["double_games"],
        )
