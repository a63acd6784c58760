"""An event as a calendar file (RFC 5545, ".ics"): "Aggiungi al calendario" on every event's
page. One VEVENT with its start, its expected end (each kind says: an arena's duration, a
tournament's announced or estimated end), its name and its page. Times in UTC, so every
calendar shows them in its own zone."""

from __future__ import annotations

from datetime import UTC, datetime

from django.utils.translation import gettext as _

LINE_OCTETS = 75


def escape(text: str) -> str:
    """TEXT value escaping (RFC 5545 3.3.11)."""
    return (
        text.replace("\\", "\\\\")
        .replace(";", "\\;")
        .replace(",", "\\,")
        .replace("\r\n", "\\n")
        .replace("\n", "\\n")
    )


def fold(line: str) -> str:
    """Lines longer than 75 octets go on in lines starting with a space (RFC 5545 3.1), never
    cutting a UTF-8 character."""
    out, current = [], ""
    for char in line:
        limit = LINE_OCTETS if not out else LINE_OCTETS - 1
        if len((current + char).encode()) > limit:
            out.append(current)
            current = char
        else:
            current += char
    out.append(current)
    return "\r\n ".join(out)


def stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")


def _vevent(*, uid, name, starts_at, ends_at, url, description, now) -> list[str]:
    return [
        "BEGIN:VEVENT",
        f"UID:{uid}",
        f"DTSTAMP:{stamp(now)}",
        f"DTSTART:{stamp(starts_at)}",
        f"DTEND:{stamp(max(ends_at, starts_at))}",
        f"SUMMARY:{escape(name)}",
        f"DESCRIPTION:{escape(description)}",
        f"URL:{url}",
        "BEGIN:VALARM",
        "ACTION:DISPLAY",
        f"DESCRIPTION:{escape(name)}",
        "TRIGGER:-PT30M",
        "END:VALARM",
        "END:VEVENT",
    ]


def _calendar(vevents: list[list[str]]) -> str:
    lines = [
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        "PRODID:-//Circolo//Circolo di scacchi e dama//IT",
        "CALSCALE:GREGORIAN",
        "METHOD:PUBLISH",
        *(line for vevent in vevents for line in vevent),
        "END:VCALENDAR",
    ]
    return "\r\n".join(fold(line) for line in lines) + "\r\n"


def event_ics(
    *,
    uid: str,
    name: str,
    starts_at: datetime,
    ends_at: datetime,
    url: str,
    description: str,
    now: datetime,
) -> str:
    return _calendar(
        [
            _vevent(
                uid=uid,
                name=name,
                starts_at=starts_at,
                ends_at=ends_at,
                url=url,
                description=description,
                now=now,
            )
        ]
    )


def events_ics(items, *, host: str, now: datetime) -> str:
    """Many events in one calendar file (a club's coming events, RULES 12.5): `items` have
    `kind`, `pk`, `name`, `url` (absolute or the site's path), `starts_at`, `ends_at`."""
    from django.conf import settings

    vevents = []
    for item in items:
        url = item.url if "://" in item.url else settings.SITE_URL + item.url
        vevents.append(
            _vevent(
                uid=f"{item.kind}-{item.pk}@{host}",
                name=item.name,
                starts_at=item.starts_at,
                ends_at=item.ends_at,
                url=url,
                description=_("Pagina dell'evento: %(url)s") % {"url": url},
                now=now,
            )
        )
    return _calendar(vevents)


def description(event, url: str) -> str:
    return _("%(variant)s, %(clock)s. Pagina dell'evento: %(url)s") % {
        "variant": event.get_variant_display(),
        "clock": str(event.time_control),
        "url": url,
    }
