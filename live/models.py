"""Who has which page open (presence), one row per open socket.

A socket that shows something a player's presence matters for (a game they play, an arena they
are in) records a `Connection` under a *topic* (`game:12`, `arena:3`). The process serving the
socket refreshes `seen_ms` of all its rows with one heartbeat query every few seconds
(`live.presence.ProcessConnections`); a row that stops being refreshed belongs to a process
that died without saying goodbye, and is swept (games under their row lock, the rest by
`live.presence.sweep`). Readers count only rows seen within `PRESENCE_STALE_SECONDS`.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class Connection(models.Model):
    key = models.CharField(max_length=200, unique=True)  # the consumer's channel name
    topic = models.CharField(max_length=64)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    seen_ms = models.BigIntegerField(db_index=True)

    class Meta:
        verbose_name = _("connessione")
        verbose_name_plural = _("connessioni")
        indexes = [models.Index(fields=["topic", "user"], name="live_connection_topic_user")]

    def __str__(self) -> str:
        return f"{self.topic} {self.user_id} {self.key}"
