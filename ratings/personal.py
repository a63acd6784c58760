"""The ratings' part of the data download (accounts.personal): every rating of the player, one
per variant and cadence, with its history."""

from __future__ import annotations

from django.db.models import Prefetch

from ratings.models import Rating, RatingChange


def ratings_section(user) -> list[dict]:
    ratings = (
        Rating.objects.filter(player=user)
        .prefetch_related(
            Prefetch("history", queryset=RatingChange.objects.order_by("created_at", "id"))
        )
        .order_by("variant", "cadence")
    )
    return [
        {
            "variant": rating.variant,
            "cadence": rating.cadence,
            "value": rating.value,
            "rated_games": rating.games,
            "peak": rating.peak,
            "history": [
                {
                    "at": change.created_at.isoformat(),
                    "before": change.before,
                    "after": change.after,
                    "delta": change.delta,
                    "games": change.games,
                    "score": str(change.score),
                }
                for change in rating.history.all()
            ],
        }
        for rating in ratings
    ]
