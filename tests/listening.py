"""Listening to a channel group from synchronous code (tests and benchmarks).

The channel layer (Redis pub/sub) keeps its subscriptions per event loop, so channels must be
created, added to the group and read in one loop: this runs them in a thread with its own loop
while the caller's code publishes.
"""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any


class GroupListener:
    def __init__(self, group: str, count: int = 1, timeout: float = 10.0) -> None:
        self.group, self.count, self.timeout = group, count, timeout
        self.received: list[tuple[float, dict[str, Any]]] = []  # (perf_counter, message)
        self._ready = threading.Event()
        self._thread = threading.Thread(target=lambda: asyncio.run(self._run()), daemon=True)

    async def _run(self) -> None:
        from channels.layers import get_channel_layer

        layer = get_channel_layer()
        names = [await layer.new_channel() for _ in range(self.count)]
        for name in names:
            await layer.group_add(self.group, name)
        self._ready.set()
        deadline = time.monotonic() + self.timeout

        async def one(name: str) -> None:
            try:
                message = await asyncio.wait_for(
                    layer.receive(name), max(0.1, deadline - time.monotonic())
                )
            except TimeoutError:
                return
            self.received.append((time.perf_counter(), message))

        try:
            await asyncio.gather(*(one(name) for name in names))
        finally:
            for name in names:
                await layer.group_discard(self.group, name)
            await layer.flush()

    def __enter__(self) -> GroupListener:
        self._thread.start()
        if not self._ready.wait(self.timeout):
            raise TimeoutError(f"could not listen to {self.group}")
        return self

    def __exit__(self, *exc: object) -> None:
        self._thread.join(self.timeout + 5)

    def wait(self) -> list[tuple[float, dict[str, Any]]]:
        """Wait for one message per channel (or the timeout) and return what came."""
        self._thread.join(self.timeout + 5)
        return self.received
