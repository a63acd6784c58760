"""The clubs' pages (RULES 12): the list, founding one, a club's page (its members' rating
list, officers, events, chat, calendar), the officers' management page, and the invite link.
Views stay thin (STYLE 2): forms check, services write, selectors read; for htmx the named
partial (STYLE 7)."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.models import SignupLink
from accounts.redirects import local_next
from clubs import registry, selectors, services
from clubs.forms import ClubForm, ClubSearchForm, InviteForm
from clubs.models import LINK_PURPOSE, OFFICERS, Club, Role
from clubs.services import ClubError


def _club(request: HttpRequest, pk: int) -> Club:
    club = selectors.club_get(club_id=pk, viewer=request.user)
    if club is None:
        raise Http404("no such club")
    return club


def _step(request: HttpRequest, service, done: str | None, **kwargs) -> bool:
    """Call one service; its refusal, or `done`, is the next page's message."""
    try:
        service(**kwargs)
    except ClubError as error:
        messages.error(request, error.message)
        return False
    if done:
        messages.success(request, done)
    return True


# --- the list and founding ----------------------------------------------------------------------


def club_list(request: HttpRequest) -> HttpResponse:
    form = ClubSearchForm(request.GET or None)
    query = province = ""
    if form.is_valid():
        query = form.cleaned_data["q"].strip()
        province = form.cleaned_data["province"]
    context = {
        "form": form,
        "clubs": selectors.club_list(query=query, province=province)[:200],
        "mine": selectors.current_membership(user_id=request.user.pk)
        if request.user.is_authenticated
        else None,
        "pending": selectors.my_pending_request(user=request.user),
        "decisions": selectors.decisions_to_tell(user=request.user),
    }
    if request.htmx:
        return render(request, "clubs/list.html#results", context)
    return render(request, "clubs/list.html", context)


@login_required
def club_new(request: HttpRequest) -> HttpResponse:
    form = ClubForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            club = services.club_found(founder=request.user, data=form.to_data())
        except ValidationError as error:
            for field, errors in error.message_dict.items():
                for message in errors:
                    form.add_error(field if field in form.fields else None, message)
        except ClubError as error:
            form.add_error(None, error.message)
        else:
            messages.success(request, _("Circolo fondato: ora ne sei il presidente."))
            return redirect(club.get_absolute_url())
    status = 400 if request.method == "POST" else 200
    return render(request, "clubs/form.html", {"form": form, "club": None}, status=status)


# --- a club's page ------------------------------------------------------------------------------


def club_detail(request: HttpRequest, pk: int) -> HttpResponse:
    club = _club(request, pk)
    user_id = request.user.pk if request.user.is_authenticated else None
    membership = selectors.membership_of(club_id=club.pk, user_id=user_id)
    rating_list = selectors.members(club, sort=request.GET.get("sort", ""))
    if request.htmx and request.headers.get("HX-Target") == "club-members":
        return render(request, "clubs/detail.html#members", {"club": club, "list": rating_list})
    events = registry.events_of(club.pk)
    now = timezone.now()
    context = {
        "club": club,
        "membership": membership,
        "is_officer": membership is not None and membership.role in OFFICERS,
        "list": rating_list,
        "officers": selectors.officers(club),
        "running": [e for e in events if e.status == "running"],
        "coming": [e for e in events if e.status == "scheduled" and e.starts_at >= now]
        + [e for e in events if e.status == "scheduled" and e.starts_at < now],
        "past": sorted((e for e in events if not e.live), key=lambda e: e.starts_at, reverse=True)[
            :30
        ],
        "mine": selectors.current_membership(user_id=user_id) if user_id else None,
        "pending": selectors.my_pending_request(user=request.user),
        "decisions": selectors.decisions_to_tell(user=request.user),
        "history": selectors.history(club) if membership is not None else [],
        "login_url": reverse("accounts:login") + "?" + urlencode({"next": request.path}),
        "openers": [
            {"label": o.label(), "url": o.url(club.pk), "testid": o.testid}
            for o in registry.openers()
        ],
    }
    return render(request, "clubs/detail.html", context)


def club_calendar(request: HttpRequest, pk: int) -> HttpResponse:
    """The club's coming events as one .ics (RULES 12.5), written by the events' calendar."""
    club = _club(request, pk)
    coming = [e for e in registry.events_of(club.pk) if e.live]
    text = registry.calendar(
        coming,
        host=request.get_host().split(":")[0],
        now=timezone.now(),
    )
    response = HttpResponse(text, content_type="text/calendar; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="circolo-club-{club.pk}.ics"'
    return response


@login_required
def club_edit(request: HttpRequest, pk: int) -> HttpResponse:
    club = _club(request, pk)
    if not selectors.is_officer(club_id=club.pk, user_id=request.user.pk):
        messages.error(request, _("Solo i consiglieri del circolo possono farlo."))
        return redirect(club.get_absolute_url())
    form = ClubForm(request.POST or None, instance=club)
    if request.method == "POST" and form.is_valid():
        try:
            services.club_update(club_id=club.pk, by=request.user, data=form.to_data())
        except ValidationError as error:
            for field, errors in error.message_dict.items():
                for message in errors:
                    form.add_error(field if field in form.fields else None, message)
        except ClubError as error:
            form.add_error(None, error.message)
        else:
            messages.success(request, _("Circolo aggiornato."))
            return redirect(club.get_absolute_url())
    status = 400 if request.method == "POST" else 200
    return render(request, "clubs/form.html", {"form": form, "club": club}, status=status)


@login_required
def club_manage(request: HttpRequest, pk: int) -> HttpResponse:
    """The officers' page: requests waiting, invite links, members and their roles."""
    club = _club(request, pk)
    mine = selectors.membership_of(club_id=club.pk, user_id=request.user.pk)
    if mine is None or mine.role not in OFFICERS:
        messages.error(request, _("Solo i consiglieri del circolo possono farlo."))
        return redirect(club.get_absolute_url())
    return _manage_page(request, club, mine, InviteForm())


def _manage_page(request, club, mine, invite_form, status: int = 200) -> HttpResponse:
    now = timezone.now()
    links = [
        (
            link,
            link.state(now),
            request.build_absolute_uri(reverse("clubs:invite", args=[link.token])),
        )
        for link in selectors.invite_links(club)
    ]
    context = {
        "club": club,
        "mine": mine,
        "is_president": mine.role == Role.PRESIDENT,
        "requests": selectors.pending_requests(club),
        "links": links,
        "invite_form": invite_form,
        "list": selectors.members(club),
        "signup_link_live": settings.SIGNUP_LINK_LIVE,
    }
    return render(request, "clubs/manage.html", context, status=status)


# --- members' steps -----------------------------------------------------------------------------


def _back(request: HttpRequest, club_id: int, *, manage: bool = False) -> HttpResponse:
    name = "clubs:manage" if manage else "clubs:detail"
    return redirect(reverse(name, args=[club_id]))


@require_POST
@login_required
def club_request(request: HttpRequest, pk: int) -> HttpResponse:
    _step(
        request,
        services.request_create,
        _("Richiesta inviata: i consiglieri del circolo decideranno."),
        club_id=pk,
        user=request.user,
    )
    return _back(request, pk)


@require_POST
@login_required
def request_withdraw(request: HttpRequest, pk: int, request_id: int) -> HttpResponse:
    if services.request_withdraw(request_id=request_id, user=request.user):
        messages.success(request, _("Richiesta ritirata."))
    return _back(request, pk)


@require_POST
@login_required
def request_decide(request: HttpRequest, pk: int, request_id: int) -> HttpResponse:
    accept = request.POST.get("decision") == "accept"
    _step(
        request,
        services.request_decide,
        _("Richiesta accettata: è un nuovo socio.") if accept else _("Richiesta rifiutata."),
        request_id=request_id,
        by=request.user,
        accept=accept,
    )
    return _back(request, pk, manage=True)


@require_POST
@login_required
def notice_dismiss(request: HttpRequest, request_id: int) -> HttpResponse:
    services.notice_seen(user=request.user, request_id=request_id)
    return redirect(local_next(request, request.POST.get("next")) or reverse("clubs:list"))


@require_POST
@login_required
def club_leave(request: HttpRequest, pk: int) -> HttpResponse:
    _step(
        request, services.member_leave, _("Sei uscito dal circolo."), club_id=pk, user=request.user
    )
    return _back(request, pk)


def _user_id(request: HttpRequest) -> int | None:
    try:
        return int(request.POST.get("user", ""))
    except ValueError:
        return None


@require_POST
@login_required
def member_action(request: HttpRequest, pk: int, action: str) -> HttpResponse:
    """An officer's step on one member: remove, officer, member, president, mute, unmute."""
    user_id = _user_id(request)
    if user_id is None:
        messages.error(request, _("Socio non valido."))
        return _back(request, pk, manage=True)
    steps = {
        "remove": (services.member_remove, {}, _("Socio tolto dal circolo.")),
        "officer": (services.member_role_set, {"role": Role.OFFICER}, _("Ora è consigliere.")),
        "member": (services.member_role_set, {"role": Role.MEMBER}, _("Ora è socio.")),
        "president": (services.president_hand_on, {}, _("Presidenza passata.")),
        "mute": (services.chat_mute_set, {"muted": True}, _("Zittito nella chat del circolo.")),
        "unmute": (services.chat_mute_set, {"muted": False}, _("Può di nuovo scrivere.")),
    }
    if action not in steps:
        raise Http404("no such action")
    service, extra, done = steps[action]
    _step(request, service, done, club_id=pk, by=request.user, user_id=user_id, **extra)
    return _back(request, pk, manage=True)


@require_POST
@login_required
def club_dissolve(request: HttpRequest, pk: int) -> HttpResponse:
    if _step(request, services.club_dissolve, _("Circolo sciolto."), club_id=pk, by=request.user):
        return redirect("clubs:list")
    return _back(request, pk, manage=True)


# --- invite links -------------------------------------------------------------------------------


@require_POST
@login_required
def invite_create(request: HttpRequest, pk: int) -> HttpResponse:
    club = _club(request, pk)
    mine = selectors.membership_of(club_id=club.pk, user_id=request.user.pk)
    form = InviteForm(request.POST)
    if mine is None or mine.role not in OFFICERS:
        messages.error(request, _("Solo i consiglieri del circolo possono farlo."))
        return _back(request, pk)
    if not form.is_valid():
        return _manage_page(request, club, mine, form, status=400)
    try:
        services.invite_create(
            club_id=pk,
            by=request.user,
            uses=form.cleaned_data["uses"],
            days=form.cleaned_data["days"],
        )
    except ClubError as error:
        form.add_error(None, error.message)
        return _manage_page(request, club, mine, form, status=400)
    messages.success(request, _("Nuovo link d'invito pronto: copialo e distribuiscilo."))
    return redirect(reverse("clubs:manage", args=[pk]) + "#club-invites")


@require_POST
@login_required
def invite_revoke(request: HttpRequest, pk: int, link_id: int) -> HttpResponse:
    _step(
        request,
        services.invite_revoke,
        _("Link revocato."),
        club_id=pk,
        by=request.user,
        link_id=link_id,
    )
    return redirect(reverse("clubs:manage", args=[pk]) + "#club-invites")


def invite(request: HttpRequest, token: str) -> HttpResponse:
    """A club's invite link (RULES 12.4). A visitor signs up through it (the sign-up link it
    is) and is a member at once; a signed-in player joins with one press."""
    link = (
        SignupLink.objects.filter(token=token, purpose=LINK_PURPOSE).first()
        if len(token) <= 43
        else None
    )
    club = Club.objects.filter(pk=link.target_id).first() if link is not None else None
    if link is None or club is None:
        messages.error(request, _("Questo link d'invito non esiste."))
        return redirect("clubs:list")
    if not request.user.is_authenticated:
        # The sign-up page says which club the link joins, or why it no longer does (RULES
        # 12.4); then the club's page, unless it is hidden and the new player not its member.
        signup = reverse("accounts:signup_link", args=[token])
        if club.hidden and link.state() != "open":
            return redirect(signup)
        return redirect(signup + "?" + urlencode({"next": club.get_absolute_url()}))
    if request.method == "POST":
        if _step(
            request,
            services.join_by_link,
            _("Benvenuto nel circolo «%(club)s»!") % {"club": club.name},
            token=token,
            user=request.user,
        ):
            return redirect(club.get_absolute_url())
    context = {
        "club": club,
        "link": link,
        "state": link.state(),
        "mine": selectors.current_membership(user_id=request.user.pk),
    }
    return render(request, "clubs/invite.html", context)
