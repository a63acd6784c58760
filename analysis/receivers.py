"""Everything the analysis app hooks into, in one place (imported by `AnalysisConfig.ready`)."""

from __future__ import annotations

from accounts import personal
from analysis import tasks  # noqa: F401  (registered in every process, sent by name)
from analysis.personal import forget_requests, requests_section
from live import messages

# A game's analysis was queued, started, finished or failed: the analysis page of the game
# re-reads its panel (`analysis-changed`, static/js/analysis.js).
messages.register_what("analysis", {"game": int})

# The analyses a player asked for are in their data download, and their requests go with their
# account (accounts.personal, RULES 10.7).
personal.register_section("analysis_requests", requests_section)
personal.register_eraser(forget_requests)
