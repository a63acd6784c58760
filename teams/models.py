"""Team matches between clubs (RULES §16): a concrete `events.models.Event` of N boards between
two clubs, each club's line-up, the members who said they are available, and the boards of the
match once it started, with their one or two games and their board points."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import models
from django.db.models import DateTimeField, DurationField, ExpressionWrapper, F, Func, Q
from django.utils.translation import gettext_lazy as _

from events.models import Event
from games.rules.timecontrol import ESTIMATED_MOVES
from teams import rules

# RULES 16.2 Decision: the line-ups are final this long before the start.
LINEUP_DEADLINE = timedelta(minutes=15)
# RULES 16.1 Decision: how far ahead a match may start.
START_MIN = timedelta(hours=1)
START_MAX = timedelta(days=30)


def expected_end(prefix: str = "") -> ExpressionWrapper:
    """`TeamMatch.calendar_end` in SQL (RULES 16.6: the start plus twice the time control's
    estimated duration per game of a board), so that a window query filters on it in the
    database: `prefix` reaches the match through a relation ("lineup__match__")."""
    seconds = (
        2
        * F(prefix + "legs")
        * (F(prefix + "base_seconds") + ESTIMATED_MOVES * F(prefix + "increment_seconds"))
    )
    duration = Func(
        seconds, template="make_interval(secs => %(expressions)s)", output_field=DurationField()
    )
    return ExpressionWrapper(F(prefix + "starts_at") + duration, output_field=DateTimeField())


class TeamMatch(Event):
    back_label = _("Torna all'incontro")

    first_club = models.ForeignKey(
        "clubs.Club",
        on_delete=models.PROTECT,
        related_name="team_matches_first",
        verbose_name=_("primo circolo"),
    )
    second_club = models.ForeignKey(
        "clubs.Club",
        on_delete=models.PROTECT,
        related_name="team_matches_second",
        verbose_name=_("secondo circolo"),
    )
    boards = models.PositiveSmallIntegerField(_("scacchiere"), default=4)
    legs = models.PositiveSmallIntegerField(_("partite per scacchiera"), default=1)  # RULES 16.1
    started_at = models.DateTimeField(_("iniziato il"), null=True, blank=True)
    # RULES 16.3: one opening for the whole match, drawn at the start.
    opening_number = models.PositiveSmallIntegerField(
        _("apertura (tabella)"), null=True, blank=True
    )
    opening_moves = models.JSONField(_("mosse d'apertura"), default=list, blank=True)
    start_fen = models.CharField(_("posizione iniziale"), max_length=120, blank=True)
    # RULES 16.5: the running score, kept as the boards are scored.
    first_points = models.PositiveSmallIntegerField(_("punti scacchiera, primo"), default=0)
    second_points = models.PositiveSmallIntegerField(_("punti scacchiera, secondo"), default=0)
    first_match_points = models.PositiveSmallIntegerField(
        _("punti squadra, primo"), null=True, blank=True
    )
    second_match_points = models.PositiveSmallIntegerField(
        _("punti squadra, secondo"), null=True, blank=True
    )
    # STYLE 4: grows with every change pushed to the match's page (teams.broadcast).
    version = models.PositiveIntegerField(_("versione"), default=0)
    # RULES 11.4: the clubs' officers were told the line-ups closed (teams.notices), set in the
    # transaction that writes their notices: told once, whatever the tick does.
    lineups_closed_told_at = models.DateTimeField(
        _("chiusura delle formazioni comunicata il"), null=True, blank=True
    )

    class Meta:
        verbose_name = _("incontro a squadre")
        verbose_name_plural = _("incontri a squadre")
        ordering = ["starts_at", "id"]
        indexes = [models.Index(fields=["status", "starts_at"], name="teams_status_start")]
        constraints = [
            models.CheckConstraint(
                condition=Q(boards__gte=rules.BOARDS_MIN, boards__lte=rules.BOARDS_MAX),
                name="teams_boards_range",
            ),
            models.CheckConstraint(condition=Q(legs__in=[1, 2]), name="teams_legs"),
            models.CheckConstraint(
                condition=~Q(first_club=models.F("second_club")), name="teams_two_clubs"
            ),
            models.CheckConstraint(condition=Q(floor__isnull=True), name="teams_no_floor"),
        ]

    def get_absolute_url(self) -> str:
        from django.urls import reverse

        return reverse("teams:detail", args=[self.pk])

    @property
    def lineup_deadline(self):
        return self.starts_at - LINEUP_DEADLINE

    def expected_duration(self) -> timedelta:
        """RULES 16.6: twice the time control's estimated duration, per game of a board."""
        return timedelta(seconds=2 * self.time_control.estimated_seconds * self.legs)

    def calendar_end(self):
        return self.starts_at + self.expected_duration()

    def club_ids(self) -> tuple[int, int]:
        return (self.first_club_id, self.second_club_id)

    def side_of(self, club_id: int) -> int:
        """1 for the first-named club, 2 for the second."""
        return 1 if club_id == self.first_club_id else 2

    def winner_names(self) -> list[str]:
        if self.first_match_points is None:
            return []
        if self.first_match_points == self.second_match_points:
            return sorted([self.first_club.name, self.second_club.name], key=str.lower)
        winner = self.first_club if self.first_match_points > self.second_match_points else None
        return [(winner or self.second_club).name]

    def game_caption(self, game) -> str:
        board = self.board_rows.filter(Q(game1=game) | Q(game2=game)).first()
        if board is None:
            return ""
        return _("scacchiera %(board)d") % {"board": board.number}


class Lineup(models.Model):
    """A club's line-up for a match (RULES 16.2): the last one saved by one of its officers.
    Its players, in order, are `entries` (boards first, then reserves)."""

    match = models.ForeignKey(
        TeamMatch, on_delete=models.CASCADE, related_name="lineups", verbose_name=_("incontro")
    )
    club = models.ForeignKey(
        "clubs.Club", on_delete=models.PROTECT, related_name="+", verbose_name=_("circolo")
    )
    saved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("salvata da"),
    )
    saved_at = models.DateTimeField(_("salvata il"))

    class Meta:
        verbose_name = _("formazione")
        verbose_name_plural = _("formazioni")
        constraints = [
            models.UniqueConstraint(fields=["match", "club"], name="teams_one_lineup_per_club")
        ]

    def __str__(self) -> str:
        return f"{self.match_id}/{self.club_id}"


class LineupEntry(models.Model):
    lineup = models.ForeignKey(
        Lineup, on_delete=models.CASCADE, related_name="entries", verbose_name=_("formazione")
    )
    place = models.PositiveSmallIntegerField(_("posto"))  # 1..N boards, then the reserves
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="team_lineup_entries",
        verbose_name=_("giocatore"),
    )
    rating = models.PositiveSmallIntegerField(_("punteggio al salvataggio"))

    class Meta:
        verbose_name = _("giocatore in formazione")
        verbose_name_plural = _("giocatori in formazione")
        ordering = ["lineup", "place"]
        constraints = [
            models.UniqueConstraint(fields=["lineup", "place"], name="teams_entry_place"),
            # RULES 16.2: each player once.
            models.UniqueConstraint(fields=["lineup", "player"], name="teams_entry_once"),
        ]

    def __str__(self) -> str:
        return f"{self.place}: {self.player_id}"


class Availability(models.Model):
    """A member said they are available for a match of their club (RULES 16.2)."""

    match = models.ForeignKey(
        TeamMatch,
        on_delete=models.CASCADE,
        related_name="availabilities",
        verbose_name=_("incontro"),
    )
    club = models.ForeignKey(
        "clubs.Club", on_delete=models.PROTECT, related_name="+", verbose_name=_("circolo")
    )
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="team_availabilities",
        verbose_name=_("giocatore"),
    )
    said_at = models.DateTimeField(_("detto il"))

    class Meta:
        verbose_name = _("disponibilità")
        verbose_name_plural = _("disponibilità")
        constraints = [
            models.UniqueConstraint(fields=["match", "player"], name="teams_available_once")
        ]

    def __str__(self) -> str:
        return f"{self.match_id}: {self.player_id}"


class Board(models.Model):
    """One board of a started match (RULES 16.4): the first and the second club's player (None:
    empty, lost by forfeit), their one or two games, and each game's board points, from the
    first club's side and the second's. A game whose points are null is not scored yet;
    `played_n` is False for a forfeit or a 0-0 double absence."""

    match = models.ForeignKey(
        TeamMatch, on_delete=models.CASCADE, related_name="board_rows", verbose_name=_("incontro")
    )
    number = models.PositiveSmallIntegerField(_("scacchiera"))
    first_player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("giocatore del primo circolo"),
    )
    second_player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("giocatore del secondo circolo"),
    )
    game1 = models.OneToOneField(
        "games.Game",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("partita 1"),
    )
    game2 = models.OneToOneField(
        "games.Game",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("partita 2"),
    )
    first_points1 = models.PositiveSmallIntegerField(
        _("punti del primo circolo, partita 1"), null=True, blank=True
    )
    second_points1 = models.PositiveSmallIntegerField(
        _("punti del secondo circolo, partita 1"), null=True, blank=True
    )
    played1 = models.BooleanField(_("partita 1 giocata"), default=False)
    first_points2 = models.PositiveSmallIntegerField(
        _("punti del primo circolo, partita 2"), null=True, blank=True
    )
    second_points2 = models.PositiveSmallIntegerField(
        _("punti del secondo circolo, partita 2"), null=True, blank=True
    )
    played2 = models.BooleanField(_("partita 2 giocata"), default=False)
    done = models.BooleanField(_("conclusa"), default=False)

    class Meta:
        verbose_name = _("scacchiera")
        verbose_name_plural = _("scacchiere")
        ordering = ["match", "number"]
        constraints = [models.UniqueConstraint(fields=["match", "number"], name="teams_board_once")]

    def __str__(self) -> str:
        return f"{self.match_id}/{self.number}"

    def game(self, n: int):
        return getattr(self, f"game{n}")

    def points(self, n: int) -> tuple[int | None, int | None]:
        return getattr(self, f"first_points{n}"), getattr(self, f"second_points{n}")

    def set_points(self, n: int, first: int, second: int, *, played: bool) -> None:
        setattr(self, f"first_points{n}", first)
        setattr(self, f"second_points{n}", second)
        setattr(self, f"played{n}", played)
