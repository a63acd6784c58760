"""Another visitor while a scenario floods the site: one page loaded again and again, one request
at a time, each answer's time kept under the phase it fell in ("quiet" before the flood,
"during" it). The target of every flood of the new surfaces (mails, archives, exports,
deletions): the bystander's p99 during the flood stays under FACTOR times its quiet p99.

A quiet p99 below QUIET_FLOOR_MS is taken as QUIET_FLOOR_MS: at a few milliseconds the
scheduler's and the clients' own jitter on this 2-core machine is as large as the page, and twice
nothing is no target a flood could be judged by.

    watcher = Bystander(port, f"/games/{game_id}/")
    with watcher:                      # the thread starts in phase "quiet"
        time.sleep(5)
        watcher.phase = "during"
        ... the flood ...
    watcher.judge(figures, "the archive flood")
"""

from __future__ import annotations

import threading
import time

from bench.attack.client import Browser
from bench.attack.figures import Figures
from bench.attack.flood import pct

FACTOR = 2.0
QUIET_FLOOR_MS = 20.0


class Bystander:
    def __init__(
        self,
        port: int,
        path: str,
        *,
        cookies: dict[str, str] | None = None,
        source: str = "127.0.0.99",
        pause: float = 0.05,
    ) -> None:
        self.browser = Browser(port, source=source, cookies=dict(cookies or {}), timeout=30.0)
        self.path = path
        self.pause = pause
        self.phase = "quiet"
        self.latencies: dict[str, list[float]] = {}
        self.failures: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="bystander", daemon=True)

    def _loop(self) -> None:
        while not self._stop.is_set():
            phase = self.phase
            began = time.monotonic()
            response = self.browser.get(self.path)
            took = (time.monotonic() - began) * 1000
            if response.status != 200:
                self.failures.append(f"{phase}: {response.status} {response.error}".strip())
            self.latencies.setdefault(phase, []).append(took)
            self._stop.wait(self.pause)

    def __enter__(self) -> Bystander:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=60)
        self.browser.close()

    def judge(self, figures: Figures, flood: str) -> None:
        """One info line with both phases; a missed target when the p99 during the flood is not
        under FACTOR times the quiet one (floored), or when a page was not answered 200."""
        quiet = self.latencies.get("quiet", [])
        during = self.latencies.get("during", [])
        quiet_p99, during_p99 = pct(quiet, 0.99), pct(during, 0.99)
        bound = FACTOR * max(quiet_p99, QUIET_FLOOR_MS)
        figures.add("requests", len(quiet) + len(during))
        figures.info.append(
            f"another visitor's {self.path}: quiet p50 {pct(quiet, 0.5):.1f} / p99 "
            f"{quiet_p99:.1f} ms ({len(quiet)}), during {flood} p50 {pct(during, 0.5):.1f} / "
            f"p99 {during_p99:.1f} ms ({len(during)}); target p99 < {bound:.0f} ms"
        )
        if not quiet or not during or not during_p99 < bound:
            figures.add(
                "missed",
                detail=f"another visitor's page p99 during {flood} {during_p99:.0f} ms "
                f"(target < {bound:.0f} ms, {FACTOR:g}x the quiet {quiet_p99:.0f} ms)",
            )
        for failure in self.failures[:5]:
            figures.add("missed", detail=f"another visitor's page not answered: {failure}")
