"""The chat's rows (RULES §9): what was said in a room, who muted whom, what was
reported, who may not write until when, and which event rooms their organizer closed.

A room is named by a short key (`chat.rooms.Room.key`): `game:<id>:players`,
`game:<id>:spectators`, `tournament:<id>`, `arena:<id>`. Nothing here points at a game or an
event by a foreign key: the rooms are kept with their game or event for good (a finished
event's chat is read on its page), and the chat app stays above every other app (a room's key
is enough to find its game or event through `events.kinds`).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

# RULES 9.2: a line of chat is at most this long (lichess: 140; the club writes Italian).
TEXT_MAX = 200


class Message(models.Model):
    room = models.CharField(_("stanza"), max_length=40)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("autore"),
        on_delete=models.CASCADE,
        related_name="chat_messages",
    )
    text = models.CharField(_("testo"), max_length=TEXT_MAX)
    created_at = models.DateTimeField(_("scritto il"), auto_now_add=True)
    removed = models.BooleanField(_("tolto dallo staff"), default=False)

    class Meta:
        verbose_name = _("messaggio di chat")
        verbose_name_plural = _("messaggi di chat")
        # A room's latest lines, read at every connect.
        indexes = [models.Index(fields=["room", "-id"], name="chat_room_latest")]

    def __str__(self) -> str:
        return f"{self.author}: {self.text[:40]}"


class Mute(models.Model):
    """`user` no longer sees what `muted` writes, in any room (RULES 9.5)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("giocatore"),
        on_delete=models.CASCADE,
        related_name="chat_mutes",
    )
    muted = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("zittito"),
        on_delete=models.CASCADE,
        related_name="+",
    )
    created_at = models.DateTimeField(_("dal"), auto_now_add=True)

    class Meta:
        verbose_name = _("giocatore zittito")
        verbose_name_plural = _("giocatori zittiti")
        constraints = [
            models.UniqueConstraint(fields=["user", "muted"], name="chat_mute_once"),
            models.CheckConstraint(condition=~Q(user=models.F("muted")), name="chat_mute_other"),
        ]

    def __str__(self) -> str:
        return f"{self.user} → {self.muted}"


class Report(models.Model):
    """A player tells the staff about a line (RULES 9.6); once per line and player."""

    message = models.ForeignKey(
        Message, verbose_name=_("messaggio"), on_delete=models.CASCADE, related_name="reports"
    )
    reporter = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("segnalato da"),
        on_delete=models.CASCADE,
        related_name="+",
    )
    created_at = models.DateTimeField(_("segnalato il"), auto_now_add=True)
    handled = models.BooleanField(_("esaminata"), default=False)

    class Meta:
        verbose_name = _("segnalazione")
        verbose_name_plural = _("segnalazioni")
        constraints = [
            models.UniqueConstraint(fields=["message", "reporter"], name="chat_report_once")
        ]

    def __str__(self) -> str:
        return f"{self.reporter} → #{self.message_id}"


class Silence(models.Model):
    """The staff's word: `user` may not write in any chat until `until` (RULES 9.6)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("giocatore"),
        on_delete=models.CASCADE,
        related_name="chat_silences",
    )
    until = models.DateTimeField(_("fino al"))
    reason = models.CharField(_("motivo"), max_length=200, blank=True)
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("deciso da"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    created_at = models.DateTimeField(_("deciso il"), auto_now_add=True)

    class Meta:
        verbose_name = _("silenzio")
        verbose_name_plural = _("silenzi")

    def __str__(self) -> str:
        return f"{self.user} → {self.until:%Y-%m-%d %H:%M}"


class ClosedRoom(models.Model):
    """An event's room its organizer (or the staff) closed (RULES 9.4): nothing more is
    written, and its lines are not shown while it stays closed."""

    room = models.CharField(_("stanza"), max_length=40, unique=True)
    closed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("chiusa da"),
        on_delete=models.SET_NULL,
        null=True,
        related_name="+",
    )
    closed_at = models.DateTimeField(_("chiusa il"), auto_now_add=True)

    class Meta:
        verbose_name = _("chat chiusa")
        verbose_name_plural = _("chat chiuse")

    def __str__(self) -> str:
        return self.room
