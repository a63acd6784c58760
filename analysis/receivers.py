"""Everything the analysis app hooks into, in one place (imported by `AnalysisConfig.ready`)."""

from __future__ import annotations

from analysis import tasks  # noqa: F401  (registered in every process, sent by name)
from live import messages

# A game's analysis was queued, started, finished or failed: the analysis page of the game
# re-reads its panel (`analysis-changed`, static/js/analysis.js).
messages.register_what("analysis", {"game": int})
