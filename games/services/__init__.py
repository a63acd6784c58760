"""Writing games (RULES 1, 3): the only package that changes `Game` rows.

- `acting`: the prologue every player action shares (the row lock, the flag first, the ply),
  the end of a game, the push with its version — and the locking contract;
- `store`: the locked read and the write, SQL built once (the hot path);
- `memory`: the live games a socket process remembers (a plain move is one statement) and the
  boards moves left for the next move;
- `state`: the state clients receive, pushed after commit; settling a finished game;
- `play`: opening a game, moves, resignation;
- `draws`: offers, acceptance, claims;
- `presence`: who sits at a game;
- `due`: the tick's work (flags, abandonment, end by the event, settling);
- `challenges`: posting, accepting, cancelling; rematches;
- `pools`: quick pairing (waiting in a pool, the pairing passes);
- `after`: after a game, "Nuovo avversario" (the same pool again, or the same open challenge);
- `errors`: the refusals, with the codes clients receive.
"""

from games.services.acting import ANY_PLY, acting
from games.services.after import NewOpponent, new_opponent_seek
from games.services.challenges import (
    MAX_OPEN_CHALLENGES,
    challenge_accept,
    challenge_cancel,
    challenge_create,
    rematch_offer,
)
from games.services.draws import (
    game_draw_accept,
    game_draw_claim,
    game_draw_decline,
    game_draw_offer,
)
from games.services.due import (
    ABANDON_AFTER_MS,
    game_abandon,
    game_end_by_event,
    game_flag,
    game_settle,
    games_due_process,
    games_settle_due,
)
from games.services.errors import (
    AmbiguousMove,
    ChallengeGone,
    GameError,
    GameNotFound,
    GameOver,
    IllegalMoveError,
    Malformed,
    NoAbort,
    NoBoost,
    NoDrawOffer,
    NoDrawToClaim,
    NoMoreTime,
    NoNewOpponent,
    NoTakeback,
    NotAPlayer,
    NotYourTurn,
    OpponentUnavailable,
    PlayerBusy,
    StalePly,
    TooManyChallenges,
    UnreadableMove,
)
from games.services.play import (
    MAX_MOVE_LENGTH,
    game_abort,
    game_boost,
    game_move,
    game_move_typed,
    game_open,
    game_resign,
    games_open,
)
from games.services.pools import (
    POOL_TOPIC,
    QUICK_TIME_CONTROLS,
    Pool,
    on_the_grid,
    pool_join,
    pool_leave,
    pool_left_page,
    pools_pair_due,
)
from games.services.presence import game_presence, presence_sweep
from games.services.state import (
    LOBBY_GROUP,
    clock_figures,
    game_state,
    group_name,
    now_ms,
    topic,
)
from games.services.takebacks import (
    MORE_TIME_MS,
    game_more_time,
    game_takeback_accept,
    game_takeback_decline,
    game_takeback_offer,
)

__all__ = [
    "ABANDON_AFTER_MS",
    "ANY_PLY",
    "LOBBY_GROUP",
    "MORE_TIME_MS",
    "MAX_OPEN_CHALLENGES",
    "MAX_MOVE_LENGTH",
    "POOL_TOPIC",
    "QUICK_TIME_CONTROLS",
    "AmbiguousMove",
    "ChallengeGone",
    "GameError",
    "GameNotFound",
    "GameOver",
    "IllegalMoveError",
    "Malformed",
    "NewOpponent",
    "NoAbort",
    "NoBoost",
    "NoMoreTime",
    "NoTakeback",
    "NoNewOpponent",
    "NoDrawOffer",
    "NoDrawToClaim",
    "NotAPlayer",
    "NotYourTurn",
    "OpponentUnavailable",
    "PlayerBusy",
    "Pool",
    "StalePly",
    "TooManyChallenges",
    "UnreadableMove",
    "acting",
    "game_move_typed",
    "challenge_accept",
    "challenge_cancel",
    "challenge_create",
    "clock_figures",
    "game_abandon",
    "game_abort",
    "game_boost",
    "game_draw_accept",
    "game_draw_claim",
    "game_draw_decline",
    "game_draw_offer",
    "game_end_by_event",
    "game_flag",
    "game_move",
    "game_open",
    "game_presence",
    "game_more_time",
    "game_resign",
    "game_takeback_accept",
    "game_takeback_decline",
    "game_takeback_offer",
    "game_settle",
    "game_state",
    "games_due_process",
    "games_open",
    "games_settle_due",
    "group_name",
    "new_opponent_seek",
    "now_ms",
    "on_the_grid",
    "pool_join",
    "pool_leave",
    "pool_left_page",
    "pools_pair_due",
    "presence_sweep",
    "rematch_offer",
    "topic",
]
