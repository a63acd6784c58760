from __future__ import annotations

app_name = "ratings"
urlpatterns: list = []
