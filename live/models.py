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
    # The consumer's channel name. Unique by a constraint rather than `unique=True`, which on
    # PostgreSQL adds a second, LIKE-pattern index nothing here uses.
    key = models.CharField(max_length=200)
    topic = models.CharField(max_length=64)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    # Not indexed: every process rewrites it for all its sockets every few seconds (about one
    # row per move at a thousand games, bench/live.py), and an indexed column makes each of
    # those updates a new entry in every index of the table, where otherwise PostgreSQL
    # rewrites the row in place on its page (a HOT update: 42 -> 7 us of PostgreSQL's CPU per
    # row, with the table's pages kept half empty for it, live 0002). Readers find rows by
    # topic (and user), then look at `seen_ms`; the sweep reads the whole small table.
    seen_ms = models.BigIntegerField()

    class Meta:
        verbose_name = _("connessione")
        verbose_name_plural = _("connessioni")
        indexes = [models.Index(fields=["topic", "user"], name="live_connection_topic_user")]
        constraints = [models.UniqueConstraint(fields=["key"], name="live_connection_key")]

    def __str__(self) -> str:
        return f"{self.topic} {self.user_id} {self.key}"
