"""The admin in Italian: saved messages with the noun's article and
gender ("L'arena «…» è stata modificata", not "Il arena … è stato modificato"), and no field
label left in English ("Pairing due at", "Next due at", "Seed", …)."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

import pytest
from django.contrib import admin
from django.contrib.auth.models import Group
from django.db import models
from django.urls import reverse
from django.utils import translation
from django.utils.functional import Promise
from django.utils.text import capfirst

from accounts.admin_messages import FEMININE, MASCULINE, NamedModelAdmin
from accounts.tests.factories import UserFactory
from arena.models import Arena
from arena.tests.factories import ArenaFactory, EntryFactory
from games.models import Challenge
from games.services import game_resign
from games.services.due import game_settle
from games.tests.factories import T0, open_game
from tournaments.models import Tournament
from tournaments.tests.factories import RegistrationFactory, TournamentFactory

pytestmark = pytest.mark.django_db


class FormValues(HTMLParser):
    """The values a browser would send back from the page's main form, as they are."""

    def __init__(self) -> None:
        super().__init__()
        self.data: dict[str, list[str]] = {}
        self._select: str | None = None
        self._first_option: str | None = None
        self._textarea: str | None = None
        self._in_form = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form" and a.get("id", "").endswith("_form"):
            self._in_form = True
        if not self._in_form:
            return
        name = a.get("name")
        if tag == "input" and name and a.get("type") not in ("submit", "button", "file"):
            if a.get("type") in ("checkbox", "radio") and "checked" not in a:
                return
            default = "on" if a.get("type") in ("checkbox", "radio") else ""
            self.data.setdefault(name, []).append(a.get("value", default))
        elif tag == "select" and name:
            self._select = name
            self._first_option = None
            self.data.setdefault(name, [])
        elif tag == "option" and self._select:
            if self._first_option is None:
                self._first_option = a.get("value", "")
            if "selected" in a:
                self.data[self._select].append(a.get("value", ""))
        elif tag == "textarea" and name:
            self._textarea = name
            self.data[name] = [""]

    def handle_data(self, data):
        if self._textarea:
            self.data[self._textarea][0] += data

    def handle_endtag(self, tag):
        if tag == "select":
            if self._select and not self.data[self._select] and self._first_option is not None:
                self.data[self._select].append(self._first_option)  # what a browser sends
            self._select = None
        elif tag == "textarea":
            self._textarea = None
        elif tag == "form":
            self._in_form = False


def resubmit(client, url: str, **extra: str):
    """Open a change form and save it as it is (plus `extra`), following the redirect."""
    parser = FormValues()
    parser.feed(client.get(url).content.decode())
    data = {k: v for k, v in parser.data.items()}
    data.update({k: [v] for k, v in extra.items()})
    return client.post(url, data, follow=True)


def messages_of(response) -> list[str]:
    """The messages as read: without their links, entities unescaped."""
    return [html.unescape(re.sub(r"<[^>]+>", "", str(m))) for m in response.context["messages"]]


@pytest.fixture
def staff(client):
    boss = UserFactory(username="boss", is_staff=True, is_superuser=True)
    client.force_login(boss)
    client.cookies.load({"django_language": "it"})
    return boss


def test_every_model_in_the_admin_says_its_article_and_gender() -> None:
    for model, model_admin in admin.site._registry.items():
        assert isinstance(model_admin, NamedModelAdmin), model._meta.label
        noun = model_admin.noun
        assert noun.gender in (MASCULINE, FEMININE), model._meta.label
        assert isinstance(noun.the_name, Promise) and isinstance(noun.another, Promise)
        # The noun names this model: its verbose name follows the article.
        assert str(model._meta.verbose_name) in str(noun.the_name), model._meta.label


def test_an_arena_changed_in_the_admin_is_feminine(client, staff) -> None:
    arena = ArenaFactory(name="Arena del mercoledì")
    url = reverse("admin:arena_arena_change", args=[arena.pk])
    response = resubmit(client, url, name="Arena del giovedì", _save="Salva")
    assert response.status_code == 200
    form = response.context.get("adminform")
    assert form is None, form.form.errors
    (message,) = messages_of(response)
    assert message == "L'arena «Arena del giovedì» è stata modificata."
    assert f'href="{url}"' in str(list(response.context["messages"])[0])  # links to the arena
    assert Arena.objects.get(pk=arena.pk).name == "Arena del giovedì"
    assert "Il arena" not in response.content.decode()

    again = resubmit(client, url, _continue="Salva e continua")
    (message,) = messages_of(again)
    assert message == (
        "L'arena «Arena del giovedì» è stata modificata. Puoi modificarla di nuovo qui sotto."
    )


def test_a_tournament_changed_and_deleted_in_the_admin_is_masculine(client, staff) -> None:
    tournament = TournamentFactory(name="Coppa d'inverno")
    url = reverse("admin:tournaments_tournament_change", args=[tournament.pk])
    response = resubmit(client, url, _addanother="Salva e aggiungi")
    (message,) = messages_of(response)
    assert message == (
        "Il torneo «Coppa d'inverno» è stato modificato. Puoi aggiungere un altro torneo qui sotto."
    )

    delete = reverse("admin:tournaments_tournament_delete", args=[tournament.pk])
    response = client.post(delete, {"post": "yes"}, follow=True)
    assert messages_of(response) == ["Il torneo «Coppa d'inverno» è stato eliminato."]
    assert not Tournament.objects.exists()


def test_bulk_delete_and_other_models(client, staff) -> None:
    challenges = [
        Challenge.objects.create(
            challenger=staff, variant="chess", base_seconds=180, increment_seconds=2
        )
        for _ in range(2)
    ]
    response = client.post(
        reverse("admin:games_challenge_changelist"),
        {
            "action": "delete_selected",
            "_selected_action": [c.pk for c in challenges],
            "post": "yes",
        },
        follow=True,
    )
    assert messages_of(response) == ["2 sfide eliminate."]

    group = Group.objects.create(name="arbitri")
    response = resubmit(client, reverse("admin:auth_group_change", args=[group.pk]), _save="1")
    assert messages_of(response) == ["Il gruppo «arbitri» è stato modificato."]

    response = client.post(
        reverse("admin:auth_group_add"), {"name": "istruttori", "_save": "1"}, follow=True
    )
    assert messages_of(response) == ["Il gruppo «istruttori» è stato aggiunto."]


def test_the_english_admin_says_the_same(client, staff) -> None:
    client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    arena = ArenaFactory(name="Wednesday arena")
    response = resubmit(client, reverse("admin:arena_arena_change", args=[arena.pk]), _save="1")
    (message,) = messages_of(response)
    assert message == "The arena “Wednesday arena” was changed."


# --- labels ----------------------------------------------------------------------------------


def admin_models() -> set:
    """Every model the admin shows: registered, or inline in a registered one's page."""
    found = set(admin.site._registry)
    for model_admin in admin.site._registry.values():
        found.update(inline.model for inline in model_admin.inlines)
    return found


def admin_fields():
    for model in admin_models():
        for field in model._meta.get_fields():
            if isinstance(field, models.Field) and field.concrete and not field.auto_created:
                yield model, field


def test_every_field_in_the_admin_has_a_translated_label() -> None:
    """A field without a verbose name shows Django's English one ("pairing due at")."""
    untranslated = [
        f"{model._meta.label}.{field.name}"
        for model, field in admin_fields()
        if model is not Group and not isinstance(field.verbose_name, Promise)
    ]
    assert untranslated == []


def english_leftovers() -> set[str]:
    """The labels Django would make up from the field names: "Pairing due at", "Seed", …"""
    with translation.override("it"):
        return {
            capfirst(field.name.replace("_", " "))
            for _, field in admin_fields()
            if field.name.replace("_", " ") != str(field.verbose_name)
        } - {"Id"}


def test_admin_pages_show_no_english_label(client, staff) -> None:
    game = open_game()
    game_resign(game_id=game.pk, user_id=game.white_id, at_ms=T0 + 1)
    game_settle(game_id=game.pk)
    arena = ArenaFactory()
    EntryFactory(arena=arena, player=staff)
    tournament = TournamentFactory()
    RegistrationFactory(tournament=tournament, player=staff)
    Challenge.objects.create(
        challenger=staff, variant="chess", base_seconds=60, increment_seconds=0
    )
    leftovers = english_leftovers()
    assert {"Pairing due at", "Next due at", "Seed"} <= leftovers
    pages = 0
    for model in admin.site._registry:
        opts = model._meta
        changelist = reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist")
        urls = [changelist]
        first = model.objects.first()
        if first is not None:
            urls.append(
                reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[first.pk])
            )
        for url in urls:
            page = client.get(url).content.decode()
            found = [w for w in leftovers if re.search(rf">\s*{re.escape(w)}:?\s*<", page)]
            assert found == [], (url, found)
            pages += 1
    assert pages >= 20
