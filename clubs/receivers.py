"""Everything the clubs app hooks into, in one place (imported by its `ready`): the sign-up
links' purpose (a sign-up through a club's invite joins it, RULES 12.4), the badge beside a
player's name (RULES 12.9), and what is personal to a player (the data download, the account's
deletion: accounts.personal)."""

from __future__ import annotations

from accounts import personal as account_data
from accounts import player_badges, signup_links
from clubs import personal, selectors, services
from clubs.models import LINK_PURPOSE

signup_links.register(LINK_PURPOSE, services.joined_through_link, selectors.invite_described)
player_badges.register(personal.badges)

account_data.register_section("clubs", personal.clubs_section)
account_data.register_locker(services.lock_for_deletion)
account_data.register_eraser(services.erase_for_deletion)
