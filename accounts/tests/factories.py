from __future__ import annotations

import factory
from django.utils import timezone

from accounts.models import User

PASSWORD = "scacco-matto-42"


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = User
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"giocatore{n}")
    email = factory.LazyAttribute(lambda user: f"{user.username}@example.org")
    password = factory.PostGenerationMethodCall("set_password", PASSWORD)

    class Params:
        # `UserFactory(verified=True)`: the address shown to be theirs (RULES 10.1).
        verified = factory.Trait(email_verified_at=factory.LazyFunction(timezone.now))

    @factory.post_generation
    def saved(obj, create, extracted, **kwargs):
        if create:
            obj.save()
