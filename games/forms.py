from __future__ import annotations

from django import forms
from django.contrib.auth import get_user_model
from django.utils.translation import gettext_lazy as _

from games.models import ColorChoice, Variant
from games.services.pools import QUICK_TIME_CONTROLS

# Presets of the lobby: (base minutes, increment seconds).
PRESETS = [(1, 0), (3, 2), (5, 0), (10, 5), (15, 10), (30, 0)]
CUSTOM = "custom"


class ChallengeForm(forms.Form):
    variant = forms.ChoiceField(label=_("Variante"), choices=Variant.choices)
    preset = forms.ChoiceField(
        label=_("Tempo"),
        choices=[(f"{b}+{i}", f"{b}+{i}") for b, i in PRESETS] + [(CUSTOM, _("Personalizzato"))],
        initial="5+0",
    )
    base_minutes = forms.IntegerField(
        label=_("Minuti"), min_value=0, max_value=180, required=False, initial=5
    )
    increment_seconds = forms.IntegerField(
        label=_("Incremento (s)"), min_value=0, max_value=60, required=False, initial=0
    )
    color = forms.ChoiceField(label=_("Colore"), choices=ColorChoice.choices, initial="random")
    rated = forms.BooleanField(label=_("Valida per il punteggio"), required=False, initial=True)
    opponent = forms.CharField(
        label=_("Avversario (vuoto: sfida aperta)"), required=False, max_length=20
    )

    def __init__(self, *args, user=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.user = user

    def clean_opponent(self):
        name = self.cleaned_data["opponent"].strip()
        if not name:
            return None
        user = get_user_model().objects.filter(username__iexact=name, is_active=True).first()
        if user is None:  # a deactivated account cannot be challenged
            raise forms.ValidationError(_("Nessun giocatore con questo nome."))
        if self.user is not None and user.pk == self.user.pk:
            raise forms.ValidationError(_("Non puoi sfidare te stesso."))
        return user

    def clean(self):
        data = super().clean()
        preset = data.get("preset")
        if preset and preset != CUSTOM:
            base, inc = (int(x) for x in preset.split("+"))
        else:
            base, inc = data.get("base_minutes"), data.get("increment_seconds")
            if base is None or inc is None:
                raise forms.ValidationError(_("Indica minuti e incremento."))
        if base == 0 and inc == 0:
            raise forms.ValidationError(_("Serve un tempo base o un incremento."))
        data["base_seconds"], data["increment"] = base * 60, inc
        return data


class QuickPairingForm(forms.Form):
    """A cell of the quick-pairing grid ("Partita veloce")."""

    variant = forms.ChoiceField(label=_("Variante"), choices=Variant.choices)
    tc = forms.ChoiceField(choices=[(f"{m}+{i}", f"{m}+{i}") for m, i in QUICK_TIME_CONTROLS])
    casual = forms.BooleanField(label=_("Amichevole (non valida per il punteggio)"), required=False)

    def clean(self):
        data = super().clean()
        if data.get("tc"):
            minutes, increment = (int(x) for x in data["tc"].split("+"))
            data["base_seconds"], data["increment_seconds"] = minutes * 60, increment
        data["rated"] = not data.get("casual")
        return data
