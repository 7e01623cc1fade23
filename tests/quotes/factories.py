"""Test data for quotes: a few real products from the catalog seed (loaded through the catalog's
own loader, with their sample prices, tiers and costs), customers, and designs made the way
production makes them.

`DesignFactory` sizes `DESIGN_REQUEST` through `planner.services.design_create` (a draft:
`design_save_draft`, as the wizard saves one) against the catalog in the test database, loading
the `SEED_SKUS` subset first when that catalog lacks the design's products. So every design has
the engine's real result, its catalog version and its sizing snapshot, as a saved design has.

The design: 32 GPUs in 4 servers of 8, one 100G port per GPU on dual-port ConnectX-6 Dx NICs
(32 ports / 2 = 16 NICs, 4 a server), one SN2700 leaf in the servers' rack (ToR), and a
management network on one SN2201. Its bill of materials, in BOM order, with list prices from
catalog/seed/catalog.json (CNY-2026, the default price list):

    MCX623106AN-CDAT   16 x  7,800.00 = 124,800.00   compute server NIC, 2 x 100G
    MSN2700-CS2F        1 x 96,000.00 =  96,000.00   compute leaf, 32 x 100G
    MCP1600-C001E30N    8 x    520.00 =   4,160.00   compute server-leaf DAC 1 m
    MCP1600-C002E30N   16 x    600.00 =   9,600.00   compute server-leaf DAC 2 m
    MCP1600-C003E26N    8 x    700.00 =   5,600.00   compute server-leaf DAC 3 m
    MSN2201-CB2F        1 x 22,000.00 =  22,000.00   oob leaf
    CAT6A-RJ45-10M      5 x     58.00 =     290.00   oob endpoint-leaf patch cord
                                        262,450.00   (7 lines, 55 items, no tier price applies)

The 32 DACs are one per GPU port, 8 a server, cut to stock by each server's run to the leaf
(0.9, 1.3, 1.7 and 2.1 m: 1, 2, 2 and 3 m). The 5 patch cords are the 4 servers' BMCs and the
compute leaf's management port (runs of 5.2 and 7.5 m: the 10 m stock). The engine warns of
form_factor_mismatch (QSFP56 NIC, QSFP28 leaf), unused_ports (47 of the SN2201's 52) and
single_point_of_failure (one compute leaf).

`small_result()` is a different, hand-made result (the `SMALL_BOM` lines spliced into a real
engine frame) for the few tests that need a result the engine would not produce; they pass it
as `DesignFactory(..., result=small_result())`."""

import functools
import json
from decimal import Decimal

import factory

from catalog.models import Product
from catalog.services import SEED_PATH, catalog_load
from catalog.snapshot import snapshot_from_seed
from customers.models import Customer
from engine.request import parse_request
from engine.serialize import design_to_dict
from engine.sizing import size
from planner.models import Design
from planner.services import design_create, design_save_draft
from quotes.models import DiscountPolicy, PolicyMetric
from tests.core.factories import TeamFactory

# The SKUs of the factory's design and of small_result(), and the services every quote adds.
# List prices are CNY-2026's (catalog/seed/catalog.json), costs the products' sample costs.
SEED_SKUS = (
    "MCX623106AN-CDAT",  # NIC, 2 x 100G, list 7,800.00 CNY, cost 5,070.00
    "MSN2700-CS2F",  # switch 32 x 100G, list 96,000.00, cost 62,400.00
    "MCP1600-C001E30N",  # 100G DAC 1 m, list 520.00, tiers >=100: 494.00, >=500: 468.00, cost 338
    "MCP1600-C002E30N",  # 100G DAC 2 m, list 600.00, tiers >=100: 570.00, >=500: 540.00, cost 390
    "MCP1600-C003E26N",  # 100G DAC 3 m, list 700.00, tiers >=100: 665.00, >=500: 630.00, cost 455
    "MSN2201-CB2F",  # management switch, list 22,000.00, cost 14,300.00
    "CAT6A-RJ45-3M",  # patch cord 3 m, list 25.00, cost 16.00 (small_result's)
    "CAT6A-RJ45-10M",  # patch cord 10 m, list 58.00, tiers >=100: 55.10, >=500: 52.20, cost 36.00
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
    """The seed's vendors, media rules and price lists, with only `skus` among its products and
    prices. The media rules stay: without a speed's rule the engine sells no copper or AOC at
    that speed (engine.media), and the factory's design would have catalog gaps for cables."""
    data = json.loads(SEED_PATH.read_text(encoding="utf-8"))
    wanted = set(skus)
    data["products"] = [p for p in data["products"] if p["sku"] in wanted]
    for price_list in data["price_lists"]:
        price_list["prices"] = [p for p in price_list["prices"] if p["sku"] in wanted]
    return catalog_load(data)


# The request DesignFactory sizes (see the module docstring for what it gives).
DESIGN_REQUEST = {
    "gpus": 32,
    "gpus_per_server": 8,
    "nic_speed": 100,
    "nic": "MCX623106AN-CDAT",
    "fabric": "tor",
    "oversubscription": 1,
    "leaf": "MSN2700-CS2F",
    "oob": {"leaf": "MSN2201-CB2F", "spine": "MSN2201-CB2F"},
}
# The products the sized design uses: when the test database's catalog has them all (the subset,
# or the whole seed) the design is sized against it as it is.
DESIGN_SKUS = (
    "MCX623106AN-CDAT",
    "MSN2700-CS2F",
    "MCP1600-C001E30N",
    "MCP1600-C002E30N",
    "MCP1600-C003E26N",
    "MSN2201-CB2F",
    "CAT6A-RJ45-10M",
)


# A hand-made result, not the factory's design (which the engine sizes): for tests that need
# a result of their own (`DesignFactory(..., result=small_result())`). A 32-GPU cluster:
# 4 servers x 8 GPUs, one 100G NIC per GPU, one leaf; a management network.
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


def ensure_design_catalog() -> None:
    """The catalog the factory's design is sized against: the test database's own when it has
    the design's products, otherwise the seed subset (cached per test database)."""
    if Product.objects.filter(sku__in=DESIGN_SKUS).count() < len(DESIGN_SKUS):
        load_seed_subset()


class DesignFactory(factory.django.DjangoModelFactory):
    """A design sized and saved by the planner's services (see the module docstring).

    `owner=` is required; `name=`, `customer=`, `is_draft=True` (saved as the wizard saves a
    draft) and `request_data=` (what is sized) go to the service. Any other keyword is a column
    of `planner.models.Design` written over the service's row afterwards (`result=`, `gpus=None`,
    `archived_at=`, `copied_from=`, `request=`, `sizing_snapshot=None`...): a state the services
    would not produce on their own, which the test then states in its call."""

    class Meta:
        model = Design

    owner = None  # required: pass owner=
    name = factory.Sequence(lambda n: f"32-GPU cluster {n}")
    customer = None
    is_draft = False
    request_data = factory.LazyFunction(lambda: json.loads(json.dumps(DESIGN_REQUEST)))

    @classmethod
    def _create(cls, model_class, *args, **kwargs):
        owner = kwargs.pop("owner")
        if owner is None:
            raise TypeError("DesignFactory needs owner=")
        name = kwargs.pop("name")
        customer = kwargs.pop("customer")
        request_data = kwargs.pop("request_data")
        service = design_save_draft if kwargs.pop("is_draft") else design_create
        ensure_design_catalog()
        design = service(owner=owner, name=name, request_data=request_data, customer=customer)
        if kwargs:
            model_class.objects.filter(pk=design.pk).update(**kwargs)
            design.refresh_from_db()
        return design


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
