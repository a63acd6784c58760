"""Team matches between clubs (RULES §16): a concrete `events.models.Event` of N boards between
two clubs, each club's line-up, the members who said they are available, and the boards of the
match once it started, with their one or two games and their board points."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import models
from django.db.models import DateTimeField, DurationField, ExpressionWrapper, F, Q, Value
from django.utils.translation import gettext_lazy as _

from events.models import Event
from games.models import HasVariant, Variant
from games.rules.timecontrol import ESTIMATED_MOVES
from ratings.models import CadenceChoice
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
    # A second times the count, in Django's own duration arithmetic: the same SQL's interval
    # function differs from one database to another (`make run` may serve SQLite).
    duration = ExpressionWrapper(
        Value(timedelta(seconds=1), output_field=DurationField()) * seconds,
        output_field=DurationField(),
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
    # RULES 16.8: a match of a league: its round and its two teams (None: a friendly match).
    league_round = models.ForeignKey(
        "teams.LeagueRound",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="matches",
        verbose_name=_("turno del campionato"),
    )
    first_team = models.ForeignKey(
        "teams.LeagueTeam",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("prima squadra"),
    )
    second_team = models.ForeignKey(
        "teams.LeagueTeam",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("seconda squadra"),
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
            # RULES 16.1: two clubs; RULES 16.8: in a league, two teams (maybe of one club).
            models.CheckConstraint(
                condition=~Q(first_club=models.F("second_club"))
                | (Q(first_team__isnull=False) & ~Q(first_team=models.F("second_team"))),
                name="teams_two_sides",
            ),
            models.CheckConstraint(condition=Q(floor__isnull=True), name="teams_no_floor"),
            models.CheckConstraint(
                condition=Q(league_round__isnull=True, first_team__isnull=True)
                | Q(
                    league_round__isnull=False, first_team__isnull=False, second_team__isnull=False
                ),
                name="teams_league_match_whole",
            ),
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

    # A match has two sides: 1 the first-named (its club, and in a league its team), 2 the
    # other. In a league two teams of one club may meet (RULES 16.8): a side, not a club, is
    # what fields a line-up.
    SIDES = (1, 2)

    def club_of_side(self, side: int) -> int:
        return self.first_club_id if side == 1 else self.second_club_id

    def team_of_side(self, side: int):
        """RULES 16.8: the league team of the side (None: a friendly match)."""
        if self.league_round_id is None:
            return None
        return self.first_team if side == 1 else self.second_team

    def side_name(self, side: int) -> str:
        """The team's name in a league match, else the club's."""
        team = self.team_of_side(side)
        if team is not None:
            return team.name
        return (self.first_club if side == 1 else self.second_club).name

    def sides_of_club(self, club_id: int | None) -> tuple[int, ...]:
        """The sides the club fields: none, one, or both (two of its teams, RULES 16.8)."""
        return tuple(side for side in self.SIDES if self.club_of_side(side) == club_id)

    def club_ids(self) -> tuple[int, int]:
        return (self.first_club_id, self.second_club_id)

    def side_of(self, club_id: int) -> int:
        """1 for the first-named club, 2 for the second (the first when it is both)."""
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
    side = models.PositiveSmallIntegerField(_("parte"), default=1)  # TeamMatch.SIDES
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
            models.UniqueConstraint(fields=["match", "side"], name="teams_one_lineup_per_side")
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
    side = models.PositiveSmallIntegerField(_("parte"), default=1)  # TeamMatch.SIDES
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


# --- Leagues (RULES 16.8) ---------------------------------------------------------------------

# RULES 16.8 Decision: a league not started by its organizer starts this long before its first
# round (the calendar made, the numbers drawn), so the captains see their first match a day ahead.
LEAGUE_AUTOSTART = timedelta(days=1)
# RULES 16.8 Decision: dates between rounds, and how far ahead the first round may be.
ROUND_GAP_MIN = timedelta(days=1)
ROUND_GAP_MAX = timedelta(days=28)
FIRST_ROUND_MAX = timedelta(days=90)
# RULES 16.8 Decision: a running league with nothing to do looks again this often (a match that
# ends nudges it at once).
LEAGUE_POLL = timedelta(minutes=1)


class League(HasVariant, models.Model):
    """A season of team matches between 3 to 16 teams (RULES 16.8): the options every match of
    it copies, its teams, its dated rounds."""

    class Status(models.TextChoices):
        ENTRY = "entry", _("Iscrizioni aperte")
        RUNNING = "running", _("In corso")
        FINISHED = "finished", _("Concluso")
        CANCELLED = "cancelled", _("Annullato")

    class System(models.TextChoices):
        ROUND_ROBIN = "round_robin", _("Girone all'italiana")
        SWISS = "swiss", _("Sistema svizzero")

    name = models.CharField(_("nome"), max_length=80)
    season = models.CharField(_("stagione"), max_length=20)
    description = models.TextField(_("descrizione"), blank=True, max_length=2000)
    opened_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="leagues_opened",
        verbose_name=_("organizzatore"),
    )
    variant = models.CharField(_("variante"), max_length=20, choices=Variant.choices)
    base_seconds = models.PositiveIntegerField(_("tempo base (secondi)"))
    increment_seconds = models.PositiveIntegerField(_("incremento (secondi)"))
    cadence = models.CharField(_("cadenza"), max_length=20, choices=CadenceChoice.choices)
    rated = models.BooleanField(_("valutato"), default=True)
    opening_mode = models.CharField(_("aperture"), max_length=20)
    thematic_opening = models.PositiveSmallIntegerField(
        _("apertura tematica"), null=True, blank=True
    )
    boards = models.PositiveSmallIntegerField(_("scacchiere"), default=4)
    legs = models.PositiveSmallIntegerField(_("partite per scacchiera"), default=1)
    double_round_robin = models.BooleanField(_("andata e ritorno"), default=False)
    first_round_at = models.DateTimeField(_("primo turno"))
    round_gap = models.DurationField(_("tra un turno e l'altro"))
    system = models.CharField(_("sistema"), max_length=20, choices=System.choices, blank=True)
    rounds = models.PositiveSmallIntegerField(_("turni"), default=0)
    status = models.CharField(
        _("stato"), max_length=20, choices=Status.choices, default=Status.ENTRY
    )
    seed = models.BigIntegerField(_("seme del sorteggio"), default=0)
    created_at = models.DateTimeField(_("creato il"), auto_now_add=True)
    started_at = models.DateTimeField(_("iniziato il"), null=True, blank=True)
    finished_at = models.DateTimeField(_("concluso il"), null=True, blank=True)
    cancelled_at = models.DateTimeField(_("annullato il"), null=True, blank=True)
    next_due_at = models.DateTimeField(_("prossima scadenza"), null=True, blank=True, db_index=True)
    version = models.PositiveIntegerField(_("versione"), default=0)

    class Meta:
        verbose_name = _("campionato a squadre")
        verbose_name_plural = _("campionati a squadre")
        ordering = ["-first_round_at", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(boards__gte=rules.BOARDS_MIN, boards__lte=rules.BOARDS_MAX),
                name="teams_league_boards_range",
            ),
            models.CheckConstraint(condition=Q(legs__in=[1, 2]), name="teams_league_legs"),
        ]

    def __str__(self) -> str:
        return f"{self.name} {self.season}"

    def get_absolute_url(self) -> str:
        from django.urls import reverse

        return reverse("teams:league", args=[self.pk])

    @property
    def time_control(self):
        from games.rules.timecontrol import TimeControl

        return TimeControl(self.base_seconds, self.increment_seconds)

    @property
    def is_live(self) -> bool:
        return self.status in (self.Status.ENTRY, self.Status.RUNNING)

    def round_date(self, number: int):
        """RULES 16.8: round `number`'s date, the first round's plus the gap per round."""
        return self.first_round_at + (number - 1) * self.round_gap


class LeagueTeam(models.Model):
    """A club's team in a league (RULES 16.8): "Circolo A". Its players are its roster
    (`LeagueMember`). `number` is its league number, drawn at the start; `seeding` its pairing
    number in a Swiss."""

    league = models.ForeignKey(
        League, on_delete=models.CASCADE, related_name="teams", verbose_name=_("campionato")
    )
    club = models.ForeignKey(
        "clubs.Club",
        on_delete=models.PROTECT,
        related_name="league_teams",
        verbose_name=_("circolo"),
    )
    name = models.CharField(_("nome della squadra"), max_length=80)
    number = models.PositiveSmallIntegerField(_("numero"), null=True, blank=True)
    seeding = models.PositiveSmallIntegerField(_("numero di abbinamento"), null=True, blank=True)
    withdrawn_at = models.DateTimeField(_("ritirata il"), null=True, blank=True)

    class Meta:
        verbose_name = _("squadra")
        verbose_name_plural = _("squadre")
        ordering = ["league", "number", "name"]
        constraints = [
            models.UniqueConstraint(fields=["league", "number"], name="teams_league_number_once"),
        ]

    def __str__(self) -> str:
        return self.name


class LeagueMember(models.Model):
    """A player of a team's roster for the season (RULES 16.8): one team a season."""

    team = models.ForeignKey(
        LeagueTeam, on_delete=models.CASCADE, related_name="roster", verbose_name=_("squadra")
    )
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="league_rosters",
        verbose_name=_("giocatore"),
    )
    season = models.CharField(_("stagione"), max_length=20)  # the league's, for the constraint
    added_at = models.DateTimeField(_("aggiunto il"))

    class Meta:
        verbose_name = _("giocatore della squadra")
        verbose_name_plural = _("giocatori della squadra")
        constraints = [
            models.UniqueConstraint(fields=["season", "player"], name="teams_roster_one_a_season")
        ]

    def __str__(self) -> str:
        return f"{self.team_id}: {self.player_id}"


class LeagueRound(models.Model):
    """A round of a league (RULES 16.8): its date, and in a Swiss when it was paired and which
    team had the bye."""

    league = models.ForeignKey(
        League, on_delete=models.CASCADE, related_name="round_rows", verbose_name=_("campionato")
    )
    number = models.PositiveSmallIntegerField(_("turno"))
    starts_at = models.DateTimeField(_("inizio"))
    paired_at = models.DateTimeField(_("abbinato il"), null=True, blank=True)
    bye_team = models.ForeignKey(
        LeagueTeam,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("squadra a riposo"),
    )

    class Meta:
        verbose_name = _("turno")
        verbose_name_plural = _("turni")
        ordering = ["league", "number"]
        constraints = [
            models.UniqueConstraint(fields=["league", "number"], name="teams_league_round_once")
        ]

    def __str__(self) -> str:
        return f"{self.league_id}/{self.number}"
