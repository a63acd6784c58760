"""RULES 4.1 validation on the form: each limit accepted, just beyond refused."""

from __future__ import annotations

import zoneinfo
from datetime import datetime, timedelta

import pytest
from django.utils import timezone

from tournaments.forms import TournamentForm

ROME = zoneinfo.ZoneInfo("Europe/Rome")
NOW = datetime(2026, 3, 10, 12, 0, 0, tzinfo=zoneinfo.ZoneInfo("UTC"))


def local(moment: datetime, zone=ROME) -> str:
    return moment.astimezone(zone).strftime("%Y-%m-%dT%H:%M:%S")


def data(**overrides) -> dict:
    values = {
        "name": "Torneo del martedì",
        "description": "",
        "variant": "italian",
        "time_control": "5+3",
        "starts_at": local(NOW + timedelta(hours=1)),
        "timezone": "Europe/Rome",
        "seats": "16",
        "minimum": "4",
        "threshold": "7",
        "opening_mode": "free",
        "rated": "on",
        "floor": "",
    }
    values.update(overrides)
    return {k: v for k, v in values.items() if v is not None}


def errors(**overrides) -> dict:
    form = TournamentForm(data(**overrides), now=NOW)
    form.is_valid()
    return form.errors


def test_defaults_are_valid():
    form = TournamentForm(data(), now=NOW)
    assert form.is_valid(), form.errors
    opts = form.to_options()
    assert (opts.base_seconds, opts.increment_seconds) == (300, 3)
    assert opts.rated and opts.floor is None and opts.password == ""


@pytest.mark.parametrize(
    ("delta", "ok"),
    [
        (timedelta(minutes=5), True),
        (timedelta(minutes=5) - timedelta(seconds=1), False),
        (timedelta(days=14), True),
        (timedelta(days=14, seconds=1), False),
    ],
)
def test_start_between_5_minutes_and_14_days(delta, ok):
    assert ("starts_at" not in errors(starts_at=local(NOW + delta))) is ok


def test_start_is_read_in_the_browser_zone_and_stored_in_utc():
    moment = NOW + timedelta(hours=3)
    form = TournamentForm(
        data(
            starts_at=local(moment, zoneinfo.ZoneInfo("America/New_York")),
            timezone="America/New_York",
        ),
        now=NOW,
    )
    assert form.is_valid(), form.errors
    assert form.cleaned_data["starts_at"] == moment
    assert form.zone().key == "America/New_York"


def test_unknown_zone_falls_back_to_rome():
    form = TournamentForm(data(timezone="Mars/Olympus"), now=NOW)
    assert form.is_valid(), form.errors
    assert form.cleaned_data["starts_at"] == NOW + timedelta(hours=1)


@pytest.mark.parametrize(
    ("seats", "ok"), [("4", True), ("3", False), ("200", True), ("201", False)]
)
def test_seats_4_to_200(seats, ok):
    assert ("seats" not in errors(seats=seats, minimum="4")) is ok


@pytest.mark.parametrize(
    ("minimum", "ok"), [("4", True), ("3", False), ("16", True), ("17", False)]
)
def test_minimum_4_to_seats(minimum, ok):
    assert ("minimum" not in errors(seats="16", minimum=minimum)) is ok


@pytest.mark.parametrize(
    ("threshold", "ok"), [("7", True), ("6", False), ("20", True), ("21", False)]
)
def test_threshold_7_to_20(threshold, ok):
    assert ("threshold" not in errors(threshold=threshold)) is ok


@pytest.mark.parametrize(
    ("floor", "ok"),
    [
        ("1000", True),
        ("2000", True),
        ("1500", True),
        ("900", False),
        ("2100", False),
        ("1050", False),
    ],
)
def test_floor_1000_to_2000_in_steps_of_100(floor, ok):
    assert ("floor" not in errors(floor=floor)) is ok


def test_floor_only_when_rated():
    assert "floor" in errors(floor="1200", rated=None)
    assert "floor" not in errors(floor="", rated=None)


@pytest.mark.parametrize("variant", ["chess", "international"])
@pytest.mark.parametrize("mode", ["table1", "table2", "table3", "table_all", "thematic"])
def test_table_and_thematic_refused_outside_italian_and_english(variant, mode):
    assert "opening_mode" in errors(variant=variant, opening_mode=mode, thematic_opening="1")


@pytest.mark.parametrize("variant", ["italian", "english"])
def test_thematic_accepted_on_draughts_and_needs_a_choice(variant):
    assert "opening_mode" not in errors(
        variant=variant, opening_mode="thematic", thematic_opening="12"
    )
    assert "thematic_opening" in errors(
        variant=variant, opening_mode="thematic", thematic_opening=""
    )
    assert "thematic_opening" in errors(
        variant=variant, opening_mode="thematic", thematic_opening="175"
    )


def test_english_thematic_labels_say_derived():
    form = TournamentForm(data(variant="english"), now=NOW)
    labels = [label for _value, label in form.fields["thematic_opening"].choices]
    assert len(labels) == 175  # the empty choice and the 174
    assert all("derived" in label for label in labels[1:])


def test_custom_time_control():
    form = TournamentForm(data(time_control="custom", base_minutes="7", increment="2"), now=NOW)
    assert form.is_valid(), form.errors
    assert (form.to_options().base_seconds, form.to_options().increment_seconds) == (420, 2)
    assert "base_minutes" in errors(time_control="custom", base_minutes="0", increment="0")
    assert "base_minutes" in errors(time_control="custom", base_minutes="", increment="")


def test_private_needs_a_password_of_eight_letters_at_least():
    assert "password" in errors(private="on", password="")
    # Four digits fell to fresh accounts guessing in turn: a new password is long enough.
    assert "password" in errors(private="on", password="1234")
    assert "password" in errors(private="on", password="segreta")
    form = TournamentForm(data(private="on", password="segreta!"), now=NOW)
    assert form.is_valid(), form.errors
    assert form.to_options().password == "segreta!"


def test_rated_hint_follows_double_games():
    hint = TournamentForm.rated_hint(data(opening_mode="table3"))
    assert hint.switched_off
    hint = TournamentForm.rated_hint(data(opening_mode="table3", double_games="on"))
    assert not hint.switched_off and hint.rated


def test_now_defaults_to_the_clock():
    form = TournamentForm(data(starts_at=local(timezone.now() + timedelta(minutes=30))))
    assert form.is_valid(), form.errors


@pytest.mark.django_db
def test_an_old_short_password_is_kept_on_edit_but_cannot_be_set_again():
    """No data migration: an event whose four-digit password predates the minimum is edited
    without retyping it and keeps it; typed again, it is refused like any new short one."""
    from django.contrib.auth.hashers import make_password

    from tournaments.tests.factories import TournamentFactory

    tournament = TournamentFactory(password_hash=make_password("1234"))
    form = TournamentForm(data(private="on", password=""), instance=tournament, now=NOW)
    assert form.is_valid(), form.errors
    assert form.to_options().password is None  # None: the current password stays
    form = TournamentForm(data(private="on", password="1234"), instance=tournament, now=NOW)
    assert not form.is_valid() and "password" in form.errors
