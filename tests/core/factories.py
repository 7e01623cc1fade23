import factory

from core.models import Team
from core.roles import SALES_ENGINEER
from core.services import user_create


class TeamFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Team
        django_get_or_create = ("name",)

    name = factory.Sequence(lambda n: f"Team {n}")


class UserFactory(factory.Factory):
    """A user created the way production creates one (`core.services.user_create`): with a role
    (group) and a team. The password is always "pw-<username>"."""

    class Meta:
        model = dict  # built through the service, see _create

    username = factory.Sequence(lambda n: f"user{n}")
    role = SALES_ENGINEER
    team_name = "Team A"

    @classmethod
    def _create(cls, model_class, *, username, role, team_name, **kwargs):
        return user_create(
            username=username, password=f"pw-{username}", role=role, team_name=team_name, **kwargs
        )
