"""Reads on accounts for the pages."""

from __future__ import annotations

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404

from accounts.models import User


def player_list(*, query: str = "") -> QuerySet[User]:
    players = User.objects.filter(is_active=True).order_by("username")
    if query:
        players = players.filter(username__icontains=query)
    return players


def player_get(*, username: str) -> User:
    return get_object_or_404(User, username__iexact=username, is_active=True)
