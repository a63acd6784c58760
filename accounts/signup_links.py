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
# purpose -> what the sign-up page says such a link does, in its feature's words.
DESCRIPTIONS: dict[str, Callable[..., str]] = {}


def register(
    purpose: str, on_join: Callable[..., None], describe: Callable[..., str] | None = None
) -> None:
    """`on_join(user=…, link=…)` is called for every sign-up through a link of `purpose`;
    `describe(link=…, state=…)` says, over the sign-up form, what the link joins while it is
    open and, once it is closed (`SignupLink.state`), that signing up no longer joins it."""
    if purpose in PURPOSES and PURPOSES[purpose] is not on_join:
        raise ValueError(f"sign-up link purpose {purpose!r} is registered twice")
    PURPOSES[purpose] = on_join
    if describe is not None:
        DESCRIPTIONS[purpose] = describe


def described(*, link: SignupLink, state: str) -> str:
    """What the sign-up page says of a link with a purpose before the form is filled in; ""
    for a plain link (the page's own words then)."""
    describe = DESCRIPTIONS.get(link.purpose)
    return describe(link=link, state=state) if describe is not None else ""


def joined(*, user: User, link: SignupLink) -> None:
    if not link.purpose:
        return
    PURPOSES[link.purpose](user=user, link=link)
