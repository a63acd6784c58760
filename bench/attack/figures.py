"""The figures an attack prints: one line per scenario and a total. Every figure but the count
of requests is a failure: all zeros is the target (docs/benchmarks.md), and the run exits 1
otherwise."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

# key -> label; "requests" is the work done, "restarted" what the units healed (WORK),
# everything else must be zero.
LABELS = {
    "requests": "requests",
    "restarted": "processes restarted",
    "http_500": "HTTP 500",
    "no_response": "HTTP unanswered",
    "tracebacks": "tracebacks",
    "unanswered": "socket msgs unanswered",
    "closed": "sockets closed",
    "lost": "results lost",
    "doubled": "results doubled",
    "unsettled": "games unsettled",
    "missing_moves": "acked moves missing",
    "ghosts": "ghost presence rows",
    "offsite": "off-site redirects",
    "stored": "hostile values stored",
    "probes": "probes failed",
    "missed": "targets missed",
}
# Not failures: the work done, and the processes the units' Restart=always started again (each
# named in the scenario's lines: deploy/systemd/ heals a crash, the run still shows it).
WORK = ("requests", "restarted")


@dataclass
class Figures:
    name: str
    shown: tuple[str, ...]  # the figures this scenario measures, in order
    counts: Counter = field(default_factory=Counter)
    # (figure, what it points at, an example: the value that did it)
    details: list[tuple[str, str, str]] = field(default_factory=list)
    info: list[str] = field(default_factory=list)  # context (status codes, timings)

    def add(self, key: str, n: int = 1, detail: str | None = None, example: str = "") -> None:
        assert key in LABELS, key
        self.counts[key] += n
        if detail is not None and n:
            self.details.append((key, detail, example))

    @property
    def failures(self) -> int:
        return sum(n for k, n in self.counts.items() if k not in WORK)

    def line(self) -> str:
        figures = ", ".join(f"{LABELS[k]} {self.counts[k]}" for k in self.shown)
        return f"{self.name:<18} {figures}"


def total(results: list[Figures]) -> Figures:
    whole = Figures("TOTAL", tuple(LABELS))
    for result in results:
        whole.counts.update(result.counts)
    return whole


def grouped(details: list[tuple[str, str, str]], limit: int = 8) -> list[str]:
    """The details of each figure under its name, identical ones counted together (with the
    first example), most frequent first, at most `limit` kinds per figure."""
    lines = []
    for key in LABELS:
        counts = Counter(d for k, d, _ in details if k == key)
        if not counts:
            continue
        examples: dict[str, str] = {}
        for k, d, e in details:
            if k == key and e:
                examples.setdefault(d, e)
        lines.append(f"{LABELS[key]}:")
        for detail, n in counts.most_common(limit):
            shown = detail + (f"  e.g. {examples[detail]}" if detail in examples else "")
            lines.append(f"  {n:5d} x {shown}" if n > 1 else f"          {shown}")
        if len(counts) > limit:
            lines.append(f"          … and {len(counts) - limit} other kinds")
    return lines
