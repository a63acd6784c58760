from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse_lazy
from django.utils.translation import gettext as _

from accounts import selectors, services, throttle
from accounts.forms import LoginForm, PlayerSearchForm, SignupForm
from accounts.redirects import local_next

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


def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("home")
    form = SignupForm(request.POST or None)
    status = 200
    if request.method == "POST" and form.is_valid():
        refused = _signup_refused(request)
        if refused is not None:
            message, status = refused
            form.add_error(None, message)
        else:
            try:
                user = services.user_create(
                    username=form.cleaned_data["username"],
                    email=form.cleaned_data["email"],
                    password=form.cleaned_data["password1"],
                )
            except ValidationError as error:
                for field, errors in error.message_dict.items():
                    for message in errors:
                        form.add_error(field, message)
            else:
                login(request, user, backend="django.contrib.auth.backends.ModelBackend")
                messages.success(request, _("Benvenuto, %(name)s!") % {"name": user.username})
                return redirect(_safe_next(request) or "home")
    return render(
        request, "accounts/signup.html", {"form": form, "next": _safe_next(request)}, status=status
    )


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
