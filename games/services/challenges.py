"""Challenges ("sfide", RULES 3): posted open or to one player; accepting opens the game.

Locking, in the site's lock order (`live.locks`): accepting a challenge or offering a rematch
first locks the two players as a pair (PAIR rank), so what passes between them is decided one
at a time: two rematch offers crossing make one game, and a challenge between them accepted
twice at once opens one. Then accepting locks the challenge row with every other open one
between the two (CHALLENGE rank, ascending id: the ones it withdraws), cancelling the challenge
row, and then the players' user rows (USER rank), under which a closed account (deleted or
deactivated) is refused: deleting an account locks its open challenges and then its row in the
same order (`accounts.services.user_delete`), so a deletion and an accept at once never both go
through and never deadlock.
"""

from __future__ import annotations

import secrets

from django.contrib.auth import get_user_model
from django.db.models import Q

from accounts.services import account_open
from games.models import Challenge, ChallengeStatus, ColorChoice, Game
from games.rules import VARIANT_CODES
from games.services.errors import (
    ChallengeGone,
    Malformed,
    NotAPlayer,
    OpponentUnavailable,
    TooManyChallenges,
)
from games.services.play import game_open
from games.services.state import lobby_changed_on_commit
from live import locks, messages, pushes

MAX_BASE_SECONDS = 180 * 60
MAX_INCREMENT_SECONDS = 60
# Unbounded, one account could post 10,000 open challenges and grow the lobby to megabytes. A
# player keeps at most this many open at once (cancelling one makes room).
MAX_OPEN_CHALLENGES = 5


def challenge_create(
    *,
    challenger_id: int,
    variant_code: str,
    base_seconds: int,
    increment_seconds: int,
    color: str,
    rated: bool,
    opponent_id: int | None = None,
    rematch_of: Game | None = None,
) -> Challenge:
    """Post a challenge, open or addressed to one player (a rematch names its game)."""
    if variant_code not in VARIANT_CODES:
        raise Malformed("unknown variant")
    if not 0 <= base_seconds <= MAX_BASE_SECONDS or not (
        0 <= increment_seconds <= MAX_INCREMENT_SECONDS
    ):
        raise Malformed("time control out of range")
    if base_seconds == 0 and increment_seconds == 0:
        raise Malformed("a time control needs a base time or an increment")
    if color not in ColorChoice.values:
        raise Malformed("unknown colour")
    if opponent_id == challenger_id:
        raise Malformed("you cannot challenge yourself")
    with locks.atomic():
        # The challenger's row, so two posts at once cannot both pass the count (USER rank).
        users = get_user_model().objects.filter(pk__in=[challenger_id, opponent_id or 0])
        users = users.only("pk", "is_active", "deleted_at")
        found = {u.pk: u for u in locks.lock_rows(users, locks.Rank.USER)}
        if challenger_id not in found:
            raise Malformed("no such challenger")
        if not account_open(found[challenger_id]):  # deleted or deactivated meanwhile
            raise NotAPlayer("your account is closed")
        if opponent_id is not None and not (
            opponent_id in found and account_open(found[opponent_id])
        ):
            raise OpponentUnavailable("this player cannot be challenged")
        open_now = Challenge.objects.filter(
            challenger_id=challenger_id, status=ChallengeStatus.OPEN
        ).count()
        if open_now >= MAX_OPEN_CHALLENGES:
            raise TooManyChallenges(
                f"you already have {open_now} open challenges: cancel one to post another"
            )
        challenge = Challenge.objects.create(
            challenger_id=challenger_id,
            opponent_id=opponent_id,
            variant=variant_code,
            base_seconds=base_seconds,
            increment_seconds=increment_seconds,
            color=color,
            rated=rated,
            rematch_of=rematch_of,
        )
        lobby_changed_on_commit()
        pushes.user_changed_on_commit([opponent_id], messages.What.CHALLENGES)
    return challenge


def _locked_open_challenge(challenge_id: int, *, between: tuple[int, int] | None = None):
    """The challenge, locked and open, else ChallengeGone. With `between` (two players), the
    other open challenges between them are locked with it, in one ascending-id pass, and
    returned too: those an accept withdraws."""
    query = Q(pk=challenge_id)
    if between is not None:
        first, second = between
        query |= Q(challenger_id=first, opponent_id=second, status=ChallengeStatus.OPEN)
        query |= Q(challenger_id=second, opponent_id=first, status=ChallengeStatus.OPEN)
    try:
        rows = locks.lock_rows(Challenge.objects.filter(query), locks.Rank.CHALLENGE)
    except ValueError:
        raise ChallengeGone("no such challenge") from None
    challenge = next((row for row in rows if row.pk == challenge_id), None)
    if challenge is None:
        raise ChallengeGone("no such challenge")
    if challenge.status != ChallengeStatus.OPEN:
        raise ChallengeGone("the challenge is no longer open")
    if between is None:
        return challenge
    return challenge, [row for row in rows if row.pk != challenge_id]


def challenge_accept(*, challenge_id: int, user_id: int) -> Game:
    """Accept a challenge: the game opens at once (RULES 3). Raises PlayerBusy when either
    player is in a live game (RULES 1) and ChallengeGone when someone else got there first.

    The other offers still open between the two players (a rematch crossing this one, an older
    challenge) are withdrawn: the game they asked for is the one starting now, and one accepted
    later would start another."""
    challenger_id = (
        Challenge.objects.filter(pk=challenge_id).values_list("challenger_id", flat=True).first()
        if isinstance(challenge_id, int) and not isinstance(challenge_id, bool)
        else None
    )
    if challenger_id is None:
        raise ChallengeGone("no such challenge")
    with locks.atomic():
        locks.lock_pair(challenger_id, user_id)
        challenge, crossing = _locked_open_challenge(challenge_id, between=(challenger_id, user_id))
        if user_id == challenge.challenger_id:
            raise NotAPlayer("you cannot accept your own challenge")
        if challenge.opponent_id is not None and challenge.opponent_id != user_id:
            raise NotAPlayer("this challenge is addressed to another player")
        # Both accounts open, under their rows' locks (USER rank), which a deletion takes too.
        users = get_user_model().objects.filter(pk__in=[challenger_id, user_id])
        users = users.only("pk", "is_active", "deleted_at")
        found = {u.pk: u for u in locks.lock_rows(users, locks.Rank.USER)}
        if user_id not in found or not account_open(found[user_id]):
            raise NotAPlayer("your account is closed")
        if challenger_id not in found or not account_open(found[challenger_id]):
            raise ChallengeGone("the challenger's account is closed")
        if challenge.color == ColorChoice.RANDOM:
            challenger_white = bool(secrets.randbelow(2))
        else:
            challenger_white = challenge.color == ColorChoice.WHITE
        white, black = (
            (challenge.challenger_id, user_id)
            if challenger_white
            else (user_id, challenge.challenger_id)
        )
        game = game_open(
            white_id=white,
            black_id=black,
            variant_code=challenge.variant,
            base_seconds=challenge.base_seconds,
            increment_seconds=challenge.increment_seconds,
            rated=challenge.rated,
        )
        challenge.status = ChallengeStatus.ACCEPTED
        challenge.game = game
        challenge.opponent_id = user_id
        challenge.save(update_fields=["status", "game", "opponent"])
        # Only the rows locked above with the challenge (a CHALLENGE lock after the users'
        # would break the order, and a deletion holding one of them would deadlock with it).
        Challenge.objects.filter(
            pk__in=[row.pk for row in crossing], status=ChallengeStatus.OPEN
        ).update(status=ChallengeStatus.CANCELLED)
        # Other open challenges of the two players can no longer start (one board at a time),
        # but they stay posted: they can be accepted after this game.
        lobby_changed_on_commit()
        pushes.user_changed_on_commit([challenge.challenger_id, user_id], messages.What.CHALLENGES)
        # The challenger's page, wherever they wait (the lobby, the finished game of a
        # rematch), goes to the board.
        pushes.user_changed_on_commit([challenge.challenger_id], messages.What.MYGAME, game=game.pk)
    return game


def challenge_cancel(*, challenge_id: int, user_id: int) -> Challenge:
    """The challenger withdraws the challenge, or its addressee declines it."""
    with locks.atomic():
        challenge = _locked_open_challenge(challenge_id)
        if user_id == challenge.challenger_id:
            challenge.status = ChallengeStatus.CANCELLED
        elif user_id == challenge.opponent_id:
            challenge.status = ChallengeStatus.DECLINED
        else:
            raise NotAPlayer("not your challenge")
        challenge.save(update_fields=["status"])
        lobby_changed_on_commit()
        pushes.user_changed_on_commit(
            [challenge.challenger_id, challenge.opponent_id], messages.What.CHALLENGES
        )
    return challenge


def rematch_offer(*, game_id: int, user_id: int) -> tuple[Challenge, Game | None]:
    """A rematch ("rivincita") after a finished game of no event: a challenge to the
    same opponent, same variant, time control and rating, the colours swapped. If the opponent
    already offered one, this accepts it (both asked), and the new game is returned too; an
    offer of one's own still open is returned as it is. The challenge row locks as any
    challenge's; the game is only read."""
    game = Game.objects.filter(pk=game_id).first()
    if game is None or game.is_live or game.event_type_id is not None:
        raise ChallengeGone("no rematch for this game")
    color = game.player_color(user_id)
    if color is None:
        raise NotAPlayer("only its players may ask for a rematch")
    opponent_id = game.black_id if color.value == "white" else game.white_id
    with locks.atomic():
        # The pair first: the opponent's offer made at this very moment is seen here, or sees
        # this one (two crossing offers used to leave two open challenges and no game).
        locks.lock_pair(user_id, opponent_id)
        offers = Challenge.objects.filter(rematch_of=game, status=ChallengeStatus.OPEN)
        theirs = offers.filter(challenger_id=opponent_id, opponent_id=user_id).first()
        if theirs is not None:
            return theirs, challenge_accept(challenge_id=theirs.pk, user_id=user_id)
        mine = offers.filter(challenger_id=user_id, opponent_id=opponent_id).first()
        if mine is not None:
            return mine, None
        if Challenge.objects.filter(rematch_of=game, status=ChallengeStatus.ACCEPTED).exists():
            raise ChallengeGone("the rematch has been played already")
        offer = challenge_create(
            challenger_id=user_id,
            opponent_id=opponent_id,
            variant_code=game.variant,
            base_seconds=game.base_seconds,
            increment_seconds=game.increment_seconds,
            # Colours swapped: who had White asks to play Black this time.
            color=ColorChoice.BLACK if color.value == "white" else ColorChoice.WHITE,
            rated=game.rated,
            rematch_of=game,
        )
    return offer, None
