"""Everything the over-the-board tournaments hook into (imported once, by OtbConfig.ready).
Nothing of the events: no kind is registered, so the one-live-event rule never counts one."""

from __future__ import annotations

from accounts import personal as account_data
from otb import personal

account_data.register_section("otb", personal.otb_section)
