from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login, logout
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse, reverse_lazy
from django.utils import translation
from django.utils.translation import gettext as _
from django.views import i18n as i18n_views
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from accounts import archive, emails, personal, selectors, services, signup_links, throttle
from accounts.forms import (
    DeleteAccountForm,
    EmailChangeForm,
    LanguageForm,
    LoginForm,
    PlayerSearchForm,
    RemindersForm,
    ResetRequestForm,
    SignupForm,
    TextModeForm,
)
from accounts.models import User
from accounts.redirects import local_next
from live import locks

PLAYERS_PER_PAGE = 50


def _safe_next(request: HttpRequest) -> str | None:
    return local_next(request, request.POST.get("next") or request.GET.get("next"))


def _signup_refused(request: HttpRequest) -> tuple[str, int] | None:
    """Why a valid sign-up may not create its account now, and the status to answer with
    (accounts/throttle.py: counted per address and over the site, failing closed)."""
    try:
        wait = throttle.signup_attempt(throttle.client_address(request))
    except throttle.ThrottleUnavailable:
        return _("Iscrizione non disponibile in questo momento: riprova tra poco."), 503
    if wait:
        return (
            _("Troppe iscrizioni da questa rete: riprova tra %(minutes)d minuti.")
            % {"minutes": max(1, -(-wait // 60))},
            429,
        )
    return None


def signup(request: HttpRequest, token: str = "") -> HttpResponse:
    """The sign-up form, alone or through a sign-up link (RULES 10.6): through an open link the
    account is counted on the link, not on the network address; a link that is closed says why
    on the form, and the address's usual limits apply."""
    if request.user.is_authenticated:
        return redirect("home")
    link = selectors.signup_link_get(token=token) if token else None
    link_state = (link.state() if link else "unknown") if token else ""
    form = SignupForm(request.POST or None)
    status = 200
    if request.method == "POST" and form.is_valid():
        user = None
        if link_state == "open":
            try:
                user = _signup_create(form, link)
            except services.SignupLinkClosed:
                link.refresh_from_db()
                link_state = link.state()
        if user is None and not form.errors and _closed_since_seen(request, link, link_state):
            # RULES 10.6: the link closed while its form was filled in; what it would have
            # joined (a club) is not dropped silently: the page now says what changes, and
            # sending again signs up without it.
            form.add_error(
                None,
                _(
                    "Il link si è chiuso mentre compilavi il modulo: l'account non è stato "
                    "creato. Leggi qui sopra cosa cambia e invia di nuovo per iscriverti lo "
                    "stesso."
                ),
            )
        if user is None and not form.errors:
            refused = _signup_refused(request)
            if refused is not None:
                message, status = refused
                form.add_error(None, message)
            else:
                user = _signup_create(form, None)
        if user is not None:
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            messages.success(request, _("Benvenuto, %(name)s!") % {"name": user.username})
            return redirect(_safe_next(request) or "home")
    context = {
        "form": form,
        "next": _safe_next(request),
        "link": link,
        "link_state": link_state,
        # What the link joins besides the account (a club, RULES 12.4), in its feature's words.
        "link_said": signup_links.described(link=link, state=link_state) if link else "",
    }
    return render(request, "accounts/signup.html", context, status=status)


def _closed_since_seen(request: HttpRequest, link, link_state: str) -> bool:
    """A link with a purpose (a club's invite) open on the page the form was sent from
    (`link_seen`), closed now: the sender expected to join something they would not."""
    return (
        link is not None
        and bool(link.purpose)
        and request.POST.get("link_seen") == "open"
        and link_state != "open"
    )


def _signup_create(form: SignupForm, link) -> User | None:
    """The account, or None with the reasons on the form."""
    try:
        return services.user_create(
            username=form.cleaned_data["username"],
            email=form.cleaned_data["email"],
            password=form.cleaned_data["password1"],
            link=link,
        )
    except ValidationError as error:
        for field, errors in error.message_dict.items():
            for message in errors:
                form.add_error(field, message)
    return None


class LoginView(auth_views.LoginView):
    """Django's log-in, throttled by its form (accounts/forms.py, accounts/throttle.py): too
    many failures for a username or from an address refuse further attempts for a while, with a
    message saying how long."""

    template_name = "accounts/login.html"
    authentication_form = LoginForm
    redirect_authenticated_user = True

    def get_redirect_url(self) -> str:
        # The same rule as every other `next` of the site (accounts/redirects.py): Django's own
        # check lets a newline through to the Location header (500).
        return _safe_next(self.request) or ""

    def form_invalid(self, form: LoginForm) -> HttpResponse:
        response = super().form_invalid(form)
        response.status_code = form.refusal_status()
        return response

    def form_valid(self, form: LoginForm) -> HttpResponse:
        # The site in the player's own language from the first page after log-in.
        response = super().form_valid(form)
        _remember_language(response, form.get_user().language)
        return response


class PasswordChangeView(auth_views.PasswordChangeView):
    template_name = "accounts/password_change.html"
    success_url = reverse_lazy("home")

    def form_valid(self, form):
        response = super().form_valid(form)
        messages.success(self.request, _("Password cambiata."))
        return response


def player_list(request: HttpRequest) -> HttpResponse:
    form = PlayerSearchForm(request.GET or None)
    query = form.cleaned_data["q"].strip() if form.is_valid() else ""
    online_only = request.GET.get("online") == "1"
    page = Paginator(
        selectors.player_list(query=query, online_only=online_only), PLAYERS_PER_PAGE
    ).get_page(request.GET.get("page"))
    context = {
        "form": form,
        "page": page,
        "query": query,
        "online_only": online_only,
        "online": selectors.online_ids(p.pk for p in page.object_list),
    }
    if request.htmx:
        return render(request, "accounts/player_list.html#results", context)
    return render(request, "accounts/player_list.html", context)


def player_detail(request: HttpRequest, username: str) -> HttpResponse:
    player = selectors.player_get(username=username)
    context = {"player": player, "online": bool(selectors.online_ids([player.pk]))}
    return render(request, "accounts/player_detail.html", context)


# --- password reset (Django's views, our outbox and throttle) ----------------------------------


class ResetView(auth_views.PasswordResetView):
    """ "Password dimenticata?": the same answer whether or not the address belongs to anyone
    (a form that said so would tell a stranger who plays here). Counted per client address
    (refused with a message) and per e-mail address (over the limit nothing more is sent, and
    the page says the same as ever: the mailbox's owner is not flooded)."""

    template_name = "accounts/password_reset.html"
    form_class = ResetRequestForm
    success_url = reverse_lazy("accounts:password_reset_done")

    def form_valid(self, form: ResetRequestForm) -> HttpResponse:
        try:
            wait, by_address = throttle.reset_attempt(
                throttle.client_address(self.request), form.cleaned_data["email"]
            )
        except throttle.ThrottleUnavailable:
            form.add_error(None, _("Recupero non disponibile in questo momento: riprova tra poco."))
            return self.render_to_response(self.get_context_data(form=form), status=503)
        if wait and by_address:
            minutes = max(1, -(-wait // 60))
            form.add_error(
                None,
                _("Troppe richieste da questa rete: riprova tra %(minutes)d minuti.")
                % {"minutes": minutes},
            )
            return self.render_to_response(self.get_context_data(form=form), status=429)
        if wait:
            return redirect(self.success_url)
        return super().form_valid(form)


class ResetDoneView(auth_views.PasswordResetDoneView):
    template_name = "accounts/password_reset_done.html"


class ResetConfirmView(auth_views.PasswordResetConfirmView):
    """The link of the mail: choose a new password, then signed in. Django's token is one-time
    (it hashes the password and the last log-in, which the reset changes) and lasts
    PASSWORD_RESET_TIMEOUT; a used or expired link says so and offers a new one. Only a
    verified address gets one (RULES 10.2)."""

    template_name = "accounts/password_reset_confirm.html"
    post_reset_login = True
    post_reset_login_backend = "django.contrib.auth.backends.ModelBackend"
    success_url = reverse_lazy("home")

    def form_valid(self, form):
        response = super().form_valid(form)
        messages.success(self.request, _("Password cambiata: ora sei dentro."))
        return response


# --- the address's check and the one-click unsubscribe ------------------------------------------


def email_verify(request: HttpRequest, token: str) -> HttpResponse:
    try:
        user = services.email_verify(token=token)
    except emails.BadLink as error:
        return render(
            request,
            "accounts/email_verify.html",
            {"ok": False, "expired": error.expired},
            status=400,
        )
    except emails.MailboxTaken:
        return render(
            request, "accounts/email_verify.html", {"ok": False, "taken": True}, status=409
        )
    return render(request, "accounts/email_verify.html", {"ok": True, "verified": user})


@csrf_exempt  # RFC 8058: the mail client POSTs "List-Unsubscribe=One-Click", with no cookie
def unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    """GET asks (a link opened by a mail scanner must not unsubscribe anyone); POST, from the
    page's button or the mail client's own, stops reminder mails. The signed token is the
    only credential."""
    try:
        user_id = emails.unsubscribe_token_read(token)
    except emails.BadLink:
        return render(request, "accounts/unsubscribe.html", {"bad": True}, status=400)
    if request.method == "POST":
        try:
            services.reminders_stop(token=token)
        except emails.BadLink:
            return render(request, "accounts/unsubscribe.html", {"bad": True}, status=400)
        return render(request, "accounts/unsubscribe.html", {"done": True})
    if not User.objects.filter(pk=user_id, deleted_at=None).exists():
        return render(request, "accounts/unsubscribe.html", {"bad": True}, status=400)
    return render(request, "accounts/unsubscribe.html", {"token": token})


# --- the player's account page ----------------------------------------------------------------


def _account_page(request: HttpRequest, status: int = 200, **forms) -> HttpResponse:
    user = request.user
    address = throttle.client_address(request)
    context = {
        "email_form": forms.get("email_form") or EmailChangeForm(user, address),
        "language_form": forms.get("language_form") or LanguageForm(instance=user),
        "reminders_form": forms.get("reminders_form") or RemindersForm(instance=user),
        "text_mode_form": forms.get("text_mode_form") or TextModeForm(instance=user),
        "delete_form": forms.get("delete_form") or DeleteAccountForm(user, address),
        "delete_blockers": forms.get("delete_blockers") or personal.blockers(user),
        "last_failed": selectors.last_failed_mail(user),
        "mailbox_taken": bool(user.email)
        and not user.email_verified
        and selectors.mailbox_taken(email=user.email, by_other_than=user),
        "signup_links": selectors.signup_links_of(maker=user),
        "signup_link_error": forms.get("signup_link_error"),
        "signup_link_uses": settings.SIGNUP_LINK_USES,
        "signup_link_days": settings.SIGNUP_LINK_DAYS,
        "archive_refused": forms.get("archive_refused"),
        **_archive_context(user),
    }
    return render(request, "accounts/account.html", context, status=status)


@login_required
def account(request: HttpRequest) -> HttpResponse:
    return _account_page(request)


@login_required
@require_POST
def account_email(request: HttpRequest) -> HttpResponse:
    user = request.user
    if "resend" in request.POST:
        if user.email and user.email_verified_at is None:
            if selectors.mailbox_taken(email=user.email, by_other_than=user):
                messages.error(request, _("Questo indirizzo è già confermato da un altro account."))
                return redirect("accounts:account")
            with locks.atomic():
                queued = emails.verify_mail_queue(user)
            messages.success(
                request,
                _("Ti abbiamo mandato di nuovo il link a %(email)s.") % {"email": user.email}
                if queued
                else _(
                    "Il link è già partito: controlla la posta (anche lo spam). Ne mandiamo "
                    "pochi al giorno a ogni indirizzo."
                ),
            )
        return redirect("accounts:account")
    form = EmailChangeForm(user, throttle.client_address(request), request.POST)
    if not form.is_valid():
        return _account_page(request, status=_refusal_status(form), email_form=form)
    if services.email_change(user=user, email=form.cleaned_data["email"]):
        messages.success(
            request,
            _(
                "Indirizzo cambiato: apri il link che ti abbiamo mandato a %(email)s per confermarlo."
            )
            % {"email": user.email},
        )
    return redirect("accounts:account")


@login_required
@require_POST
def account_signup_link(request: HttpRequest) -> HttpResponse:
    """A new sign-up link to hand out (RULES 10.6)."""
    try:
        services.signup_link_create(maker=request.user)
    except ValidationError as error:
        return _account_page(request, status=400, signup_link_error=" ".join(error.messages))
    messages.success(request, _("Nuovo link di iscrizione pronto: copialo e distribuiscilo."))
    return redirect(reverse("accounts:account") + "#account-signup-links")


@login_required
@require_POST
def account_signup_link_revoke(request: HttpRequest, link_id: int) -> HttpResponse:
    if services.signup_link_revoke(maker=request.user, link_id=link_id):
        messages.success(request, _("Link revocato: non serve più a iscriversi."))
    return redirect(reverse("accounts:account") + "#account-signup-links")


@login_required
@require_POST
def account_language(request: HttpRequest) -> HttpResponse:
    form = LanguageForm(request.POST, instance=request.user)
    if not form.is_valid():
        return _account_page(request, status=400, language_form=form)
    form.save()
    translation.activate(form.instance.language)
    messages.success(request, _("Lingua salvata."))
    response = redirect("accounts:account")
    _remember_language(response, form.instance.language)
    return response


@login_required
@require_POST
def account_reminders(request: HttpRequest) -> HttpResponse:
    form = RemindersForm(request.POST, instance=request.user)
    if not form.is_valid():
        return _account_page(request, status=400, reminders_form=form)
    form.save()
    messages.success(request, _("Promemoria salvati."))
    return redirect("accounts:account")


@login_required
@require_POST
def account_text_mode(request: HttpRequest) -> HttpResponse:
    """The text mode's switch: from the account page's form, or from the game page's switch
    (a fetch, answered 204 with no page)."""
    form = TextModeForm(request.POST, instance=request.user)
    quiet = request.headers.get("X-Requested-With") == "fetch"
    if not form.is_valid():
        if quiet:
            return HttpResponse(status=400)
        return _account_page(request, status=400, text_mode_form=form)
    form.save()
    if quiet:
        return HttpResponse(status=204)
    messages.success(request, _("Preferenza salvata."))
    return redirect("accounts:account")


def _archive_context(user: User) -> dict:
    return {"archive": archive.archive_current(user), "archive_daily": settings.DATA_ARCHIVE_DAILY}


@login_required
def account_data(request: HttpRequest) -> HttpResponse:
    """ "Scarica i miei dati" (GDPR, art. 15 and 20; RULES 10.7): a POST asks for an archive,
    which the worker builds (accounts/archive.py); a GET from htmx is the page's data section,
    re-fetched while it is being built. From htmx (the page's form) the answer is that section
    alone, a refusal too (409, 429: static/js/account.js swaps it); without, the whole page."""
    if request.method == "POST":
        try:
            archive.archive_request(user=request.user)
        except archive.ArchiveRefused as refused:
            status = 429 if refused.code == "throttled" else 409
            if request.htmx:
                context = {**_archive_context(request.user), "archive_refused": refused.message}
                return render(request, "accounts/account.html#data-archive", context, status=status)
            return _account_page(request, status=status, archive_refused=refused.message)
        if request.htmx:  # the section says it is being prepared
            return render(
                request, "accounts/account.html#data-archive", _archive_context(request.user)
            )
        messages.success(
            request,
            _("Stiamo preparando i tuoi dati: ti avvisiamo qui e per e-mail quando sono pronti."),
        )
        return redirect(reverse("accounts:account") + "#account-data")
    if request.htmx:
        return render(request, "accounts/account.html#data-archive", _archive_context(request.user))
    return redirect(reverse("accounts:account") + "#account-data")


@login_required
def account_data_download(request: HttpRequest, pk: int) -> HttpResponse:
    """The player's own ready archive, streamed from its file; 404 for anyone else's."""
    found = archive.archive_for_download(user=request.user, pk=pk)
    if found is None:
        raise Http404
    ready, path = found
    return FileResponse(
        path.open("rb"),
        as_attachment=True,
        filename=ready.file_name,
        content_type="application/zip",
    )


@login_required
@require_POST
def account_delete(request: HttpRequest) -> HttpResponse:
    user = request.user
    form = DeleteAccountForm(user, throttle.client_address(request), request.POST)
    if not form.is_valid():
        return _account_page(request, status=_refusal_status(form), delete_form=form)
    try:
        services.user_delete(user_id=user.pk)
    except ValidationError as error:
        for message in error.messages:
            form.add_error(None, message)
        return _account_page(request, status=409, delete_form=form, delete_blockers=error.messages)
    logout(request)
    messages.success(
        request, _("Il tuo account è stato cancellato. Grazie di aver giocato con noi.")
    )
    return redirect("home")


def _refusal_status(form) -> int:
    for code, status in (("unavailable", 503), ("throttled", 429)):
        if form.has_error("password", code):
            return status
    return 400


def _remember_language(response: HttpResponse, language: str) -> None:
    response.set_cookie(
        settings.LANGUAGE_COOKIE_NAME,
        language,
        max_age=settings.LANGUAGE_COOKIE_AGE,
        path=settings.LANGUAGE_COOKIE_PATH,
        samesite=settings.LANGUAGE_COOKIE_SAMESITE,
        secure=settings.LANGUAGE_COOKIE_SECURE,
        httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
    )


def set_language(request: HttpRequest) -> HttpResponse:
    """Django's language switch; a signed-in player's choice is also kept on the account, so
    their mails are in it and a log-in elsewhere finds it."""
    response = i18n_views.set_language(request)
    language = request.POST.get("language")
    if (
        request.method == "POST"
        and request.user.is_authenticated
        and language in dict(settings.LANGUAGES)
        and request.user.language != language
    ):
        User.objects.filter(pk=request.user.pk).update(language=language)
    return response
