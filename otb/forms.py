"""Forms of the arbiter's table (RULES 13). They check fields; the services decide."""

from __future__ import annotations

from django import forms
from django.contrib.auth import get_user_model
from django.utils.translation import gettext_lazy as _

from games.models import Variant
from otb.models import FormatChoice, OtbBye, OtbPlayer
from otb.rules import MAX_FIDE_ID, MAX_ROUNDS, PlayerRow
from ratings.models import CadenceChoice


class DateInput(forms.DateInput):
    input_type = "date"


class OtbForm(forms.Form):
    name = forms.CharField(label=_("Nome del torneo"), max_length=100)
    variant = forms.ChoiceField(label=_("Gioco"), choices=Variant.choices)
    cadence = forms.ChoiceField(label=_("Cadenza"), choices=CadenceChoice.choices)
    time_control = forms.CharField(
        label=_("Tempo di riflessione"), max_length=40, required=False, help_text=_("Es. 90'+30\"")
    )
    format_choice = forms.ChoiceField(label=_("Formula"), choices=FormatChoice.choices)
    rounds_wanted = forms.IntegerField(
        label=_("Turni (svizzero)"),
        min_value=1,
        max_value=30,
        required=False,
        help_text=_("Vuoto: li decide il sito dal numero dei giocatori (regola 4.4)."),
    )
    venue = forms.CharField(label=_("Sede di gioco"), max_length=120, required=False)
    starts_on = forms.DateField(label=_("Primo giorno"), widget=DateInput)
    ends_on = forms.DateField(label=_("Ultimo giorno"), widget=DateInput)
    prohibited_rounds = forms.IntegerField(
        label=_("Turni con accoppiamenti vietati"),
        min_value=0,
        max_value=30,
        initial=0,
        help_text=_("Nei primi turni non si incontrano giocatori della stessa famiglia."),
    )
    prohibit_club = forms.BooleanField(
        label=_("Vietati anche tra giocatori dello stesso circolo"), required=False
    )

    def clean(self):
        data = super().clean()
        if data.get("starts_on") and data.get("ends_on") and data["ends_on"] < data["starts_on"]:
            self.add_error("ends_on", _("L'ultimo giorno viene prima del primo."))
        return data


class PlayerForm(forms.Form):
    last_name = forms.CharField(label=_("Cognome"), max_length=60)
    first_name = forms.CharField(label=_("Nome"), max_length=60, required=False)
    sex = forms.ChoiceField(
        label=_("Sesso"), choices=[("", "—"), *OtbPlayer.Sex.choices], required=False
    )
    birth_year = forms.IntegerField(
        label=_("Anno di nascita"), min_value=1900, max_value=2100, required=False
    )
    fsi_card = forms.CharField(label=_("Tessera FSI"), max_length=20, required=False)
    fid_card = forms.CharField(label=_("Tessera F.I.D."), max_length=20, required=False)
    fide_id = forms.IntegerField(
        label=_("FIDE ID"), min_value=1, max_value=MAX_FIDE_ID, required=False
    )  # RULES 13.10: the TRF's 11 columns
    club = forms.CharField(label=_("Circolo"), max_length=60, required=False)
    province = forms.RegexField(
        label=_("Provincia"), regex=r"^[A-Za-z]{2}$", max_length=2, required=False
    )
    family = forms.CharField(
        label=_("Famiglia"),
        max_length=60,
        required=False,
        help_text=_("Uguale per i familiari: non si incontrano nei primi turni."),
    )
    national_rating = forms.IntegerField(
        label=_("Elo Italia (scacchi) o punteggio F.I.D. (dama)"),
        min_value=0,
        max_value=3000,
        required=False,
    )
    fide_rating = forms.IntegerField(
        label=_("Elo FIDE"), min_value=0, max_value=3000, required=False
    )
    username = forms.CharField(
        label=_("Utente del sito"),
        max_length=150,
        required=False,
        help_text=_("Se gioca anche qui: il punteggio del sito vale quando l'Elo non è scritto."),
    )

    def clean_username(self) -> str:
        # Checked here so the refusal sits under its field with the rest kept; the service
        # checks again (a CSV line, or an account gone in between).
        name = self.cleaned_data["username"].strip()
        if name and not get_user_model().objects.filter(username__iexact=name).exists():
            raise forms.ValidationError(
                _("Nessun utente del sito si chiama «%(name)s»."), params={"name": name}
            )
        return name

    def row(self) -> PlayerRow:
        d = self.cleaned_data
        return PlayerRow(
            line=0,
            last_name=d["last_name"],
            first_name=d["first_name"],
            sex=d["sex"],
            birth_year=d["birth_year"],
            fsi_card=d["fsi_card"],
            fid_card=d["fid_card"],
            fide_id=d["fide_id"],
            club=d["club"],
            province=(d["province"] or "").upper(),
            family=d["family"],
            national_rating=d["national_rating"],
            fide_rating=d["fide_rating"],
            username=d["username"],
        )


class ImportForm(forms.Form):
    file = forms.FileField(label=_("File CSV dei giocatori"))


class WithdrawForm(forms.Form):
    player = forms.TypedChoiceField(label=_("Giocatore"), coerce=int)
    from_round = forms.IntegerField(
        label=_("Dal turno"),
        min_value=1,
        max_value=MAX_ROUNDS,
        required=False,
        help_text=_("Vuoto: dal prossimo."),
    )


class ByeForm(forms.Form):
    player = forms.TypedChoiceField(label=_("Giocatore"), coerce=int)
    round_number = forms.IntegerField(label=_("Turno"), min_value=1, max_value=MAX_ROUNDS)
    kind = forms.ChoiceField(label=_("Vale"), choices=OtbBye.KINDS)


class ArbiterForm(forms.Form):
    username = forms.CharField(label=_("Coarbitro (nome utente)"), max_length=150)


class ExchangeForm(forms.Form):
    first = forms.IntegerField(label=_("Giocatore n."), min_value=1)
    second = forms.IntegerField(label=_("con il n."), min_value=1)
    override = forms.BooleanField(
        label=_("Forzo lo scambio anche se viola una regola assoluta (resta nel verbale)"),
        required=False,
    )


def player_choices(players) -> list[tuple[int, str]]:
    return [(p.pk, f"{p.number or '–'} · {p.full_name}") for p in players]
