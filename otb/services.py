"""Writing over-the-board tournaments (RULES 13). Every function is keyword-only, runs in one
transaction and checks that `by` may arbitrate (RULES 13.1).

Locking contract: every write locks the tournament row first (`live.locks`, rank EVENT) and
reads under it, so two arbiters at two laptops — one pairing the next round while the other
types the last result, or both typing one board — are served one after the other, and the
second sees the first's work. Nothing else is locked: no game, user or rating row is written.
A refusal raises OtbError before anything is saved (nothing half-saved).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Any

from django.contrib.auth import get_user_model
from django.utils import timezone
from django.utils.translation import gettext as _

from events.pairing.berger import berger_schedule
from events.pairing.lim import NoLegalPairing, pair_round
from events.pairing.model import Game, Pairing, PlayerState
from events.pairing.rounds import ROUND_ROBIN, SWISS, plan_tournament
from live import locks
from otb import selectors
from otb.broadcast import changed_on_commit
from otb.models import FormatChoice, OtbBoard, OtbBye, OtbPlayer, OtbRound, OtbTournament
from otb.rules import PlayerRow, judge_pairing, parse_typed, read_players_csv
from ratings.selectors import ratings_snapshot

STAFF_CORRECTS = frozenset({"name", "venue", "time_control"})  # otb/admin.py
MAX_PLAYERS = 1000  # the TRF's bound (events/pairing/trf.py)
LOT = random.SystemRandom()  # the draws by lot (a test may put a seeded Random in its place)


class OtbError(Exception):
    """A refusal, with the message the arbiter reads."""


def _lock(tournament_id: int, by) -> OtbTournament:
    tournament = locks.lock_one(OtbTournament, tournament_id, locks.Rank.EVENT)
    if not selectors.may_arbitrate(tournament, by):
        raise OtbError(_("Solo l'organizzatore e i coarbitri del torneo possono farlo."))
    return tournament


def _player(tournament: OtbTournament, player_id: int) -> OtbPlayer:
    player = tournament.players.filter(pk=player_id).first()
    if player is None:
        raise OtbError(_("Questo giocatore non è del torneo."))
    return player


def _changed(tournament: OtbTournament) -> None:
    tournament.version += 1
    tournament.save(update_fields=["version", "status"])
    changed_on_commit(tournament.pk, tournament.version)


# -- the tournament (RULES 13.1, 13.2) --------------------------------------------------------


@dataclass(frozen=True)
class OtbOptions:
    name: str
    variant: str
    cadence: str
    time_control: str
    format_choice: str
    rounds_wanted: int | None
    venue: str
    starts_on: Any
    ends_on: Any
    prohibited_rounds: int
    prohibit_club: bool


@locks.atomic
def otb_create(*, organizer, data: OtbOptions) -> OtbTournament:
    """RULES 13.1: any signed-in player (not a bot) may open one; it is no live event."""
    if not organizer.is_authenticated or organizer.is_bot:
        raise OtbError(_("Accedi con un account di giocatore per aprire un torneo a tavolino."))
    if data.ends_on < data.starts_on:
        raise OtbError(_("L'ultimo giorno viene prima del primo."))
    return OtbTournament.objects.create(organizer=organizer, **data.__dict__)


@locks.atomic
def arbiter_add(*, tournament_id: int, by, username: str) -> None:
    tournament = _lock(tournament_id, by)
    if tournament.organizer_id != by.pk:
        raise OtbError(_("Solo l'organizzatore nomina i coarbitri."))
    user = (
        get_user_model().objects.filter(username__iexact=username.strip(), is_active=True).first()
    )
    if user is None or user.is_bot:
        raise OtbError(_("Nessun giocatore si chiama «%(name)s».") % {"name": username})
    tournament.arbiters.add(user)


@locks.atomic
def arbiter_remove(*, tournament_id: int, by, user_id: int) -> None:
    tournament = _lock(tournament_id, by)
    if tournament.organizer_id != by.pk:
        raise OtbError(_("Solo l'organizzatore nomina i coarbitri."))
    tournament.arbiters.remove(user_id)


@locks.atomic
def tournament_corrected(*, tournament_id: int, by, fields: dict[str, str]) -> None:
    """The staff's correction of what the organizer typed as text (the admin: a name, the
    venue, the time control). Only those columns are written, under the tournament's lock: the
    arbiter's table may have moved it on since the staff's form was read, and its status and
    version are the table's. Its pages are told, as after any change."""
    if not by.is_staff or not set(fields) <= STAFF_CORRECTS:
        raise OtbError(_("Solo lo staff corregge questi campi."))
    tournament = locks.lock_one(OtbTournament, tournament_id, locks.Rank.EVENT)
    for name, value in fields.items():
        setattr(tournament, name, value)
    tournament.save(update_fields=list(fields))
    _changed(tournament)


# -- players (RULES 13.3) ----------------------------------------------------------------------


def _paired_rounds(tournament: OtbTournament) -> int:
    last = selectors.last_round(tournament)
    return last.number if last else 0


def _new_player(tournament: OtbTournament, row: PlayerRow) -> OtbPlayer:
    player = OtbPlayer(
        tournament=tournament,
        last_name=row.last_name,
        first_name=row.first_name,
        sex=row.sex,
        birth_year=row.birth_year,
        fsi_card=row.fsi_card,
        fid_card=row.fid_card,
        fide_id=row.fide_id,
        club=row.club,
        province=row.province,
        family=row.family,
        national_rating=row.national_rating,
        fide_rating=row.fide_rating,
    )
    if row.username:
        user = get_user_model().objects.filter(username__iexact=row.username).first()
        if user is None:
            if not row.line:  # typed at the desk, not a CSV line
                raise OtbError(
                    _("Nessun utente del sito si chiama «%(name)s».") % {"name": row.username}
                )
            raise OtbError(
                _("Riga %(line)d: nessun giocatore del sito si chiama «%(name)s».")
                % {"line": row.line, "name": row.username}
            )
        player.user = user
        if player.national_rating is None:
            # RULES 13.3: taken from the site account when not typed (its variant and cadence).
            player.national_rating = ratings_snapshot(
                player_ids=[user.pk], variant=tournament.variant, cadence=tournament.cadence
            )[user.pk]
    return player


def _enter(tournament: OtbTournament, players: list[OtbPlayer]) -> list[OtbPlayer]:
    paired = _paired_rounds(tournament)
    total = tournament.total_rounds
    if tournament.players.count() + len(players) > MAX_PLAYERS:
        raise OtbError(_("Al massimo %(n)d giocatori.") % {"n": MAX_PLAYERS})
    if paired:
        # RULES 13.3: a late entry plays from the next round on, with the next free number.
        if tournament.format == ROUND_ROBIN:
            raise OtbError(_("Nel girone all'italiana nessuno entra dopo il primo turno."))
        if total and paired >= total:
            raise OtbError(_("L'ultimo turno è già abbinato: non si entra più."))
        last = selectors.last_round(tournament)
        if last.status == OtbRound.Status.DRAFT:
            raise OtbError(
                _("Il turno %(n)d è in bozza: annulla l'abbinamento o pubblicalo, poi iscrivi.")
                % {"n": last.number}
            )
        number = max(tournament.players.values_list("number", flat=True), default=0)
        for offset, player in enumerate(players, start=1):
            player.number = number + offset
            player.entered_round = paired + 1
    saved = OtbPlayer.objects.bulk_create(players)
    return saved


@locks.atomic
def player_add(*, tournament_id: int, by, row: PlayerRow) -> OtbPlayer:
    tournament = _lock(tournament_id, by)
    (player,) = _enter(tournament, [_new_player(tournament, row)])
    _changed(tournament)
    return player


@locks.atomic
def players_import(*, tournament_id: int, by, text: str) -> int:
    """RULES 13.3: all the file's players, or none (the refusal names the line)."""
    tournament = _lock(tournament_id, by)
    try:
        rows = read_players_csv(text)
    except ValueError as error:
        raise OtbError(str(error)) from None
    players = [_new_player(tournament, row) for row in rows]
    _enter(tournament, players)
    _changed(tournament)
    return len(players)


@locks.atomic
def player_withdraw(*, tournament_id: int, by, player_id: int, from_round: int | None) -> None:
    """RULES 13.5: from a round not yet paired (the next one when None) to the end."""
    tournament = _lock(tournament_id, by)
    player = _player(tournament, player_id)
    first_free = _paired_rounds(tournament) + 1
    from_round = from_round or first_free
    if from_round < first_free:
        raise OtbError(
            _("Il turno %(n)d è già abbinato: il ritiro vale dal turno %(m)d.")
            % {"n": from_round, "m": first_free}
        )
    total = _rounds_known(tournament)
    if total and from_round > total:
        raise OtbError(_("Il torneo ha %(n)d turni.") % {"n": total})
    player.withdrawn_from = from_round
    player.save(update_fields=["withdrawn_from"])
    _changed(tournament)


@locks.atomic
def player_return(*, tournament_id: int, by, player_id: int) -> None:
    tournament = _lock(tournament_id, by)
    player = _player(tournament, player_id)
    if player.withdrawn_from is not None and player.withdrawn_from <= _paired_rounds(tournament):
        raise OtbError(_("Il ritiro vale già per turni abbinati: non si annulla."))
    player.withdrawn_from = None
    player.save(update_fields=["withdrawn_from"])
    _changed(tournament)


def _rounds_known(tournament: OtbTournament) -> int | None:
    """The number of rounds, when already known: fixed at round 1 (RULES 13.2), or typed for
    a forced Swiss before it."""
    if tournament.total_rounds:
        return tournament.total_rounds
    if tournament.format_choice == FormatChoice.SWISS and tournament.rounds_wanted:
        return tournament.rounds_wanted
    return None


def _bye_misfit(round_number: int, kind: str, *, round_robin: bool, total: int | None) -> str:
    """RULES 13.4: why a requested bye does not fit the tournament as known so far ("" when it
    does): Swiss only, within the rounds, half a point in any round but the last."""
    if round_robin:
        return _("Nel girone all'italiana non si chiede il riposo: il calendario è fisso.")
    if total and round_number > total:
        return _("Il torneo ha %(n)d turni.") % {"n": total}
    if kind == OtbBye.HALF and round_number == total:
        return _("Nell'ultimo turno il riposo richiesto vale zero punti (regola 13.4).")
    return ""


def _check_early_byes(tournament: OtbTournament) -> None:
    """RULES 13.4 Decision: the byes asked before round 1, checked once the format and the
    rounds are fixed. One that does not fit them is not dropped nor changed: round 1 is not
    paired, and the refusal names each, for the arbiter to cancel or change it."""
    total = tournament.total_rounds
    byes = OtbBye.objects.filter(player__tournament=tournament).select_related("player")
    round_robin = tournament.format == ROUND_ROBIN
    wrong = [
        b
        for b in byes.order_by("round_number", "player__last_name", "player__first_name")
        if b.player.plays_in(b.round_number)
        and _bye_misfit(b.round_number, b.kind, round_robin=round_robin, total=total)
    ]
    if not wrong:
        return
    listed = "; ".join(
        _("%(name)s, turno %(n)d") % {"name": b.player, "n": b.round_number}
        + (" (½)" if b.kind == OtbBye.HALF else "")
        for b in wrong
    )
    if tournament.format == ROUND_ROBIN:
        raise OtbError(
            _(
                "Il torneo risulta un girone all'italiana, dove non si chiede il riposo: "
                "annulla i riposi richiesti, poi abbina il turno 1: %(byes)s."
            )
            % {"byes": listed}
        )
    raise OtbError(
        _(
            "Il torneo risulta di %(n)d turni e nell'ultimo il riposo richiesto vale zero punti "
            "(regola 13.4): annulla o cambia questi riposi, poi abbina il turno 1: %(byes)s."
        )
        % {"n": total, "byes": listed}
    )


@locks.atomic
def bye_request(*, tournament_id: int, by, player_id: int, round_number: int, kind: str) -> None:
    """RULES 13.4: a round not yet paired; half a point in any round but the last."""
    tournament = _lock(tournament_id, by)
    player = _player(tournament, player_id)
    round_robin = tournament.format == ROUND_ROBIN or (
        not tournament.format and tournament.format_choice == FormatChoice.ROUND_ROBIN
    )
    misfit = _bye_misfit(
        round_number, kind, round_robin=round_robin, total=_rounds_known(tournament)
    )
    if misfit and round_robin:
        raise OtbError(misfit)
    if round_number <= _paired_rounds(tournament):
        raise OtbError(_("Il turno %(n)d è già abbinato.") % {"n": round_number})
    if misfit:
        raise OtbError(misfit)
    if not player.plays_in(round_number):
        raise OtbError(
            _("%(name)s non gioca il turno %(n)d.") % {"name": player, "n": round_number}
        )
    OtbBye.objects.update_or_create(
        player=player, round_number=round_number, defaults={"kind": kind}
    )
    _changed(tournament)


@locks.atomic
def bye_cancel(*, tournament_id: int, by, player_id: int, round_number: int) -> None:
    tournament = _lock(tournament_id, by)
    if round_number <= _paired_rounds(tournament):
        raise OtbError(_("Il turno %(n)d è già abbinato.") % {"n": round_number})
    OtbBye.objects.filter(
        player_id=player_id, player__tournament=tournament, round_number=round_number
    ).delete()
    _changed(tournament)


# -- rounds (RULES 13.6) ----------------------------------------------------------------------


def _start(tournament: OtbTournament) -> None:
    """Round 1: the format, the number of rounds and the pairing numbers are fixed (RULES
    13.2, 13.3): rating descending (the pairing rating), then name. Only the players present
    count (RULES 13.2 by 4.3: registered and not withdrawn at the start); one withdrawn before
    round 1 gets no pairing number, so no column of forfeits nor a place in the TRF."""
    players = [p for p in tournament.players.all() if p.plays_in(1)]
    if len(players) < 2:
        raise OtbError(_("Servono almeno due giocatori."))
    forced = tournament.format_choice
    n = len(players)
    if forced == FormatChoice.AUTO:
        if not 4 <= n <= 200:
            raise OtbError(
                _("Il sito decide la formula da 4 a 200 giocatori: scegli svizzero o girone.")
            )
        plan = plan_tournament(n)
        tournament.format, rounds = plan.format, plan.rounds
    else:
        tournament.format = SWISS if forced == FormatChoice.SWISS else ROUND_ROBIN
        if tournament.format == ROUND_ROBIN:
            rounds = n - 1 if n % 2 == 0 else n
        else:
            rounds = (n - 1).bit_length() + 2
    if tournament.format == ROUND_ROBIN:
        tournament.total_rounds = n - 1 if n % 2 == 0 else n  # RULES 5.1: the whole table
    else:
        tournament.total_rounds = tournament.rounds_wanted or rounds
        if tournament.total_rounds >= n:
            raise OtbError(_("Troppi turni per %(n)d giocatori.") % {"n": n})
    _check_early_byes(tournament)
    # Lim 10.5: the colour of #1 in round 1, by lot — a Swiss's. A round robin's colours are
    # the Berger table's, #1 first-named, White, in round 1 (RULES 5.1): its TRF says so (152).
    tournament.first_colour = "W" if tournament.format == ROUND_ROBIN else LOT.choice("WB")
    players.sort(
        key=lambda p: (
            -(selectors.pairing_rating(p) or 0),
            p.last_name.casefold(),
            p.first_name.casefold(),
            p.pk,
        )
    )
    if tournament.format == ROUND_ROBIN:
        LOT.shuffle(players)  # RULES 5.1: the Berger numbers by lot
    for number, p in enumerate(players, start=1):
        p.number = number
    OtbPlayer.objects.bulk_update(players, ["number"])
    tournament.status = OtbTournament.Status.RUNNING
    tournament.save(update_fields=["format", "total_rounds", "status", "first_colour"])


def _states(tournament: OtbTournament, number: int) -> tuple[list[PlayerState], Any]:
    before = selectors.engine_tournament(tournament, before_round=number)
    return before.player_states(), before.next_round_spec()


@locks.atomic
def round_pair(*, tournament_id: int, by) -> OtbRound | None:
    """RULES 13.6: the next round, paired by the engine, as a draft to check and publish.
    None when no pairing keeps the absolute rules: then the tournament ends (Lim 11)."""
    tournament = _lock(tournament_id, by)
    last = selectors.last_round(tournament)
    if last is None:
        _start(tournament)
        number = 1
    else:
        if not selectors.round_complete(last):
            raise OtbError(
                _("Il turno %(n)d non ha ancora tutti i risultati: il turno %(m)d si abbina dopo.")
                % {"n": last.number, "m": last.number + 1}
            )
        number = last.number + 1
    if number > tournament.total_rounds:
        raise OtbError(_("Tutti i turni sono stati giocati."))
    if tournament.format == ROUND_ROBIN:
        pairing, record = _berger_round(tournament, number)
    else:
        states, spec = _states(tournament, number)
        prohibited = selectors.prohibited_for(tournament, number)
        # RULES 13.7: a prohibited pair is paired as if they had met (Lim 2 keeps them apart).
        barred: dict[int, set[int]] = {}
        for a, b, _why in prohibited:
            barred.setdefault(a, set()).add(b)
            barred.setdefault(b, set()).add(a)
        paired_states = [
            replace(s, opponents=s.opponents | frozenset(barred[s.number]))
            if s.number in barred
            else s
            for s in states
        ]
        waived = False
        try:
            try:
                pairing = pair_round(paired_states, spec)
            except NoLegalPairing:
                if not prohibited:
                    raise
                pairing = pair_round(states, spec)  # RULES 13.7: the prohibitions give way
                waived = True
        except NoLegalPairing:
            # Lim 11: the tournament ends after the rounds already played, and says so.
            tournament.total_rounds = number - 1
            tournament.status = OtbTournament.Status.FINISHED
            tournament.ended_early = True
            tournament.save(update_fields=["total_rounds", "status", "ended_early"])
            _changed(tournament)
            return None
        record = {"what": "paired", "by": by.username, "at": _now(), "boards": _describe(pairing)}
        if waived:
            record["prohibitions_waived"] = True  # the round's record says so (RULES 13.6)
    round_ = OtbRound.objects.create(tournament=tournament, number=number, record=[record])
    _write_boards(round_, pairing, selectors.engine_tournament(tournament, before_round=number))
    _changed(tournament)
    return round_


def _berger_round(tournament: OtbTournament, number: int) -> tuple[Pairing, dict]:
    n = tournament.players.filter(number__gt=0).count()
    row = berger_schedule(n)[number - 1]
    pairing = Pairing(games=tuple(Game(w, b) for w, b in row.pairs), bye=row.bye)
    return pairing, {"what": "paired", "by": "Berger", "at": _now(), "boards": _describe(pairing)}


def _now() -> str:
    return timezone.now().isoformat(timespec="seconds")


def _describe(pairing: Pairing) -> str:
    text = " ".join(f"{g.white}-{g.black}" for g in pairing.games)
    return text + (f" bye {pairing.bye}" if pairing.bye else "")


def _write_boards(round_: OtbRound, pairing: Pairing, before) -> None:
    """Boards in the venue's order: the higher score first, then the better pairing number."""
    scores = before.scores_after(round_.number - 1)
    by_number = {p.number: p for p in round_.tournament.players.filter(number__gt=0)}
    games = sorted(
        pairing.games,
        key=lambda g: (
            -max(scores[g.white], scores[g.black]),
            -(scores[g.white] + scores[g.black]),
            min(g.white, g.black),
        ),
    )
    boards = [
        OtbBoard(round=round_, board=i, white=by_number[g.white], black=by_number[g.black])
        for i, g in enumerate(games, start=1)
    ]
    # RULES 13.5: a withdrawal holds to the end; the rest a Berger round gives a withdrawn
    # player is no bye (it would score a win): they are simply out of the round.
    if pairing.bye is not None and by_number[pairing.bye].plays_in(round_.number):
        boards.append(OtbBoard(round=round_, board=len(games) + 1, white=by_number[pairing.bye]))
    round_.boards.all().delete()
    OtbBoard.objects.bulk_create(boards)
    if round_.tournament.format == ROUND_ROBIN:
        # RULES 13.5: in a round robin a withdrawn player's games are lost by forfeit.
        for b in round_.boards.select_related("white", "black"):
            if b.black is None:
                continue
            out_w = not b.white.plays_in(round_.number)
            out_b = not b.black.plays_in(round_.number)
            if out_w or out_b:
                b.result = "--" if out_w and out_b else ("-+" if out_w else "+-")
                b.save(update_fields=["result"])


def _round_pairing(round_: OtbRound) -> Pairing:
    games, bye = [], None
    for b in round_.boards.select_related("white", "black"):
        if b.black is None:
            bye = b.white.number
        else:
            games.append(Game(b.white.number, b.black.number))
    return Pairing(games=tuple(games), bye=bye)


def _round_locked(tournament: OtbTournament, number: int) -> OtbRound:
    round_ = tournament.rounds.filter(number=number).first()
    if round_ is None:
        raise OtbError(_("Il turno %(n)d non esiste.") % {"n": number})
    return round_


@dataclass(frozen=True)
class Judgement:
    """What the checker said of an exchange: the absolute rules it breaks, whether it was
    made, and, when it was refused, the refusal to show the arbiter."""

    broken: tuple[str, ...]
    applied: bool
    refusal: str = ""


@locks.atomic
def round_exchange(
    *, tournament_id: int, by, number: int, first: int, second: int, override: bool = False
) -> Judgement:
    """RULES 13.6: exchange two players of a draft round (on one board: their colours). The
    checker judges the new pairing at once; one that breaks an absolute rule is applied only
    with `override`. The round's record keeps every judged edit, the judgement and the
    override: a refused one too (`applied` false, the pairing untouched), as the arbiter's
    attempt and what the checker said of it are part of the round's history. Input that
    names no exchange (a round published, a player not in it) raises `OtbError`, unrecorded."""
    tournament = _lock(tournament_id, by)
    round_ = _round_locked(tournament, number)
    if round_.status != OtbRound.Status.DRAFT:
        raise OtbError(_("Il turno è pubblicato: gli abbinamenti non si cambiano più."))
    if tournament.format == ROUND_ROBIN:
        raise OtbError(_("Il girone segue le tavole Berger: gli abbinamenti non si cambiano."))
    if first == second:
        raise OtbError(_("Scegli due giocatori diversi."))
    boards = list(round_.boards.select_related("white", "black"))
    # RULES 13.7: an exchange that *makes* a prohibited pair breaks the rule; one the pairing
    # already has (the engine's, when the prohibitions gave way) is no new breach.
    paired = {frozenset((b.white.number, b.black.number)) for b in boards if b.black is not None}
    prohibited = [
        (a, b, why)
        for a, b, why in selectors.prohibited_for(tournament, number)
        if frozenset((a, b)) not in paired
    ]
    slots: dict[int, tuple[OtbBoard, str]] = {}
    for b in boards:
        slots[b.white.number] = (b, "white")
        if b.black is not None:
            slots[b.black.number] = (b, "black")
    for n in (first, second):
        if n not in slots:
            raise OtbError(_("Il giocatore %(n)d non è in questo turno.") % {"n": n})
    (board_a, side_a), (board_b, side_b) = slots[first], slots[second]
    player_a, player_b = getattr(board_a, side_a), getattr(board_b, side_b)
    setattr(board_a, side_a, player_b)
    setattr(board_b, side_b, player_a)
    pairing = Pairing(
        games=tuple(Game(b.white.number, b.black.number) for b in boards if b.black is not None),
        bye=next((b.white.number for b in boards if b.black is None), None),
    )
    states, spec = _states(tournament, number)
    broken = tuple(judge_pairing(states, spec, pairing, prohibited))
    refused = bool(broken) and not override
    entry = {
        "what": "exchange",
        "by": by.username,
        "at": _now(),
        "players": [first, second],
        "broken": list(broken),
        "override": bool(broken and override),
        "refused": refused,
        "boards": _describe(pairing),  # the pairing the checker judged (not made if refused)
    }
    round_.record = [*round_.record, entry]
    round_.save(update_fields=["record"])
    if refused:
        return Judgement(
            broken,
            False,
            _(
                "Lo scambio %(a)d↔%(b)d viola: %(rules)s. Per farlo comunque serve la forzatura esplicita."
            )
            % {"a": first, "b": second, "rules": "; ".join(broken)},
        )
    for b in {board_a.pk: board_a, board_b.pk: board_b}.values():
        b.save(update_fields=["white", "black"])
    return Judgement(broken, True)


@locks.atomic
def round_unpair(*, tournament_id: int, by, number: int) -> None:
    """A draft round is dropped (to pair it again after a withdrawal or a late entry)."""
    tournament = _lock(tournament_id, by)
    round_ = _round_locked(tournament, number)
    if round_.status != OtbRound.Status.DRAFT:
        raise OtbError(_("Il turno è pubblicato: non si annulla."))
    round_.delete()
    if number == 1:
        tournament.status = OtbTournament.Status.ENTRIES
        tournament.format = ""
        tournament.total_rounds = None
        tournament.save(update_fields=["format", "total_rounds", "status"])
        tournament.players.update(number=0)
    _changed(tournament)


@locks.atomic
def round_publish(*, tournament_id: int, by, number: int) -> None:
    tournament = _lock(tournament_id, by)
    round_ = _round_locked(tournament, number)
    if round_.status == OtbRound.Status.PUBLISHED:
        return
    round_.status = OtbRound.Status.PUBLISHED
    round_.record = [*round_.record, {"what": "published", "by": by.username, "at": _now()}]
    round_.save(update_fields=["status", "record"])
    _changed(tournament)


@dataclass(frozen=True)
class ResultSaved:
    board: OtbBoard
    warning: str = ""


@locks.atomic
def result_set(*, tournament_id: int, by, number: int, board: int, typed: str) -> ResultSaved:
    """RULES 13.8: a result typed on the round sheet. A correction of a round before the last
    paired one recomputes the standings; the later pairings stay as they are, and the arbiter
    is warned (the round's record keeps the correction)."""
    tournament = _lock(tournament_id, by)
    round_ = _round_locked(tournament, number)
    if round_.status != OtbRound.Status.PUBLISHED:
        raise OtbError(_("Pubblica il turno prima di scriverne i risultati."))
    row = round_.boards.select_related("white", "black").filter(board=board).first()
    if row is None or row.black is None:
        raise OtbError(
            _("La scacchiera %(b)d non è un incontro del turno %(n)d.") % {"b": board, "n": number}
        )
    result = parse_typed(typed)
    if result is None:
        raise OtbError(
            _("«%(t)s» non è un risultato: 1, 0, = (o ½), + o - (forfait), 00 (doppio forfait).")
            % {"t": typed[:10]}
        )
    if result == row.result:
        return ResultSaved(row)
    warning = ""
    later = tournament.rounds.filter(number__gt=number).exists()
    if result == "" and later:
        # RULES 13.8 Decision: once the next round is paired a result is corrected, never
        # cleared: a round is paired on complete results (13.6), and a game without one would
        # be no meeting for the rounds to come (Lim 2).
        raise OtbError(
            _(
                "Il turno %(m)d è già abbinato: il risultato si corregge, non si cancella "
                "(1, 0, =, +, - o 00)."
            )
            % {"m": number + 1}
        )
    if row.result and later:
        warning = _(
            "Risultato corretto dopo l'abbinamento del turno %(m)d: la classifica è ricalcolata, "
            "gli abbinamenti dei turni successivi restano quelli fatti."
        ) % {"m": number + 1}
    if row.result:
        round_.record = [
            *round_.record,
            {
                "what": "correction",
                "by": by.username,
                "at": _now(),
                "board": board,
                "from": row.result,
                "to": result,
                "later_rounds_kept": later,
            },
        ]
        round_.save(update_fields=["record"])
    row.result = result
    row.save(update_fields=["result"])
    if number == tournament.total_rounds:
        complete = selectors.round_complete(round_)
        tournament.status = (
            OtbTournament.Status.FINISHED if complete else OtbTournament.Status.RUNNING
        )
    _changed(tournament)
    return ResultSaved(row, warning)
