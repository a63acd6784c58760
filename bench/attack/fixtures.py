"""What the attack needs in the database, written by the attacker's own Django process through
the site's services (accounts, sessions, events, games). Every name carries the run's tag, so
a run on a database already in use (DATABASE_URL set) collides with nothing."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any

# The benches' one way to sign a client in (re-exported: the scenarios call fixtures.session_cookie).
from bench.live import session_cookie  # noqa: F401

PASSWORD = "Correct-Horse-42"
TAG = os.urandom(2).hex()


def django_setup(env: dict[str, str]) -> None:
    """Django in this process with the site's settings (the same secret key, so the sessions
    written here are the site's)."""
    for key in ("SECRET_KEY", "VAR_DIR", "DJANGO_SETTINGS_MODULE"):
        os.environ[key] = env[key]
    import logging

    import django

    django.setup()
    # The site's own code runs here too (services opening games, their pushes): what it logs
    # in the attacker's process is not the site's, and would only clutter the report.
    logging.disable(logging.CRITICAL)


def db(func: Callable[..., Any], *args: Any, attempts: int = 1, **kwargs: Any) -> Any:
    """Run one database step; a connection broken by an outage is dropped, not reused."""
    from django.db import close_old_connections, connections

    for attempt in range(attempts):
        close_old_connections()
        try:
            return func(*args, **kwargs)
        except Exception:
            connections.close_all()
            if attempt == attempts - 1:
                raise
            time.sleep(1.0)
    return None


def name(kind: str, i: int | str = "") -> str:
    return f"x{TAG}{kind}{i}"[:20]


def users(names: list[str], *, staff: bool = False, active: bool = True) -> list[Any]:
    from django.contrib.auth.hashers import make_password

    from accounts.models import User

    password = make_password(PASSWORD)
    created = User.objects.bulk_create(
        User(username=n, password=password, is_staff=staff, is_active=active) for n in names
    )
    return list(User.objects.filter(pk__in=[u.pk for u in created]).order_by("pk"))


def user(username: str, **kwargs: Any) -> Any:
    return users([username], **kwargs)[0]


def _event_options(private: bool) -> dict[str, Any]:
    from django.utils import timezone

    return {
        "name": f"Attack {TAG}",
        "description": "",
        "variant": "chess",
        "base_seconds": 300,
        "increment_seconds": 3,
        "starts_at": timezone.now() + timedelta(days=3),
        "opening_mode": "free",
        "thematic_opening": None,
        "rated": True,
        "floor": None,
        "password": PASSWORD if private else "",
    }


def tournament(opener: Any, *, private: bool = False) -> Any:
    from tournaments.services import TournamentOptions, tournament_create

    data = TournamentOptions(
        **_event_options(private),
        seats=16,
        minimum=4,
        threshold=7,
        extra_round=False,
        double_games=False,
    )
    return tournament_create(opener=opener, data=data)


def arena(opener: Any, *, private: bool = False) -> Any:
    from arena.services import ArenaOptions, arena_create

    return arena_create(
        opener=opener, data=ArenaOptions(**_event_options(private), duration_minutes=60)
    )


def live_game(
    white: Any, black: Any, *, variant: str = "chess", base_seconds: int = 3 * 3600
) -> Any:
    from games.services import game_open

    return game_open(
        white_id=white.pk,
        black_id=black.pk,
        variant_code=variant,
        base_seconds=base_seconds,
        increment_seconds=0,
        rated=False,
    )


def challenge_game(
    white_id: int, black_id: int, *, base_seconds: int, increment_seconds: int, rated: bool = True
) -> int:
    """A game opened the way players open one: a challenge addressed to the opponent, accepted."""
    from games.services import challenge_accept, challenge_create

    challenge = challenge_create(
        challenger_id=white_id,
        opponent_id=black_id,
        variant_code="chess",
        base_seconds=base_seconds,
        increment_seconds=increment_seconds,
        color="white",
        rated=rated,
    )
    return challenge_accept(challenge_id=challenge.pk, user_id=black_id).pk
