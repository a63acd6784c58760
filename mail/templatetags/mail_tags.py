from django import template
from django.utils.translation import ngettext

register = template.Library()


@register.filter
def seconds_as_words(seconds) -> str:
    """How long a link stays valid, in the mail's language: "3 giorni", "1 ora", "20 minuti"."""
    seconds = int(seconds or 0)
    if seconds >= 86400 and seconds % 86400 == 0:
        n = seconds // 86400
        return ngettext("%(n)d giorno", "%(n)d giorni", n) % {"n": n}
    if seconds >= 3600 and seconds % 3600 == 0:
        n = seconds // 3600
        return ngettext("%(n)d ora", "%(n)d ore", n) % {"n": n}
    n = max(1, round(seconds / 60))
    return ngettext("%(n)d minuto", "%(n)d minuti", n) % {"n": n}


@register.filter
def local_datetime(iso: str, zone: str = "Europe/Rome") -> str:
    """A moment kept in a mail's data (ISO 8601) as its reader says it, in `zone`: "venerdì 4
    dicembre, 21:30" (the language is the mail's)."""
    from datetime import datetime
    from zoneinfo import ZoneInfo

    from django.utils.dateformat import format as date_format

    try:
        moment = datetime.fromisoformat(iso).astimezone(ZoneInfo(zone))
    except (TypeError, ValueError, KeyError):
        return str(iso)
    return date_format(moment, "l j F, H:i")
