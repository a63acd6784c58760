"""What joining through a sign-up link does besides making the account (RULES 10.6).

A link with an empty `purpose` only lets its holders sign up, counted on the link. A feature
that hands out links for more (joining a club, an event) registers its purpose here, from its
AppConfig.ready(), and makes its links with `services.signup_link_create(purpose=…,
target_id=…)`; `joined` runs in the sign-up's own transaction, so a failure undoes the account
and the link's use with it. Accounts sits below those features: they register, it never
imports them."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from accounts.models import SignupLink, User

# purpose -> what to do with the new account and the link (its target_id says on what).
PURPOSES: dict[str, Callable[..., None]] = {}


def register(purpose: str, on_join: Callable[..., None]) -> None:
    """`on_join(user=…, link=…)` is called for every sign-up through a link of `purpose`."""
    if purpose in PURPOSES and PURPOSES[purpose] is not on_join:
        raise ValueError(f"sign-up link purpose {purpose!r} is registered twice")
    PURPOSES[purpose] = on_join


def joined(*, user: User, link: SignupLink) -> None:
    if not link.purpose:
        return
    PURPOSES[link.purpose](user=user, link=link)
