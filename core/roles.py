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


# The catalog's models: everyone may view them, the catalog manager edits them.
CATALOG_MODELS = (
    "vendor",
    "product",
    "nicspec",
    "transceiverspec",
    "transceiverreach",
    "cablespec",
    "switchspec",
    "portgroup",
    "portbreakout",
    "servicespec",
    "serverspec",
    "mediarule",
    "patchpanelspec",
    "pricelist",
    "price",
    "pricetier",
    "contractprice",
)
CATALOG_VIEW = tuple(f"catalog.view_{model}" for model in CATALOG_MODELS)
CATALOG_EDIT = tuple(
    f"catalog.{action}_{model}"
    for model in CATALOG_MODELS
    for action in ("add", "change", "delete")
)
# Cost and margin: managers only (sales manager, catalog manager, administrator via "*").
CATALOG_VIEW_COST = "catalog.view_cost"

# Designs: engineers size, save and copy them; who sees which is decided by planner.selectors.
PLANNER_WORK = ("planner.view_design", "planner.add_design", "planner.change_design")

# Quotes: engineers quote their designs and keep customers; who sees which quote is decided by
# quotes.selectors. Sales managers also approve above the discount policy and see margins.
QUOTE_WORK = (
    "quotes.view_quote",
    "quotes.add_quote",
    "quotes.change_quote",
    "customers.view_customer",
    "customers.add_customer",
    "customers.change_customer",
    "customers.view_contact",
    "customers.add_contact",
    "customers.change_contact",
    "customers.view_opportunity",
    "customers.add_opportunity",
    "customers.change_opportunity",
)
QUOTE_MANAGE = ("quotes.approve_quote", "quotes.view_margin")

SALES_ENGINEER = Role(
    "sales-engineer",
    _("Sales engineer"),
    ("core.view_team", *CATALOG_VIEW, *PLANNER_WORK, *QUOTE_WORK),
)
SALES_MANAGER = Role(
    "sales-manager",
    _("Sales manager"),
    (*SALES_ENGINEER.permissions, CATALOG_VIEW_COST, *QUOTE_MANAGE),
)
CATALOG_MANAGER = Role(
    "catalog-manager",
    _("Catalog manager"),
    ("core.view_team", *CATALOG_VIEW, *CATALOG_EDIT, CATALOG_VIEW_COST),
)
ADMINISTRATOR = Role("administrator", _("Administrator"), ("*",))

ROLES: tuple[Role, ...] = (SALES_ENGINEER, SALES_MANAGER, CATALOG_MANAGER, ADMINISTRATOR)
