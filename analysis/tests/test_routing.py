"""RULES 14.5: analyses go to a queue of their own, which the tick's worker does not take."""

from __future__ import annotations

from django.conf import settings

from config.celery import app


def test_analysis_tasks_have_their_own_queue_and_the_tick_worker_not():
    route = app.amqp.router.route({}, "analysis.run")
    assert route["queue"].name == settings.ANALYSIS_QUEUE != settings.CELERY_TASK_DEFAULT_QUEUE
    assert app.amqp.router.route({}, "analysis.position")["queue"].name == settings.ANALYSIS_QUEUE
    assert app.amqp.router.route({}, "games.settle")["queue"].name == (
        settings.CELERY_TASK_DEFAULT_QUEUE
    )
    # This process is not the analysis worker: a worker started like it takes the default
    # queue only.
    assert not settings.ANALYSIS_WORKER
    assert [q.name for q in app.conf.task_queues] == [settings.CELERY_TASK_DEFAULT_QUEUE]
