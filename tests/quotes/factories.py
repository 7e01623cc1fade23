"""Test data for quotes: a few real products from the catalog seed (loaded through the catalog's
own loader, with their sample prices, tiers and costs), customers, and sized designs written
directly as `planner.models.Design` rows with a known bill of materials."""

import functools
import json
from decimal import Decimal

import factory

from catalog.services import SEED_PATH, catalog_load
from catalog.snapshot import snapshot_from_seed
from customers.models import Customer
from engine.request import parse_request
from engine.serialize import design_to_dict
from engine.sizing import size
from planner.models import Design
from quotes.models import DiscountPolicy, PolicyMetric
from tests.core.factories import TeamFactory

# The SKUs the test design uses, and the services every quote adds.
SEED_SKUS = (
    "MCX623106AN-CDAT",  # NIC, 2 x 100G, list 7,800.00 CNY, cost 5,070.00
    "MSN2700-CS2F",  # switch 32 x 100G, list 96,000.00, cost 62,400.00
    "MCP1600-C002E30N",  # 100G DAC 2 m, list 600.00, tiers >=100: 570.00, >=500: 540.00
    "MSN2201-CB2F",  # management switch, list 22,000.00, cost 14,300.00
    "CAT6A-RJ45-3M",  # management patch cord, list 25.00, cost 16.00
    "EZMAX-QSFP28-100G-SR4",  # optics, list 980.00, tiers >=100: 931.00
    "EZMAX-SVC-POC",  # 0.00
    "EZMAX-SVC-INSTALL-DAY",  # 3,000.00 per engineer-day, cost 1,950.00
    "EZMAX-SVC-SUPPORT-YEAR",  # 50,000.00 per year, cost 32,500.00 (flat: older quotes)
    "EZMAX-SVC-SUPPORT-SWITCH-YEAR",  # 25,000.00 per switch-year, cost 16,250.00
    "EZMAX-SVC-SUPPORT-GPU-YEAR",  # 2,000.00 per GPU-year, cost 1,300.00
)


def load_seed_subset(skus=SEED_SKUS):
    from tests.conftest import load_catalog_once

    return load_catalog_once(("subset", tuple(skus)), lambda: _load_subset(skus))


def _load_subset(skus):
    data = json.loads(SEED_PATH.read_text(encoding="utf-8"))
    wanted = set(skus)
    data["products"] = [p for p in data["products"] if p["sku"] in wanted]
    data["media_rules"] = []
    for price_list in data["price_lists"]:
        price_list["prices"] = [p for p in price_list["prices"] if p["sku"] in wanted]
    return catalog_load(data)


# A 32-GPU cluster: 4 servers x 8 GPUs, one 100G NIC per GPU, one leaf; a management network.
SMALL_BOM = [
    {"sku": "MCX623106AN-CDAT", "description": "ConnectX-6 Dx 2x100G", "quantity": 32,
     "plane": "compute", "tier": "server", "category": "nic", "power_w": 800, "rack_units": 0},
    {"sku": "MSN2700-CS2F", "description": "SN2700 32x100G", "quantity": 1,
     "plane": "compute", "tier": "leaf", "category": "switch", "power_w": 136, "rack_units": 1},
    {"sku": "MCP1600-C002E30N", "description": "100G DAC 2 m", "quantity": 32,
     "plane": "compute", "tier": "server-leaf", "category": "cable", "power_w": 0,
     "rack_units": 0},
    {"sku": "MSN2201-CB2F", "description": "SN2201 management", "quantity": 1,
     "plane": "oob", "tier": "leaf", "category": "switch", "power_w": 70, "rack_units": 1},
    {"sku": "CAT6A-RJ45-3M", "description": "Cat6A 3 m", "quantity": 4,
     "plane": "oob", "tier": "server-leaf", "category": "cable", "power_w": 0, "rack_units": 0},
]  # fmt: skip


@functools.cache
def _sized_frame() -> dict:
    """A real engine result for the same 32 GPUs on the seed catalog (every field the stored
    result's codec requires), whose BOM the tests then replace with SMALL_BOM's known SKUs."""
    catalog = snapshot_from_seed(json.loads(SEED_PATH.read_text(encoding="utf-8")))
    fields = {"gpus": 32, "gpus_per_server": 8, "nic_speed": 100, "leaf": "MSN2700-CS2F",
              "fabric": "rail", "oversubscription": 1}  # fmt: skip
    return design_to_dict(size(parse_request(fields, catalog), catalog))


def small_result():
    result = json.loads(json.dumps(_sized_frame()))  # a fresh copy each time
    result["bom"] = [
        {"power_max_w": line["power_w"], "catalog_gap": False, **line} for line in SMALL_BOM
    ]
    result["warnings"] = []
    return result


class CustomerFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Customer

    name_en = factory.Sequence(lambda n: f"Example AI Lab {n}")
    name_zh = ""
    preferred_language = "en"
    team = factory.SubFactory(TeamFactory, name="Team A")


class DesignFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Design

    name = factory.Sequence(lambda n: f"32-GPU cluster {n}")
    owner = None  # required: pass owner=
    team = factory.LazyAttribute(lambda o: o.owner.membership.team)
    is_draft = False
    request = factory.LazyFunction(lambda: {"gpus": 32, "gpus_per_server": 8})
    result = factory.LazyFunction(small_result)
    gpus = 32


def manager_policy(metric=PolicyMetric.DISCOUNT_PERCENT, threshold="10", currency=""):
    from django.contrib.auth.models import Group

    group, _ = Group.objects.get_or_create(name="sales-manager")
    return DiscountPolicy.objects.create(
        name=f"{PolicyMetric(metric).label} {threshold}",
        metric=metric,
        threshold=Decimal(threshold),
        currency=currency,
        approver_group=group,
    )
