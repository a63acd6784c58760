"""The form fields every event shares (RULES 2, 4.1, 6, 7.2, 7.3, 8), and their checks.

Time zones (a decision: the rules are silent): the start is stored in UTC. The form has a hidden `timezone`
field that the page's script fills with the browser's zone (Intl API); the typed start is read
in that zone, and Europe/Rome (setting TOURNAMENT_DEFAULT_TIME_ZONE) is used without JavaScript
or for a zone that is not a real one (`zone_or_default`). After a successful submit the zone is
remembered in the session, and event pages show times in it. Countdowns are computed in the
browser from the UTC instant.
"""

from __future__ import annotations

import functools
import zoneinfo
from datetime import datetime

from django import forms
from django.conf import settings
from django.utils import timezone
from django.utils.formats import localize
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe
from django.utils.timezone import template_localtime
from django.utils.translation import gettext_lazy as _

from events import options
from events.models import OpeningModeChoice
from events.options import OpeningMode
from events.text import DESCRIPTION_MAX, NAME_MAX, plain_description, plain_name
from games.models import Variant
from games.rules import openings

CUSTOM = "custom"
# Common time controls, "minutes+seconds" (RULES 2); anything else through "custom".
PRESETS = [
    "1+0",
    "2+1",
    "3+0",
    "3+2",
    "5+0",
    "5+3",
    "10+0",
    "10+5",
    "15+10",
    "30+0",
    "30+20",
    "60+30",
    "90+30",
]
DEFAULT_ZONE = settings.TOURNAMENT_DEFAULT_TIME_ZONE
ZONE_SESSION_KEY = "tournaments_tz"  # the zone the browser last reported (every event kind)
MAX_BASE_MINUTES = 180
MAX_INCREMENT_SECONDS = 180


def parse_preset(value: str) -> tuple[int, int]:
    minutes, seconds = value.split("+")
    return int(minutes) * 60, int(seconds)


@functools.cache
def _zone_names() -> frozenset[str]:
    return frozenset(zoneinfo.available_timezones())


def zone_or_default(name: str | None) -> zoneinfo.ZoneInfo:
    """The zone named `name` if it is a real IANA zone, else the default. Only names from the
    zone database are opened: a folder of it (`America`), an over-long or odd name never
    reaches the file system."""
    if name and name in _zone_names():
        try:
            return zoneinfo.ZoneInfo(name)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):
            pass
    return zoneinfo.ZoneInfo(DEFAULT_ZONE)


def use_zone(request) -> None:
    """Show times in the zone the browser last reported (Europe/Rome until then)."""
    timezone.activate(zone_or_default(request.session.get(ZONE_SESSION_KEY)))


def remember_zone(request, form: EventForm) -> None:
    request.session[ZONE_SESSION_KEY] = form.zone().key


def thematic_choices(variant: str) -> list[tuple[int, str]]:
    """The 174 openings with their class; English classes are derived and say so (RULES 6)."""
    played = openings.column(variant) or "italian"  # a variant without the table: Italian's
    return [
        (o.number, f"{o.number}. {' '.join(o.moves_in(played))} — {o.class_in(played)}")
        for o in openings.table()
    ]


# Letters of a private event's password, at least.
PRIVATE_PASSWORD_MIN_LENGTH = 8


class ManyOptionsSelect(forms.Select):
    """A `<select>` written in Python, the same markup Django's templates write (checked by
    tests/events), for the thematic openings' 175 options: through the templates each option
    is two includes, and they were two thirds of the time an event's form page took (a page
    every invalid submit renders again; tests/test_fuzz_forms.py)."""

    def render(self, name, value, attrs=None, renderer=None):
        widget = self.get_context(name, value, attrs)["widget"]
        parts = [format_html('<select name="{}"{}>', widget["name"], _attrs(widget["attrs"]))]
        for group_name, group, _index in widget["optgroups"]:
            if group_name:
                parts.append(format_html('\n  <optgroup label="{}">', _shown(group_name)))
            for option in group:
                parts.append(
                    format_html(
                        '\n  <option value="{}"{}>{}</option>\n',  # the file's own newline
                        str(option["value"]),
                        _attrs(option["attrs"]),
                        _shown(option["label"]),
                    )
                )
            if group_name:
                parts.append(mark_safe("\n  </optgroup>"))
        parts.append(mark_safe("\n</select>"))
        return mark_safe("".join(parts))


def _shown(value):
    """A label as a template shows it: local times and the locale's numbers and dates."""
    return localize(template_localtime(value))


def _attrs(attrs: dict) -> str:
    """Attributes as django/forms/widgets/attrs.html writes them: True is the bare name,
    False leaves it out, in the given order (`django.forms.utils.flatatt` sorts them and
    puts the bare names last, so its markup is not the template's)."""
    return format_html_join(
        "",
        "{}",
        (
            (format_html(" {}", name) if value is True else format_html(' {}="{}"', name, value),)
            for name, value in attrs.items()
            if value is not False
        ),
    )


class EventForm(forms.Form):
    """The options of any event. A kind's form adds its own fields and `to_options()`."""

    name = forms.CharField(label=_("Nome"), max_length=NAME_MAX, validators=[plain_name])
    description = forms.CharField(
        label=_("Descrizione"),
        required=False,
        max_length=DESCRIPTION_MAX,
        validators=[plain_description],
        widget=forms.Textarea(attrs={"rows": 3}),
    )
    variant = forms.ChoiceField(label=_("Variante"), choices=Variant.choices)
    time_control = forms.ChoiceField(
        label=_("Tempo di riflessione"),
        choices=[(p, p) for p in PRESETS] + [(CUSTOM, _("Personalizzato"))],
        initial="5+3",
        help_text=_("Minuti per giocatore + secondi di incremento per mossa."),
    )
    base_minutes = forms.IntegerField(
        label=_("Minuti (personalizzato)"),
        required=False,
        min_value=0,
        max_value=MAX_BASE_MINUTES,
    )
    increment = forms.IntegerField(
        label=_("Incremento in secondi (personalizzato)"),
        required=False,
        min_value=0,
        max_value=MAX_INCREMENT_SECONDS,
    )
    starts_at = forms.DateTimeField(
        label=_("Inizio"),
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
        input_formats=["%Y-%m-%dT%H:%M", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M"],
    )
    # The browser's zone, filled in by the page's script; Europe/Rome without JavaScript.
    timezone = forms.CharField(widget=forms.HiddenInput, required=False, initial=DEFAULT_ZONE)
    opening_mode = forms.ChoiceField(
        label=_("Aperture"), choices=OpeningModeChoice.choices, initial=OpeningMode.FREE.value
    )
    thematic_opening = forms.TypedChoiceField(
        label=_("Apertura tematica"),
        coerce=int,
        required=False,
        empty_value=None,
        choices=(),
        widget=ManyOptionsSelect,
    )
    rated = forms.BooleanField(label=_("Valutato"), required=False, initial=True)
    floor = forms.TypedChoiceField(
        label=_("Sbarramento"),
        coerce=int,
        required=False,
        empty_value=None,
        choices=[("", _("Nessuno"))] + [(f, str(f)) for f in options.FLOORS],
    )
    private = forms.BooleanField(label=_("Privato"), required=False)
    # RULES 12.6: the opener's club's members only (an officer's; fixed at the opening).
    club_only = forms.BooleanField(
        label=_("Solo i soci del mio circolo"),
        required=False,
        help_text=_("Per i consiglieri di un circolo: entra solo chi ne è socio."),
    )
    password = forms.CharField(
        label=_("Password"),
        required=False,
        max_length=128,
        widget=forms.PasswordInput(render_value=True),
    )

    # Whether the kind plays double games when the form says so (RULES 7.3; arenas never).
    double_games_field: str | None = None

    def __init__(self, *args, instance=None, now: datetime | None = None, **kwargs) -> None:
        self.instance = instance
        self.now = now
        if instance is not None and "initial" not in kwargs:
            kwargs["initial"] = self.initial_from(instance)
        super().__init__(*args, **kwargs)
        self.fields["timezone"].initial = timezone.get_current_timezone_name()
        # Unchosen: the variant the select shows, the list's first.
        variant = self.data.get("variant") or self.initial.get("variant") or Variant.values[0]
        self.fields["thematic_opening"].choices = [("", "—")] + thematic_choices(variant)
        if openings.classes_derived(variant):
            self.fields["thematic_opening"].help_text = _(
                "Le classi inglesi sono derivate da quelle F.I.D., non ufficiali."
            )
        if instance is not None and instance.is_private:
            self.fields["password"].help_text = _("Lascia vuoto per tenere la password attuale.")

    @classmethod
    def initial_from(cls, event) -> dict:
        tc = f"{event.base_seconds // 60}+{event.increment_seconds}"
        custom = tc not in PRESETS or event.base_seconds % 60
        return {
            "name": event.name,
            "description": event.description,
            "variant": event.variant,
            "time_control": CUSTOM if custom else tc,
            "base_minutes": event.base_seconds // 60,
            "increment": event.increment_seconds,
            "starts_at": timezone.localtime(event.starts_at),
            "opening_mode": event.opening_mode,
            "thematic_opening": event.thematic_opening,
            "rated": event.rated or event.rated_switched_off,
            "floor": event.floor,
            "private": event.is_private,
            "club_only": event.club_id is not None,
        }

    def zone(self) -> zoneinfo.ZoneInfo:
        return zone_or_default(self.data.get("timezone") if self.is_bound else None)

    def full_clean(self) -> None:
        # The start is typed in the user's zone and stored in UTC (module docstring).
        with timezone.override(self.zone()):
            super().full_clean()

    def clean_starts_at(self) -> datetime:
        value = self.cleaned_data["starts_at"]
        now = self.now or timezone.now()
        if value < now + options.START_AT_LEAST:  # RULES 4.1, 8
            raise forms.ValidationError(_("L'inizio deve essere fra almeno 5 minuti."))
        if value > now + options.START_AT_MOST:
            raise forms.ValidationError(_("L'inizio può essere al massimo fra 14 giorni."))
        return value

    def clean(self) -> dict:
        data = super().clean()
        # Time control (RULES 2).
        preset = data.get("time_control")
        if preset == CUSTOM:
            base, inc = data.get("base_minutes"), data.get("increment")
            if base is None or inc is None:
                if not self.has_error("base_minutes") and not self.has_error("increment"):
                    self.add_error("base_minutes", _("Indica minuti e incremento."))
            elif base == 0 and inc == 0:
                self.add_error("base_minutes", _("Serve un tempo base o un incremento."))
            else:
                data["base_seconds"], data["increment_seconds"] = base * 60, inc
        elif preset:
            data["base_seconds"], data["increment_seconds"] = parse_preset(preset)
        # RULES 7.2: a floor only on rated events.
        if data.get("floor") is not None and not data.get("rated"):
            self.add_error("floor", _("Lo sbarramento vale solo per gli eventi valutati."))
        # RULES 6: table draws and thematic only on Italian and English draughts.
        mode, variant = data.get("opening_mode"), data.get("variant")
        if mode and variant and not options.mode_allowed(mode, variant):
            self.add_error(
                "opening_mode",
                _(
                    "Sorteggio dalla tabella e apertura tematica solo per dama italiana e "
                    "dama inglese."
                ),
            )
        if mode == OpeningMode.THEMATIC and not data.get("thematic_opening"):
            self.add_error("thematic_opening", _("Scegli l'apertura tematica."))
        # Private means a password; on edit an empty one keeps the current one.
        if data.get("private") and not data.get("password"):
            if self.instance is None or not self.instance.is_private:
                self.add_error("password", _("Scegli una password per l'evento privato."))
        elif data.get("private") and len(data["password"]) < PRIVATE_PASSWORD_MIN_LENGTH:
            # A short password falls to guessing however the tries are counted (four digits
            # were found on the 23rd guess with fresh accounts): a new one is long enough, or
            # the organizer shares the invite link instead. Old short ones keep working.
            self.add_error(
                "password",
                _("La password di un evento privato ha almeno %(n)d caratteri.")
                % {"n": PRIVATE_PASSWORD_MIN_LENGTH},
            )
        return data

    def event_options(self) -> dict:
        """The shared options as keyword arguments of `events.services.EventOptions`."""
        d = self.cleaned_data
        password = (d["password"] or None) if d["private"] else ""  # None keeps the current one
        return {
            "name": d["name"].strip(),
            "description": d["description"].strip(),
            "variant": d["variant"],
            "base_seconds": d["base_seconds"],
            "increment_seconds": d["increment_seconds"],
            "starts_at": d["starts_at"],
            "opening_mode": d["opening_mode"],
            "thematic_opening": d["thematic_opening"],
            "rated": d["rated"],
            "floor": d["floor"] if d["rated"] else None,
            "password": password,
            "club_only": bool(d.get("club_only")),
        }

    @classmethod
    def rated_hint(cls, data) -> options.RatedOutcome | None:
        """RULES 7.3 from the data as typed so far, for the live hint before submitting."""
        if not data:
            return None
        try:
            mode = OpeningMode(data.get("opening_mode") or OpeningMode.FREE.value)
            thematic = int(data.get("thematic_opening") or 0) or None
        except ValueError:
            return None
        if thematic is not None and not 1 <= thematic <= len(openings.table()):
            thematic = None
        if mode is not OpeningMode.THEMATIC:
            thematic = None
        return options.rated_outcome(
            rated=bool(data.get("rated")),
            floor=None,
            double_games=bool(cls.double_games_field and data.get(cls.double_games_field)),
            mode=mode,
            thematic_number=thematic,
        )

    # Parts of a kind's form drawn again from what was typed, nothing checked or saved (a
    # search among many choices, `events.views.EventPages.new`): the names of the submit
    # buttons that ask for it without JavaScript (the whole page comes back), and the ids of
    # the elements htmx asks it for, each with the template's partial that draws it.
    echo_buttons: tuple[str, ...] = ()
    echo_parts: dict[str, str] = {}

    @classmethod
    def echo(cls, data, *, instance=None, keep_password: bool = False):
        """An unbound form showing what was typed so far, without error messages (the live
        hint re-renders part of the form while the opener is still choosing; a search button
        the whole page, `keep_password` then, as a form sent back with its errors keeps it)."""
        dropped = ("csrfmiddlewaretoken",) if keep_password else ("csrfmiddlewaretoken", "password")
        initial = {k: data.get(k) for k in data if k not in dropped}
        for name, field in cls.base_fields.items():
            if isinstance(field, forms.BooleanField):
                initial[name] = name in data
        return cls(initial=initial, instance=instance)


class JoinForm(forms.Form):
    """Joining an event (entering an arena): the password of a private one, which the event's
    page writes as its own input (RULES 4.2, 8)."""

    password = forms.CharField(label=_("Password"), required=False, widget=forms.PasswordInput)
