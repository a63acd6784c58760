"""After a game: "Nuovo avversario" beside "Rivincita", as a lichess player expects.

What a lichess player expects of "New opponent": the same kind of game again, with someone
else, without filling a form. So, from a finished game of no event:

- its time control is a cell of the lobby's grid (every quick-pairing game, and a challenge
  game at one of the usual times): the player waits again in that very pool — same variant,
  time control and rated or casual — and is taken to the lobby, where the wait shows and lasts
  while the page is open (a player waits in a pool only while a lobby page of theirs is open,
  `pools`); if someone acceptable already waits there, the game opens at once;
- any other time control (a custom challenge): an open challenge with the same variant, time
  control and rating, colour at random, shown in the lobby; asked twice, the one already open
  is kept (a double click posts nothing more).

Never for a game of a tournament or an arena: the event pairs its players itself. Refused,
changing nothing, while the game is still played, to someone who did not play it, and while
the player is in another live game (RULES 1: one board at a time).

Looking for someone else answers any rematch still pending on that game: one's own offer is
withdrawn, the opponent's declined (their page says so), so a rematch cannot open a game
behind the player's back while they wait elsewhere.

Locking contract
----------------
One transaction takes the pending rematch offers of the game (CHALLENGE rank), then the
player's user row (USER rank, `live.locks`' order), checks the player is in no live game,
answers the offers and, for a custom time control, posts the challenge (`challenge_create`,
the same user row again). Joining a pool is `pools.pool_join` after that commit, in its own
transactions (it commits the wait before pairing, so two players joining at once see each
other); it checks the live game again under the same lock.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from games.models import Challenge, ChallengeStatus, ColorChoice, Game
from games.services.challenges import challenge_create
from games.services.errors import GameNotFound, Malformed, NoNewOpponent, NotAPlayer, PlayerBusy
from games.services.pools import Pool, _in_live_game, _lock_players, on_the_grid, pool_join
from games.services.state import lobby_changed_on_commit
from live import locks, messages, pushes


@dataclass(frozen=True)
class NewOpponent:
    """Where "Nuovo avversario" put the player: waiting in `pool` (or already playing `game`,
    paired at once), or behind the open `challenge`."""

    pool: Pool | None = None
    game: Game | None = None
    challenge: Challenge | None = None


def new_opponent_seek(*, game_id: Any, user_id: int, at_ms: int | None = None) -> NewOpponent:
    """ "Nuovo avversario" after `game_id` for its player `user_id` (see the module docstring).

    Raises Malformed (not a game id), GameNotFound, NotAPlayer, NoNewOpponent (the game is
    live, or an event's), PlayerBusy (the player is in a live game) and, for a custom time
    control, TooManyChallenges; nothing is changed then."""
    if isinstance(game_id, bool) or not isinstance(game_id, int):
        raise Malformed("game must be an id")
    game = Game.objects.filter(pk=game_id).first()
    if game is None:
        raise GameNotFound("no such game")
    if game.player_color(user_id) is None:
        raise NotAPlayer("only its players may look for a new opponent after it")
    if game.is_live:
        raise NoNewOpponent("the game is still being played")
    if game.event_type_id is not None:
        raise NoNewOpponent("a tournament or an arena pairs its players itself")
    quick = on_the_grid(game.base_seconds, game.increment_seconds)
    challenge = None
    with locks.atomic():
        offers = locks.lock_rows(
            Challenge.objects.filter(rematch_of=game, status=ChallengeStatus.OPEN),
            locks.Rank.CHALLENGE,
        )
        _lock_players([user_id])
        if _in_live_game(user_id):
            raise PlayerBusy("you are already in a live game")
        _rematches_answered(offers, user_id)
        if not quick:
            challenge = _open_challenge_like(game, user_id)
    if quick:
        pool = Pool(game.variant, game.base_seconds, game.increment_seconds, game.rated)
        return NewOpponent(pool=pool, game=pool_join(player_id=user_id, pool=pool, at_ms=at_ms))
    return NewOpponent(challenge=challenge)


def _rematches_answered(offers: list[Challenge], user_id: int) -> None:
    """The player looks elsewhere: their own rematch offer is withdrawn, the opponent's is
    declined (rows locked by the caller)."""
    for offer in offers:
        if offer.challenger_id == user_id:
            offer.status = ChallengeStatus.CANCELLED
        elif offer.opponent_id == user_id:
            offer.status = ChallengeStatus.DECLINED
        else:
            continue
        offer.save(update_fields=["status"])
        pushes.user_changed_on_commit(
            [offer.challenger_id, offer.opponent_id], messages.What.CHALLENGES
        )
    if offers:
        lobby_changed_on_commit()


def _open_challenge_like(game: Game, user_id: int) -> Challenge:
    """An open challenge with the game's variant, time control and rating (colour at random,
    as a seek in the lobby), or the same one already open."""
    same = Challenge.objects.filter(
        challenger_id=user_id,
        opponent__isnull=True,
        rematch_of__isnull=True,
        status=ChallengeStatus.OPEN,
        variant=game.variant,
        base_seconds=game.base_seconds,
        increment_seconds=game.increment_seconds,
        rated=game.rated,
    ).first()
    if same is not None:
        return same
    return challenge_create(
        challenger_id=user_id,
        variant_code=game.variant,
        base_seconds=game.base_seconds,
        increment_seconds=game.increment_seconds,
        color=ColorChoice.RANDOM,
        rated=game.rated,
    )
