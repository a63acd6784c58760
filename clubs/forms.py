"""The clubs' forms (RULES 12): founding or editing a club, an invite link, the list's search."""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.core.validators import MaxValueValidator
from django.utils.translation import gettext_lazy as _

from clubs.models import PROVINCES, Club
from clubs.services import ClubData


class ClubForm(forms.ModelForm):
    class Meta:
        model = Club
        fields = ["name", "short_name", "city", "province", "description", "fsi_code", "fid_code"]
        widgets = {"description": forms.Textarea(attrs={"rows": 4})}
        help_texts = {
            "name": _(
                "Unico: non si può usare il nome di un altro circolo, nemmeno con altre "
                "maiuscole, accenti o lettere che si leggono uguali."
            ),
            "fsi_code": _(
                "Facoltativo: il codice del circolo presso la Federazione Scacchistica Italiana."
            ),
            "fid_code": _(
                "Facoltativo: il codice del circolo presso la Federazione Italiana Dama."
            ),
        }

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["province"].choices = [("", "—"), *((p, p) for p in PROVINCES)]

    def clean_short_name(self) -> str:
        return self.cleaned_data["short_name"].strip().upper()

    def to_data(self) -> ClubData:
        data = self.cleaned_data
        return ClubData(
            name=data["name"],
            short_name=data["short_name"],
            city=data["city"],
            province=data["province"],
            description=data.get("description", ""),
            fsi_code=data.get("fsi_code", ""),
            fid_code=data.get("fid_code", ""),
        )


class InviteForm(forms.Form):
    """RULES 12.4: the link's own bound, never above the site's (read per form: the settings
    may change)."""

    uses = forms.IntegerField(label=_("Iscrizioni consentite"), min_value=1, initial=30)
    days = forms.IntegerField(label=_("Giorni di validità"), min_value=1)

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        uses, days = self.fields["uses"], self.fields["days"]
        uses.max_value, days.max_value = settings.SIGNUP_LINK_USES, settings.SIGNUP_LINK_DAYS
        uses.validators.append(MaxValueValidator(settings.SIGNUP_LINK_USES))
        days.validators.append(MaxValueValidator(settings.SIGNUP_LINK_DAYS))
        uses.widget.attrs["max"], days.widget.attrs["max"] = uses.max_value, days.max_value
        uses.initial = min(30, settings.SIGNUP_LINK_USES)
        days.initial = settings.SIGNUP_LINK_DAYS
        uses.help_text = _("Quanti giocatori possono entrare con questo link (al più %(n)d).") % {
            "n": settings.SIGNUP_LINK_USES
        }


class ClubSearchForm(forms.Form):
    q = forms.CharField(label=_("Cerca un circolo o una città"), required=False, max_length=60)
    province = forms.ChoiceField(label=_("Provincia"), required=False, choices=())

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["province"].choices = [("", _("Tutte")), *((p, p) for p in PROVINCES)]
