"""The live layer's periodic work (scheduled in config/celery.py)."""

from __future__ import annotations

from celery import shared_task

from live import heartbeat, presence, pushes


@shared_task(name="live.heartbeat", ignore_result=True)
def worker_heartbeat() -> None:
    """Every tick: the worker says it is alive (/healthz), and rows of dead processes that no
    app swept are removed."""
    heartbeat.record(heartbeat.WORKER)
    presence.sweep()


@shared_task(name="live.push", ignore_result=True)
def push(group: str, message: dict) -> None:
    """The trailing push of a throttled group (`pushes.group_send_throttled_on_commit`)."""
    pushes.mark_pushed(group)  # its changes were counted when they came
    pushes.group_send(group, message)
