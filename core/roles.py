"""Roles are Django groups with permissions. This module is the single list of what each role may
do; `manage.py setup_roles` applies it idempotently."""

from dataclasses import dataclass

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _


@dataclass(frozen=True)
class Role:
    group_name: str
    label: Promise
    permissions: tuple[str, ...]  # "app_label.codename"; "*" grants every permission


SALES_ENGINEER = Role(
    "sales-engineer",
    _("Sales engineer"),
    ("core.view_team",),
)
SALES_MANAGER = Role(
    "sales-manager",
    _("Sales manager"),
    (*SALES_ENGINEER.permissions,),
)
CATALOG_MANAGER = Role(
    "catalog-manager",
    _("Catalog manager"),
    ("core.view_team",),
)
ADMINISTRATOR = Role("administrator", _("Administrator"), ("*",))

ROLES: tuple[Role, ...] = (SALES_ENGINEER, SALES_MANAGER, CATALOG_MANAGER, ADMINISTRATOR)
