from __future__ import annotations

import secrets

from django import forms
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth import password_validation
from django.contrib.auth.forms import AuthenticationForm, PasswordResetForm
from django.core.exceptions import NON_FIELD_ERRORS
from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from accounts import selectors, throttle
from accounts.models import USERNAME_MAX, User, username_validators
from mail.mailbox import mailbox_digest

PASSWORD_MAX = 128


class SignupForm(forms.Form):
    username = forms.CharField(
        label=_("Nome utente"),
        max_length=USERNAME_MAX,
        validators=username_validators,
        help_text=_("Da 3 a 20 caratteri: lettere, cifre, «_» e «-»."),
        widget=forms.TextInput(attrs={"autocomplete": "username", "autofocus": True}),
    )
    email = forms.EmailField(
        label=_("E-mail (facoltativa)"),
        required=False,
        max_length=254,
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
        help_text=_(
            "Solo per i promemoria che sceglierai e per recuperare la password: ti mandiamo un "
            "link per confermarla, e la password si recupera solo con un indirizzo confermato."
        ),
    )
    password1 = forms.CharField(
        label=_("Password"),
        max_length=PASSWORD_MAX,
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
        help_text=password_validation.password_validators_help_text_html(),
    )
    password2 = forms.CharField(
        label=_("Ripeti la password"),
        max_length=PASSWORD_MAX,
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )

    def clean_username(self) -> str:
        username = self.cleaned_data["username"]
        if User.objects.filter(username__iexact=username).exists():
            raise forms.ValidationError(_("Questo nome utente è già preso."), code="taken")
        return username

    def clean(self) -> dict:
        cleaned = super().clean()
        p1, p2 = cleaned.get("password1"), cleaned.get("password2")
        if p1 and p2 and p1 != p2:
            self.add_error("password2", _("Le due password non coincidono."))
        elif p1:
            # Every error at once: the password is judged even when the username was refused,
            # against the name as typed (the similarity validator needs one), so a bad name
            # and a common password are both reported on the first submit.
            name = cleaned.get("username") or str(self.data.get("username", ""))[:USERNAME_MAX]
            probe = User(username=name, email=cleaned.get("email", ""))
            try:
                password_validation.validate_password(p1, probe)
            except forms.ValidationError as error:
                self.add_error("password1", error)
        return cleaned


def counted_attempt(username: str, address: str, unavailable: str) -> None:
    """Count a password check of `username` from `address` before it is made (the log-in
    throttle, accounts/throttle.py); a ValidationError when it may not be made now: "throttled"
    with how long to wait, or "unavailable" (`unavailable`, the form's words) without Redis."""
    try:
        wait = throttle.attempt_start(username, address)
    except throttle.ThrottleUnavailable:
        raise forms.ValidationError(unavailable, code="unavailable") from None
    if wait:
        minutes = max(1, (wait + 59) // 60)
        raise forms.ValidationError(
            ngettext(
                "Troppi tentativi falliti: riprova tra %(n)d minuto.",
                "Troppi tentativi falliti: riprova tra %(n)d minuti.",
                minutes,
            )
            % {"n": minutes},
            code="throttled",
        )


class ThrottledLoginMixin:
    """Throttles an AuthenticationForm (accounts/throttle.py) at the one place a password is
    checked: clean() counts the attempt just before authenticate() runs, with the username the
    form has cleaned, and refuses it there when a counter is past its limit."""

    def clean(self) -> dict:
        username = self.cleaned_data.get("username")
        # AuthenticationForm.clean checks a password only when both are given.
        if username is None or not self.cleaned_data.get("password"):
            return super().clean()
        address = throttle.client_address(self.request)
        counted_attempt(
            username,
            address,
            _("Accesso momentaneamente non disponibile: riprova tra qualche minuto."),
        )
        try:
            return super().clean()
        finally:
            # The password was right, even if this account may not log in here (the admin's
            # form refuses non-staff after authenticating).
            if self.user_cache is not None:
                throttle.attempt_succeeded(username, address)

    def refusal_status(self) -> int:
        """The HTTP status of the re-rendered form: 429 when the throttle refused, 503 when it
        could not count."""
        if self.has_error(NON_FIELD_ERRORS, "unavailable"):
            return 503
        return 429 if self.has_error(NON_FIELD_ERRORS, "throttled") else 200


class LoginForm(ThrottledLoginMixin, AuthenticationForm):
    """Django's log-in form with our wording, throttled."""

    error_messages = {
        "invalid_login": _("Nome utente o password errati."),
        "inactive": _("Questo account è disattivato."),
    }


class PlayerSearchForm(forms.Form):
    q = forms.CharField(label=_("Cerca"), required=False, max_length=USERNAME_MAX)


class AdminLoginForm(ThrottledLoginMixin, AdminAuthenticationForm):
    """The admin's log-in form (staff only), throttled with the same counters as the site's:
    with Django's own form /admin/login/ takes any number of wrong passwords, and staff accounts
    are the ones worth guessing (accounts/admin_site.py)."""


class ResetRequestForm(PasswordResetForm):
    """Django's "forgot password" form; its mail goes through the outbox (mail/), sent by the
    worker after the request, never inside it. Deleted and deactivated accounts, and those with
    no usable password, get nothing (Django's own rule), nor does an address not verified
    (RULES 10.2); the page says the same either way."""

    email = forms.EmailField(
        label=_("E-mail"),
        max_length=254,
        widget=forms.EmailInput(attrs={"autocomplete": "email", "autofocus": True}),
    )

    def get_users(self, email: str):
        """The one account that verified the mailbox `email` reaches (RULES 10.1, 10.2): found
        by the mailbox's key, the same one every counter of it uses, so no spelling of an
        address reaches another account or a fresh counter; at most one, as a verified mailbox
        is one account's."""
        found = User.objects.filter(
            email_key=mailbox_digest(email),
            email_verified_at__isnull=False,
            is_active=True,
            deleted_at=None,
        ).exclude(email_key="")
        return (user for user in found if user.has_usable_password())

    def send_mail(self, subject_template_name, email_template_name, context, *args, **kwargs):
        from accounts import emails

        user = context["user"]
        path = reverse(
            "accounts:password_reset_confirm",
            kwargs={"uidb64": context["uid"], "token": context["token"]},
        )
        # Each request is its own mail: the counters of ResetView bound the requests, the
        # outbox's count of the mailbox the mails (RULES 10.3).
        emails.reset_mail_queue(user, reset_path=path, request_key=secrets.token_hex(8))


class PasswordConfirmMixin:
    """A form that asks the signed-in player's password again before a change that matters
    (the address that recovers the account, the account itself), counted by the log-in
    throttle: a borrowed session cannot try passwords here either."""

    def __init__(self, user: User, address: str, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.user = user
        self.address = address

    def clean_password(self) -> str:
        password = self.cleaned_data["password"]
        counted_attempt(
            self.user.username,
            self.address,
            _("Non possiamo controllare la password ora: riprova tra qualche minuto."),
        )
        if not self.user.check_password(password):
            raise forms.ValidationError(_("Password errata."), code="wrong_password")
        throttle.attempt_succeeded(self.user.username, self.address)
        return password


class EmailChangeForm(PasswordConfirmMixin, forms.Form):
    email = forms.EmailField(
        label=_("Nuovo indirizzo"),
        max_length=254,
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )
    password = forms.CharField(
        label=_("La tua password"),
        max_length=PASSWORD_MAX,
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
        help_text=_("Per essere sicuri che sei tu: l'indirizzo serve a recuperare la password."),
    )

    def clean_email(self) -> str:
        email = self.cleaned_data["email"]
        # RULES 10.1: a mailbox is verified by one account.
        if selectors.mailbox_taken(email=email, by_other_than=self.user):
            raise forms.ValidationError(
                _("Questo indirizzo è già confermato da un altro account."), code="taken"
            )
        return email


class LanguageForm(forms.ModelForm):
    class Meta:
        model = User
        fields = ["language"]
        labels = {"language": _("Lingua del sito e delle mail")}


class TextModeForm(forms.ModelForm):
    class Meta:
        model = User
        fields = ["text_mode"]
        labels = {
            "text_mode": _("Modalità testo nelle partite: la posizione scritta e le mosse digitate")
        }
        help_texts = {
            "text_mode": _(
                "Per giocare senza vedere la scacchiera, con un lettore di schermo o una barra "
                "Braille."
            ),
        }


class RemindersForm(forms.ModelForm):
    class Meta:
        model = User
        fields = ["remind_by_email", "remind_minutes", "remind_on_site", "remind_in_browser"]
        labels = {
            "remind_by_email": _(
                "Una mail prima dell'inizio dei tornei e delle arene a cui sono iscritto"
            ),
            "remind_minutes": _("Quanto prima"),
            "remind_on_site": _("Un avviso sulle pagine del sito"),
            "remind_in_browser": _(
                "Una notifica del browser (promemoria e partite che si aprono) mentre una "
                "scheda del sito è aperta"
            ),
        }
        help_texts = {
            "remind_by_email": _(
                "Solo a un indirizzo confermato, e solo se eri già iscritto in quel momento."
            ),
        }


class DeleteAccountForm(PasswordConfirmMixin, forms.Form):
    """Its fields' ids are its own (`id_delete_password`): on the account page beside the address
    form's `password`, one id for both made this form's label name the other's field."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("auto_id", "id_delete_%s")
        super().__init__(*args, **kwargs)

    password = forms.CharField(
        label=_("La tua password"),
        max_length=PASSWORD_MAX,
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )
    confirm = forms.BooleanField(
        label=_("Ho capito: il mio account sarà cancellato per sempre."), required=True
    )
