"""The league's forms (RULES 16.8): opening one (the shared options of an event, the clubs
chosen among many by a search, as a club battle's are, RULES 12.7), and a team's name and
roster. What they send is checked again, whole, by `teams.leagues`."""

from __future__ import annotations

from datetime import datetime, timedelta

from django import forms
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from clubs import selectors as clubs
from clubs.picker import ClubChoice, chosen_ids, club_choice, is_id, sent_values
from events.forms import EventForm
from teams import league as league_rules
from teams import rules
from teams.leagues import FIRST_ROUND_MIN, TEAM_NAME_MAX, LeagueData
from teams.models import FIRST_ROUND_MAX, ROUND_GAP_MAX, ROUND_GAP_MIN


class LeagueForm(EventForm):
    """RULES 16.8: the options every match of the league copies (no floor, no password, no
    club-only: the clubs are the league's), its season, its clubs, the first round's date and
    the days between rounds."""

    season = forms.CharField(
        label=_("Stagione"),
        max_length=20,
        help_text=_("Per esempio 2026/27: un giocatore gioca per una sola squadra a stagione."),
    )
    league_clubs = forms.Field(
        label=_("Circoli (da 3 a 16, anche il tuo)"),
        required=False,
        widget=forms.MultipleHiddenInput,
    )
    league_club_q = forms.CharField(label=_("Cerca un circolo"), required=False, max_length=60)
    boards = forms.TypedChoiceField(
        label=_("Scacchiere"),
        coerce=int,
        choices=[(n, str(n)) for n in range(rules.BOARDS_MIN, rules.BOARDS_MAX + 1)],
        initial=4,
    )
    double_games = forms.BooleanField(
        label=_("Due partite per scacchiera"),
        required=False,
        help_text=_("Su ogni scacchiera due partite, colori invertiti, stessa apertura."),
    )
    double_round_robin = forms.BooleanField(
        label=_("Girone di andata e ritorno"),
        required=False,
        help_text=_(
            "Nel girone all'italiana (fino a 10 squadre) ogni squadra incontra due volte le altre."
        ),
    )
    round_gap_days = forms.TypedChoiceField(
        label=_("Giorni tra un turno e l'altro"),
        coerce=int,
        choices=[(n, str(n)) for n in range(ROUND_GAP_MIN.days, ROUND_GAP_MAX.days + 1)],
        initial=7,
    )
    double_games_field = "double_games"

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        for name in ("floor", "private", "club_only", "password"):
            del self.fields[name]
        self.fields["starts_at"].label = _("Primo turno")
        self.fields["starts_at"].help_text = _(
            "Gli altri turni seguono, tutti alla stessa ora; se l'organizzatore non l'ha "
            "avviato, il campionato inizia da solo il giorno prima (due ore prima, se il primo "
            "turno è fra meno di un giorno)."
        )

    @classmethod
    def echo(cls, data, *, instance=None, keep_password: bool = False):
        form = super().echo(data, instance=instance, keep_password=keep_password)
        form.initial["league_clubs"] = chosen_ids(sent_values(data, "league_clubs"))
        return form

    def club_choice(self) -> ClubChoice:
        """What the picker draws (clubs.picker, as the arena's battle)."""
        return club_choice(self, field="league_clubs", query_field="league_club_q")

    def clean_starts_at(self) -> datetime:
        value = self.cleaned_data["starts_at"]
        now = self.now or timezone.now()
        if not now + FIRST_ROUND_MIN <= value <= now + FIRST_ROUND_MAX:  # RULES 16.8
            raise forms.ValidationError(
                _("Il primo turno è tra due ore e novanta giorni da adesso.")
            )
        return value

    def clean_season(self) -> str:
        value = self.cleaned_data["season"].strip()
        if not value:
            raise forms.ValidationError(_("Indica la stagione."))
        return value

    def clean(self) -> dict:
        data = super().clean()
        raw = sent_values(self.data, "league_clubs")
        ids = chosen_ids(raw)
        by_id = clubs.clubs_by_id(ids)
        if not all(is_id(v) for v in raw) or any(
            pk not in by_id or not by_id[pk].is_active or by_id[pk].hidden for pk in ids
        ):
            self.add_error(
                "league_clubs",
                _("Un circolo scelto non esiste o è stato sciolto: è stato tolto dalla scelta."),
            )
        playing = [pk for pk in ids if pk in by_id and by_id[pk].is_active and not by_id[pk].hidden]
        if not league_rules.TEAMS_MIN <= len(playing) <= league_rules.TEAMS_MAX:
            self.add_error(
                "league_clubs",
                _("Scegli da %(low)d a %(high)d circoli: ora ne hai scelti %(n)d.")
                % {
                    "low": league_rules.TEAMS_MIN,
                    "high": league_rules.TEAMS_MAX,
                    "n": len(playing),
                },
            )
        data["league_clubs"] = playing
        return data

    def to_data(self) -> LeagueData:
        d = self.cleaned_data
        return LeagueData(
            name=d["name"].strip(),
            season=d["season"],
            description=d["description"].strip(),
            club_ids=list(d["league_clubs"]),
            boards=d["boards"],
            variant=d["variant"],
            base_seconds=d["base_seconds"],
            increment_seconds=d["increment_seconds"],
            first_round_at=d["starts_at"],
            round_gap=timedelta(days=d["round_gap_days"]),
            double_games=d["double_games"],
            double_round_robin=d["double_round_robin"],
            rated=d["rated"],
            opening_mode=d["opening_mode"],
            thematic_opening=d["thematic_opening"],
        )


class LeagueTeamForm(forms.Form):
    """RULES 16.8: the team's name and its roster, ticked among the club's members."""

    name = forms.CharField(label=_("Nome della squadra"), max_length=TEAM_NAME_MAX)
    players = forms.Field(label=_("Rosa"), required=False, widget=forms.MultipleHiddenInput)

    def clean_players(self) -> list[int]:
        raw = sent_values(self.data, "players")
        if not all(is_id(v) for v in raw):
            raise forms.ValidationError(_("Uno dei giocatori non esiste."))
        return chosen_ids(raw)

    def chosen(self) -> set[int] | None:
        """The players ticked in a form sent back (None: the roster as saved)."""
        return set(chosen_ids(sent_values(self.data, "players"))) if self.is_bound else None
