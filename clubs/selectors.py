"""Reading clubs (RULES 12): for pages, for the services' checks, and for the apps above
(events, tournaments, arena, chat) that ask who is a member of which club."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, Q, QuerySet
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _

from accounts.models import SignupLink
from clubs.models import LINK_PURPOSE, OFFICERS, Club, JoinRequest, Membership, RequestStatus, Role
from clubs.names import name_key
from ratings.models import CadenceChoice, Rating, Variant, initial_rating


def current_membership(*, user_id: int | None) -> Membership | None:
    """The player's club now (RULES 12.3: at most one), with its club."""
    if user_id is None:
        return None
    return (
        Membership.objects.select_related("club")
        .filter(user_id=user_id, left_at__isnull=True)
        .first()
    )


def membership_of(*, club_id: int, user_id: int | None) -> Membership | None:
    if user_id is None:
        return None
    return Membership.objects.filter(club_id=club_id, user_id=user_id, left_at=None).first()


def is_member(*, club_id: int, user_id: int | None) -> bool:
    return membership_of(club_id=club_id, user_id=user_id) is not None


def is_officer(*, club_id: int, user_id: int | None) -> bool:
    membership = membership_of(club_id=club_id, user_id=user_id)
    return membership is not None and membership.role in OFFICERS


def member_at(*, club_id: int, user_id: int, at: datetime) -> bool:
    """Whether the player was a member of the club at that instant (a season's rule, RULES
    12.3, is read from the memberships' dates)."""
    return (
        Membership.objects.filter(club_id=club_id, user_id=user_id, joined_at__lte=at)
        .filter(Q(left_at__isnull=True) | Q(left_at__gt=at))
        .exists()
    )


def clubs_of(user_ids: Iterable[int]) -> dict[int, Club]:
    """Each player's club now (one query), for the badge beside their name (RULES 12.9)."""
    rows = Membership.objects.filter(
        user_id__in=list(user_ids), left_at__isnull=True, club__hidden=False
    ).select_related("club")
    return {m.user_id: m.club for m in rows}


def club_list(*, query: str = "", province: str = "") -> QuerySet[Club]:
    clubs = Club.objects.listed().annotate(
        members=Count("memberships", filter=Q(memberships__left_at__isnull=True))
    )
    if query:
        clubs = clubs.filter(Q(name__icontains=query) | Q(city__icontains=query))
    if province:
        clubs = clubs.filter(province=province)
    return clubs.order_by("name", "id")


# How many clubs a search among them shows at once (the battle form's picker): past it, the
# page asks for a closer search.
SEARCH_SHOWN = 20


def search_text(typed: str) -> str:
    """What a club search looks for: the typed text without what no name holds (control and
    format characters: a NUL, which PostgreSQL refuses in a query's text), trimmed, at most 60
    characters."""
    return "".join(ch for ch in typed if ch.isprintable()).strip()[:60]


def club_search(*, query: str, excluding: Iterable[int] = ()) -> tuple[list[Club], bool]:
    """The listed clubs whose name (also as compared, RULES 12.2: without accents or
    look-alike letters), short name or city holds `query`, by name, those in `excluding` left
    out: at most SEARCH_SHOWN of them, and whether there were more. Nothing for an empty
    query (a site of many clubs is searched, not listed)."""
    query = search_text(query)
    key = name_key(query)
    if not query:
        return [], False
    found = Club.objects.listed().filter(
        Q(name__icontains=query)
        | Q(short_name__iexact=query)
        | Q(city__icontains=query)
        | (Q(name_key__contains=key) if key else Q(pk__in=[]))
    )
    found = list(found.exclude(pk__in=list(excluding)).order_by("name", "id")[: SEARCH_SHOWN + 1])
    return found[:SEARCH_SHOWN], len(found) > SEARCH_SHOWN


def clubs_by_id(ids: Iterable[int]) -> dict[int, Club]:
    """These clubs, whatever their state (dissolved, hidden): for a form to say what is wrong
    with a choice."""
    return {club.pk: club for club in Club.objects.filter(pk__in=list(ids))}


def club_get(*, club_id: int, viewer=None) -> Club | None:
    """The club for its page: a hidden one only to its members and the staff."""
    club = Club.objects.filter(pk=club_id).first()
    if club is None:
        return None
    if club.hidden and not (
        getattr(viewer, "is_staff", False)
        or is_member(club_id=club.pk, user_id=getattr(viewer, "pk", None))
    ):
        return None
    return club


@dataclass(frozen=True)
class MemberRow:
    membership: Membership
    ratings: dict[str, int]  # "variant:cadence" -> rating

    @property
    def user(self):
        return self.membership.user


@dataclass(frozen=True)
class Column:
    key: str  # "variant:cadence", the sort key
    variant: str
    cadence: str


@dataclass(frozen=True)
class RatingList:
    rows: list[MemberRow]
    columns: list[Column]
    sort: str  # the column sorted by, "" for the names


def members(club: Club, *, sort: str = "") -> RatingList:
    """The club's members with their ratings (the club's rating list, RULES 12.5): a column for
    each variant and cadence in which a member has a rated game (**Decision**: a pool nobody
    of the club has played would be a column of initial ratings), sorted by one column
    (highest first, then by name) or by name. Two queries."""
    rows = list(
        club.memberships.filter(left_at__isnull=True)
        .select_related("user")
        .order_by("user__username")
    )
    ids = [m.user_id for m in rows]
    start = initial_rating()
    ratings: dict[int, dict[str, int]] = {pk: {} for pk in ids}
    played: set[tuple[str, str]] = set()
    for pk, variant, cadence, value, games in Rating.objects.filter(player_id__in=ids).values_list(
        "player_id", "variant", "cadence", "value", "games"
    ):
        ratings[pk][f"{variant}:{cadence}"] = value
        if games:
            played.add((variant, cadence))
    variant_labels = dict(Variant.choices)
    cadence_labels = dict(CadenceChoice.choices)
    columns = [
        Column(f"{v}:{c}", str(variant_labels[v]), str(cadence_labels[c]))
        for v in variant_labels
        for c in cadence_labels
        if (v, c) in played
    ]
    found = [
        MemberRow(m, {col.key: ratings[m.user_id].get(col.key, start) for col in columns})
        for m in rows
    ]
    if sort not in {col.key for col in columns}:
        sort = ""
    if sort:
        found.sort(key=lambda r: (-r.ratings[sort], r.user.username.lower()))
    return RatingList(found, columns, sort)


def officers(club: Club) -> list[Membership]:
    rows = club.memberships.filter(left_at__isnull=True, role__in=OFFICERS).select_related("user")
    return sorted(rows, key=lambda m: (m.role != Role.PRESIDENT, m.user.username.lower()))


def pending_requests(club: Club) -> list[JoinRequest]:
    return list(
        club.requests.filter(status=RequestStatus.PENDING)
        .select_related("user")
        .order_by("created_at", "id")
    )


def my_pending_request(*, user) -> JoinRequest | None:
    if not getattr(user, "is_authenticated", False):
        return None
    return (
        JoinRequest.objects.select_related("club")
        .filter(user=user, status=RequestStatus.PENDING)
        .first()
    )


def decisions_to_tell(*, user) -> list[JoinRequest]:
    """The decisions on the player's requests they have not closed yet (the site notice)."""
    if not getattr(user, "is_authenticated", False):
        return []
    return list(
        JoinRequest.objects.select_related("club")
        .filter(
            user=user,
            status__in=[RequestStatus.ACCEPTED, RequestStatus.REFUSED],
            seen=False,
        )
        .order_by("-decided_at")[:3]
    )


def invite_links(club: Club) -> list[SignupLink]:
    return list(
        SignupLink.objects.filter(purpose=LINK_PURPOSE, target_id=club.pk)
        .select_related("maker")
        .order_by("-created_at")[:20]
    )


def history(club: Club) -> list[Membership]:
    """Who was a member and when, newest first (tombstones of deleted accounts included)."""
    return list(
        club.memberships.filter(left_at__isnull=False)
        .select_related("user")
        .order_by("-left_at")[:50]
    )


def invite_described(*, link: SignupLink, state: str) -> str:
    """RULES 12.4: what the sign-up page says of a club's invite link, before the form: the
    club it joins while open; once closed (or the club dissolved), why, and that an account
    made now is in no club (`accounts.signup_links.described`)."""
    club = Club.objects.filter(pk=link.target_id).first()
    if club is None:
        return ""
    name = format_html("<strong>{}</strong>", club.name)
    if state == "open" and club.is_active:
        return _said(
            _(
                "Ti iscrivi ed entri nel circolo «%(club)s» (%(city)s, %(province)s), con "
                "l'invito di %(maker)s: appena creato l'account sei socio."
            ),
            club=name,
            city=club.city,
            province=club.province,
            maker=link.maker.username,
        )
    if not club.is_active:
        why = _("Il circolo «%(club)s» è stato sciolto: il suo invito non vale più.")
    else:
        why = {
            "expired": _("L'invito al circolo «%(club)s» è scaduto."),
            "used_up": _(
                "L'invito al circolo «%(club)s» ha già avuto tutte le iscrizioni previste."
            ),
        }.get(state, _("L'invito al circolo «%(club)s» è stato revocato."))
    # RULES 12.4: signing up stays open to anyone, in no club and with the address's limits;
    # a club that takes requests may still be asked from its page.
    if club.is_active and not club.hidden:
        then = _(
            "Se ti iscrivi ora non entri nel circolo: chiedi un nuovo invito ai suoi "
            "consiglieri, oppure iscriviti lo stesso (con i limiti di ogni iscrizione) e chiedi "
            "di entrare dalla pagina del circolo."
        )
    else:
        then = _("Puoi iscriverti lo stesso, senza circolo, con i limiti di ogni iscrizione.")
    return format_html("{} {}", _said(why, club=name), then)


def _said(text: str, **values) -> str:
    """A translated sentence with its values put in, escaped: the sentence's own text is
    escaped, the values are already HTML (the club's name in bold) or escaped here."""
    return mark_safe(
        conditional_escape(text) % {k: conditional_escape(v) for k, v in values.items()}
    )
