"""Every form of the site under random input: never a 500, never an exception; a
bad value is a form with messages. `make attack` runs thousands more against real servers."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accounts.tests.factories import UserFactory

pytestmark = pytest.mark.django_db

hostile = st.one_of(
    st.text(max_size=40),
    # Any character a client can send (lone surrogates cannot be encoded at all).
    st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=300),
    st.sampled_from(
        [
            "",
            "America",
            "Europe",
            "Etc",
            "x" * 300,
            "../../etc/passwd",
            "\x00",
            "\u202e",
            "-1",
            "99999999999999999999",
            "1e9",
            "NaN",
            "custom",
            "thematic",
            "table3",
            "2020-01-01T10:00",
            "2030-13-45T99:99",
            "https://evil.example/",
            "//evil.example",
        ]
    ),
    st.integers(min_value=-(10**12), max_value=10**12).map(str),
)
FORMS = {
    "/accounts/signup/": ["username", "email", "password1", "password2"],
    "/accounts/login/": ["username", "password"],
    "/tournaments/new/": [
        "name", "description", "variant", "time_control", "base_minutes", "increment",
        "starts_at", "timezone", "seats", "minimum", "threshold", "opening_mode",
        "thematic_opening", "rated", "floor", "private", "password", "double_games",
    ],
    "/arenas/new/": [
        "name", "description", "variant", "time_control", "base_minutes", "increment",
        "starts_at", "timezone", "duration_minutes", "opening_mode", "thematic_opening",
        "rated", "floor", "private", "password", "club_only", "battle", "battle_clubs",
        "battle_top_n", "battle_club_q", "battle_search",
    ],
    "/clubs/new/": [
        "name", "short_name", "city", "province", "description", "fsi_code", "fid_code",
    ],
    "/tavolino/nuovo/": [
        "name", "variant", "cadence", "time_control", "format_choice", "rounds_wanted", "venue",
        "starts_on", "ends_on", "prohibited_rounds", "prohibit_club",
    ],
    "/play/": ["variant", "preset", "base_minutes", "increment_seconds", "color", "rated", "opponent"],
    "/accounts/password/reset/": ["email"],
    "/accounts/settings/email/": ["email", "password", "resend"],
    "/accounts/settings/language/": ["language"],
    "/accounts/settings/reminders/": [
        "remind_by_email", "remind_minutes", "remind_on_site", "remind_in_browser",
    ],
    "/accounts/settings/text-mode/": ["text_mode"],
    "/accounts/settings/delete/": ["password", "confirm"],
    "/accounts/unsubscribe/forged/": ["List-Unsubscribe"],
    "/i18n/setlang/": ["language", "next"],
    "/analysis/": ["variant", "text"],
    "/analysis/export/": ["variant", "start", "tree"],
}  # fmt: skip


@pytest.mark.parametrize("url", list(FORMS))
def test_no_form_answers_500(client, url):
    client.force_login(UserFactory())
    fields = FORMS[url]

    @settings(
        max_examples=40,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(st.fixed_dictionaries({}, optional={f: hostile for f in fields}))
    def post(data):
        cache.clear()  # the log-in throttle would otherwise answer 429 after a few tries
        response = client.post(url, data)
        assert response.status_code < 500, (url, data, response.status_code)

    post()
