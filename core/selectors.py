from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

from core.models import Team
from core.roles import ROLES, Role


def user_team(user: AbstractBaseUser | AnonymousUser) -> Team | None:
    membership = getattr(user, "membership", None)
    return membership.team if membership else None


def user_roles(user: AbstractBaseUser | AnonymousUser) -> list[Role]:
    if not user.is_authenticated:
        return []
    names = set(user.groups.values_list("name", flat=True))  # type: ignore[union-attr]
    return [role for role in ROLES if role.group_name in names]
