"""Live games (RULES 3). Only `games.services` writes these rows.

Clocks are stored as a snapshot, exactly as `games.rules.clock.Clock` holds them: the time each
side had left at the instant `clock_since_ms` (epoch milliseconds) and which side's clock has
been running since then. `flag_at_ms` is the instant the running side's flag falls if nobody
moves. It is deliberately not indexed: it changes with every move, and an indexed column that
changes makes PostgreSQL write a new entry in every index of the table for each move instead of
a heap-only (HOT) update (bench/live.py: 7 % of move updates were HOT). The tick finds due flags
among the live games through the `status` index, a few thousand rows at most.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.contenttypes.fields import GenericForeignKey
from django.contrib.contenttypes.models import ContentType
from django.db import models
from django.utils.translation import gettext_lazy as _

from games.rules import Color, Reason, variants
from games.rules.clock import Clock, flag_instant
from games.rules.timecontrol import TimeControl

# `Game.clock_running` -> whose clock runs (read on every move: a dict, not the enum's lookup).
_RUNNING = {"": None, **{color.value: color for color in Color}}


class _CheckedByTheTable:
    """A non-negative integer column whose `>= 0` is part of its table's one CHECK constraint
    (`Game.Meta.constraints`) rather than a constraint of its own. PostgreSQL prepares every
    CHECK of a table afresh for each UPDATE of a row, and a live game's row is updated on every
    move: nine small constraints cost several times one that says the same (an isolated move's
    UPDATE went from ~310 to ~230-280 µs of PostgreSQL CPU with one). Forms
    and `full_clean` validate as for the plain field."""

    def db_check(self, connection):
        return None


class NonNegativeInteger(_CheckedByTheTable, models.PositiveIntegerField):
    pass


class NonNegativeSmallInteger(_CheckedByTheTable, models.PositiveSmallIntegerField):
    pass


class NonNegativeBigInteger(_CheckedByTheTable, models.PositiveBigIntegerField):
    pass


# The variants as Django choices (RULES 2), built from the one list (games.rules.variants) when
# this module is imported: Variant.CHESS == "chess", labelled "Scacchi", and so on for each.
Variant = models.TextChoices(
    "Variant",
    [(info.code.upper(), (info.code, _(info.label))) for info in variants.VARIANTS],
)


class HasVariant:
    """A row with a `variant` column: `variant_info` is its variant's entry in the list
    (export format, board, draw claims, openings), for code and templates alike."""

    variant: str

    @property
    def variant_info(self) -> variants.VariantInfo:
        return variants.info(self.variant)


class Status(models.TextChoices):
    LIVE = "live", _("In corso")
    FINISHED = "finished", _("Finita")


class GameResult(models.TextChoices):
    NONE = "", _("—")
    WHITE_WINS = "1-0", "1-0"
    BLACK_WINS = "0-1", "0-1"
    DRAW = "1/2-1/2", "½-½"
    NOBODY_SCORES = "0-0", "0-0"  # RULES 3: neither player sat


class EndReason(models.TextChoices):
    """Why a game ended: the rules' own reasons plus those the live layer decides."""

    NONE = "", _("—")
    CHECKMATE = Reason.CHECKMATE.value, _("scacco matto")
    STALEMATE = Reason.STALEMATE.value, _("stallo")
    INSUFFICIENT_MATERIAL = Reason.INSUFFICIENT_MATERIAL.value, _("materiale insufficiente")
    FIVEFOLD_REPETITION = Reason.FIVEFOLD_REPETITION.value, _("quintupla ripetizione")
    SEVENTY_FIVE_MOVES = Reason.SEVENTY_FIVE_MOVES.value, _("regola delle 75 mosse")
    THREEFOLD_REPETITION = Reason.THREEFOLD_REPETITION.value, _("triplice ripetizione")
    FIFTY_MOVES = Reason.FIFTY_MOVES.value, _("regola delle 50 mosse")
    NO_LEGAL_MOVE = Reason.NO_LEGAL_MOVE.value, _("nessuna mossa possibile")
    KING_MOVES = Reason.KING_MOVES.value, _("mosse di sole dame")
    ENDGAME_MOVES = Reason.ENDGAME_MOVES.value, _("regola del finale")
    TIMEOUT = Reason.TIMEOUT.value, _("tempo scaduto")
    TIMEOUT_VS_INSUFFICIENT_MATERIAL = (
        Reason.TIMEOUT_VS_INSUFFICIENT_MATERIAL.value,
        _("tempo scaduto, ma l'avversario non può vincere"),
    )
    RESIGNATION = "resignation", _("resa")
    AGREED_DRAW = "agreed_draw", _("patta d'accordo")
    ABANDONMENT = "abandonment", _("abbandono (disconnessione)")
    BOTH_ABSENT = "both_absent", _("entrambi assenti")
    ABORTED = "aborted", _("partita annullata")  # RULES 3: no result, never rated
    EVENT_END = "event_end", _("fine dell'evento")


class Game(HasVariant, models.Model):
    white = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="games_as_white",
        verbose_name=_("bianco"),
    )
    black = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="games_as_black",
        verbose_name=_("nero"),
    )
    variant = models.CharField(_("variante"), max_length=16, choices=Variant.choices)
    base_seconds = NonNegativeInteger(_("tempo base (s)"))
    increment_seconds = NonNegativeInteger(_("incremento (s)"))
    # The rating decision, fixed when the game opens (games.services.play.game_open): whether it
    # counts at all, and whether its event rates it with the others as one period (a round
    # tournament, RULES 7.1) rather than alone when it ends (challenges, arenas).
    rated = models.BooleanField(_("valida per il punteggio"), default=True)
    rated_with_event = models.BooleanField(_("valutata con l'evento"), default=False)
    # Each player's rating in the game's variant and cadence when it opened (shown beside the
    # players and written in the PGN/PDN from the start, whatever the game's rating does
    # later); empty for the games opened before they were kept.
    white_rating = NonNegativeSmallInteger(
        _("punteggio del bianco all'inizio"), null=True, blank=True
    )
    black_rating = NonNegativeSmallInteger(
        _("punteggio del nero all'inizio"), null=True, blank=True
    )

    start_fen = models.TextField(_("posizione iniziale"))
    # The opening imposed by the event (RULES 6): its F.I.D. table number, if any, and its
    # moves in machine form from the standard start, which lead to `start_fen`. Shown greyed
    # at the head of the move list, which numbers the game's moves after them.
    opening_number = NonNegativeSmallInteger(_("apertura F.I.D."), null=True, blank=True)
    opening_moves = models.JSONField(_("mosse dell'apertura"), default=list, blank=True)
    fen = models.TextField(_("posizione attuale"))
    moves = models.JSONField(_("mosse"), default=list)  # machine form (UCI / square paths)
    positions = models.JSONField(  # canonical FENs before the current one
        _("posizioni precedenti"), default=list
    )
    notation = models.JSONField(  # [Italian, English] notation of each move
        _("notazione"), default=list
    )
    # The mover's time left after each move, increment included (ms): the PGN's `[%clk]`
    # comment. Appended in SQL with the moves, never read by a move (`store.GROWING`).
    # Empty for the games played before it was kept.
    clocks = models.JSONField(_("tempi dopo ogni mossa (ms)"), default=list, blank=True)
    ply = NonNegativeInteger(_("semimosse"), default=0)
    # STYLE 4: bumped under the row lock with every change pushed (moves, presence, draw offers,
    # flags, the end); clients drop any state not newer than the one they hold.
    version = NonNegativeInteger(_("versione"), default=0)

    # Clock snapshot (games.rules.clock.Clock): time left at clock_since_ms, running side.
    white_ms = models.BigIntegerField(_("tempo del bianco (ms)"))
    black_ms = models.BigIntegerField(_("tempo del nero (ms)"))
    white_increment_ms = models.BigIntegerField(_("incremento del bianco (ms)"))
    black_increment_ms = models.BigIntegerField(_("incremento del nero (ms)"))
    clock_running = models.CharField(_("orologio in moto"), max_length=5, blank=True, default="")
    clock_since_ms = models.BigIntegerField(_("istante della lettura (ms)"))
    flag_at_ms = models.BigIntegerField(_("caduta della bandierina (ms)"), null=True, blank=True)

    # Not indexed on its own: the indexes on (status, white/black_away_since_ms) serve
    # `status = …` as well, and every index of this table is one more entry to write whenever
    # a move cannot be written in place on its page.
    status = models.CharField(
        _("stato"), max_length=10, choices=Status.choices, default=Status.LIVE
    )
    result = models.CharField(
        _("risultato"), max_length=7, choices=GameResult.choices, blank=True, default=""
    )
    reason = models.CharField(
        _("motivo"), max_length=40, choices=EndReason.choices, blank=True, default=""
    )
    draw_offer = models.CharField(  # the colour offering
        _("patta offerta da"), max_length=5, blank=True, default=""
    )
    # RULES 3, casual games of no event: the colour asking to take its last move back.
    takeback_offer = models.CharField(
        _("ritiro della mossa chiesto da"), max_length=5, blank=True, default=""
    )
    # Boost (RULES 8): offered when the event says so (an arena), taken by a player before
    # their own first move; the clock cut is in the clock snapshot itself.
    boostable = models.BooleanField(_("boost ammesso"), default=False)
    white_boosted = models.BooleanField(_("boost del bianco"), default=False)
    black_boosted = models.BooleanField(_("boost del nero"), default=False)

    # Presence (RULES 3): sat = connected once while live; connections counted per colour;
    # away_since = when the last connection of that colour closed (abandonment after 30 s).
    white_sat = models.BooleanField(_("il bianco si è seduto"), default=False)
    black_sat = models.BooleanField(_("il nero si è seduto"), default=False)
    white_connections = NonNegativeInteger(_("connessioni del bianco"), default=0)
    black_connections = NonNegativeInteger(_("connessioni del nero"), default=0)
    white_away_since_ms = models.BigIntegerField(
        _("bianco assente dal (ms)"), null=True, blank=True
    )
    black_away_since_ms = models.BigIntegerField(_("nero assente dal (ms)"), null=True, blank=True)

    # The event the game belongs to (a tournament pairing, an arena), filled by those apps.
    event_type = models.ForeignKey(  # indexed with event_id (Meta.indexes), not alone
        ContentType,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        db_index=False,
        verbose_name=_("tipo di evento"),
    )
    event_id = NonNegativeBigInteger(_("id dell'evento"), null=True, blank=True)
    event = GenericForeignKey("event_type", "event_id")

    created_at = models.DateTimeField(_("creata il"), auto_now_add=True)
    finished_at = models.DateTimeField(_("finita il"), null=True, blank=True)
    # Every `game_finished` receiver (events, ratings) has run for this finished game
    # (games.services.due.game_settle); the tick settles those whose settle task was lost.
    settled = models.BooleanField(_("conclusione elaborata"), default=False)
    # Which write of the row this is, set by a trigger whoever writes (games 0009 on
    # PostgreSQL: a new value from a sequence with every INSERT and UPDATE; games 0014 on
    # SQLite: one more with every UPDATE), never one seen before. A move decided from the row
    # as it was at stamp S is written with one `UPDATE … WHERE row_stamp = S`
    # (`games.services.play.game_move`).
    row_stamp = models.BigIntegerField(_("timbro della riga"), default=0, editable=False)

    class Meta:
        verbose_name = _("partita")
        verbose_name_plural = _("partite")
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["event_type", "event_id"]),
            models.Index(fields=["status", "white_away_since_ms"]),
            models.Index(fields=["status", "black_away_since_ms"]),
            models.Index(
                fields=["finished_at"],
                condition=models.Q(status="finished", settled=False),
                name="games_game_unsettled",
            ),
        ]
        constraints = [
            # Two different players, and every count and number non-negative, in one CHECK
            # (`_CheckedByTheTable`).
            models.CheckConstraint(
                condition=~models.Q(white=models.F("black"))
                & models.Q(
                    base_seconds__gte=0,
                    increment_seconds__gte=0,
                    ply__gte=0,
                    version__gte=0,
                    white_connections__gte=0,
                    black_connections__gte=0,
                )
                & (models.Q(opening_number__isnull=True) | models.Q(opening_number__gte=0))
                & (models.Q(event_id__isnull=True) | models.Q(event_id__gte=0)),
                name="games_game_sound",
            ),
        ]

    def __str__(self) -> str:
        return f"#{self.pk} {self.white} – {self.black} ({self.variant})"

    @property
    def is_live(self) -> bool:
        return self.status == Status.LIVE

    @property
    def time_control(self) -> TimeControl:
        return TimeControl(self.base_seconds, self.increment_seconds)

    @property
    def abortable(self) -> bool:
        """RULES 3: a game of no event (a challenge, a quick pairing) may be aborted by a
        player before their own first move."""
        return self.event_type_id is None

    @property
    def takebacks_allowed(self) -> bool:
        """RULES 3: takebacks and "+15 s" in casual games of no event only."""
        return not self.rated and self.event_type_id is None

    def player_color(self, user_id: int | None) -> Color | None:
        if user_id is None:
            return None
        if user_id == self.white_id:
            return Color.WHITE
        if user_id == self.black_id:
            return Color.BLACK
        return None

    @property
    def clock(self) -> Clock:
        return Clock(
            base_ms=self.base_seconds * 1000,
            white_increment_ms=self.white_increment_ms,
            black_increment_ms=self.black_increment_ms,
            white_ms=self.white_ms,
            black_ms=self.black_ms,
            running=_RUNNING[self.clock_running],
            since_ms=self.clock_since_ms,
        )

    def set_clock(self, clock: Clock) -> None:
        self.white_ms = clock.white_ms
        self.black_ms = clock.black_ms
        self.white_increment_ms = clock.white_increment_ms
        self.black_increment_ms = clock.black_increment_ms
        self.clock_running = clock.running.value if clock.running else ""
        self.clock_since_ms = clock.since_ms
        self.flag_at_ms = flag_instant(clock)


class ColorChoice(models.TextChoices):
    WHITE = "white", _("Bianco")
    BLACK = "black", _("Nero")
    RANDOM = "random", _("A caso")


class ChallengeStatus(models.TextChoices):
    OPEN = "open", _("Aperta")
    ACCEPTED = "accepted", _("Accettata")
    CANCELLED = "cancelled", _("Annullata")
    DECLINED = "declined", _("Rifiutata")


class Challenge(HasVariant, models.Model):
    """A challenge ("sfida", RULES 3): open to anyone, or addressed to one player."""

    challenger = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="challenges_sent",
        verbose_name=_("sfidante"),
    )
    opponent = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="challenges_received",
        verbose_name=_("avversario"),
    )
    variant = models.CharField(_("variante"), max_length=16, choices=Variant.choices)
    base_seconds = models.PositiveIntegerField(_("tempo base (s)"))
    increment_seconds = models.PositiveIntegerField(_("incremento (s)"))
    color = models.CharField(
        _("colore"), max_length=6, choices=ColorChoice.choices, default=ColorChoice.RANDOM
    )
    rated = models.BooleanField(_("valida per il punteggio"), default=True)
    status = models.CharField(
        _("stato"),
        max_length=10,
        choices=ChallengeStatus.choices,
        default=ChallengeStatus.OPEN,
        db_index=True,
    )
    game = models.OneToOneField(
        Game,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="challenge",
        verbose_name=_("partita"),
    )
    # A rematch ("rivincita"): offered on the page of the finished game it follows, colours
    # swapped; the opponent accepts or declines it there.
    rematch_of = models.ForeignKey(
        Game,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="rematches",
        verbose_name=_("rivincita di"),
    )
    created_at = models.DateTimeField(_("creata il"), auto_now_add=True)

    class Meta:
        verbose_name = _("sfida")
        verbose_name_plural = _("sfide")
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.challenger} → {self.opponent or '*'} ({self.variant} {self.time_control})"

    @property
    def time_control(self) -> TimeControl:
        return TimeControl(self.base_seconds, self.increment_seconds)

    @property
    def acceptor_color(self) -> str:
        """The colour whoever accepts plays (`color` is the challenger's): what the challenge
        notice and the lobby tell the player it is offered to."""
        return {ColorChoice.WHITE: ColorChoice.BLACK, ColorChoice.BLACK: ColorChoice.WHITE}.get(
            self.color, ColorChoice.RANDOM
        )


class PoolEntry(HasVariant, models.Model):
    """A player waiting in a quick-pairing pool ("Partita veloce"): one pool per
    variant, time control and rated or casual; a player waits in at most one, and never while
    in a live game (RULES 1). Written only by `games.services.pools` and by the opening of a
    game (`play.game_open`), always under the player's user-row lock."""

    player = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="pool_entry",
        verbose_name=_("giocatore"),
    )
    variant = models.CharField(_("variante"), max_length=16, choices=Variant.choices)
    base_seconds = models.PositiveIntegerField(_("tempo base (s)"))
    increment_seconds = models.PositiveIntegerField(_("incremento (s)"))
    rated = models.BooleanField(_("valida per il punteggio"), default=True)
    # The player's rating in the pool's variant and cadence when they joined: pairing looks
    # for close ratings first (games.pool_pairing).
    rating = models.IntegerField(_("punteggio"))
    joined_at_ms = models.BigIntegerField()

    class Meta:
        verbose_name = _("attesa di una partita veloce")
        verbose_name_plural = _("attese di partite veloci")
        indexes = [
            models.Index(
                fields=["variant", "base_seconds", "increment_seconds", "rated"],
                name="games_pool_key",
            )
        ]

    def __str__(self) -> str:
        return f"{self.player} · {self.variant} {self.time_control}"

    @property
    def time_control(self) -> TimeControl:
        return TimeControl(self.base_seconds, self.increment_seconds)
