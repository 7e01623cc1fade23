"""What failures a design should expect, what each single failure does, and what spares to hold.

Failure rates come from the one public count of interruptions on a large training fabric:
Meta's Llama 3 paper (Llama Team, "The Llama 3 Herd of Models", arXiv 2407.21783, section
3.3.4, table 5): 419 unexpected interruptions in 54 days of pre-training on 16,384 H100 GPUs,
35 (8.4 %) of them "network switch/cable" and 7 (1.7 %) "NIC". The paper's section 3.3.1
gives the fabric they ran on, from which the component counts below follow:

- NICs: one 400G NIC port per GPU, 16,384 ports. 7 / (16,384 x 54 days) = 7.91e-6 a NIC-day,
  2.41e-4 a NIC-month (a month = 365.25 / 12 = 30.44 days).
- Switches and cables: racks of 16 GPUs under one ToR switch (1,024 ToRs); 16,384 NIC-ToR
  links; full bisection inside a pod (16 ToR uplinks per 16 GPUs: 16,384 ToR-cluster links);
  1:7 above the pods (16,384 / 7 = 2,341 links). The paper does not split switch failures from
  cable failures, nor count the few modular cluster and aggregation chassis, so each ToR and
  each link (its cable and the modules at both ends) is taken as one device with the same rate:
  35 / ((1,024 + 16,384 + 16,384 + 2,341) x 54 days) = 1.79e-5 a device-day, 5.46e-4 a month.
- All causes, for scale: 419 / (16,384 x 54 days) = 0.0144 interruptions a GPU-month.

Every network failure is counted as an interruption, as Llama 3 counted them: a NIC or a
server-leaf link stops the ranks behind it, and a fabric link or switch above the leaves stops
or stalls the collectives that were using it."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal

from engine.design import Design, PlaneShape
from engine.shape_figures import leaf_downlinks_at
from engine.text import Text, gettext_noop, text

DAYS_PER_MONTH = 365.25 / 12
HOURS_PER_MONTH = DAYS_PER_MONTH * 24
LLAMA3_GPUS = 16_384
LLAMA3_DAYS = 54
LLAMA3_UNEXPECTED = 419
LLAMA3_SWITCH_CABLE = 35
LLAMA3_NIC = 7
LLAMA3_NETWORK_DEVICES = 1_024 + 16_384 + 16_384 + 2_341  # ToRs and links, as above
NIC_RATE_PER_MONTH = LLAMA3_NIC / (LLAMA3_GPUS * LLAMA3_DAYS) * DAYS_PER_MONTH
DEVICE_RATE_PER_MONTH = (
    LLAMA3_SWITCH_CABLE / (LLAMA3_NETWORK_DEVICES * LLAMA3_DAYS) * DAYS_PER_MONTH
)
ALL_CAUSES_PER_GPU_MONTH = LLAMA3_UNEXPECTED / (LLAMA3_GPUS * LLAMA3_DAYS) * DAYS_PER_MONTH


@dataclass(frozen=True, kw_only=True)
class ComponentRate:
    component: str  # nic, switch, link
    tier: str  # leaf, spine, core; server-leaf, leaf-spine, spine-core
    count: int
    rate_per_month: float
    expected_per_month: float

    def to_json(self) -> dict[str, object]:
        return {
            "component": self.component,
            "tier": self.tier,
            "count": self.count,
            "rate_per_month": self.rate_per_month,
            "expected_per_month": round(self.expected_per_month, 4),
        }


@dataclass(frozen=True, kw_only=True)
class FailureEffect:
    """One component of the compute fabric failing, everything else working."""

    component: str  # server-leaf link, leaf, leaf-spine link, spine, spine-core link, core, plane
    servers_cut_off: int  # servers left with no path to the others
    servers_degraded: int  # servers that lose some of their bandwidth (the cut-off ones too)
    capacity_lost_gbps: int
    share_lost: float  # of the capacity of its kind (a leaf's uplinks, a pod's spines, ...)
    effect: Text

    def to_json(self) -> dict[str, object]:
        return {
            "component": self.component,
            "servers_cut_off": self.servers_cut_off,
            "servers_degraded": self.servers_degraded,
            "capacity_lost_gbps": self.capacity_lost_gbps,
            "share_lost": round(self.share_lost, 6),
            "effect": self.effect.as_dict(),
        }


@dataclass(frozen=True, kw_only=True)
class SparesPolicy:
    """Spares as a share of what is installed, at least `minimum` of each part. Optics fail and
    arrive dead more often than switches, and a switch takes longest to get."""

    switch: Decimal = Decimal("0.02")
    transceiver: Decimal = Decimal("0.03")
    cable: Decimal = Decimal("0.02")
    minimum: int = 1

    def share(self, category: str) -> Decimal | None:
        return {"switch": self.switch, "transceiver": self.transceiver,
                "cable": self.cable}.get(category)  # fmt: skip


@dataclass(frozen=True, kw_only=True)
class SpareLine:
    sku: str  # empty for a generic stand-in (to be priced)
    description: str
    category: str
    installed: int
    quantity: int
    unit_price: Decimal | None
    total: Decimal | None
    catalog_gap: bool = False

    def to_json(self) -> dict[str, object]:
        return {
            "sku": self.sku,
            "description": self.description,
            "category": self.category,
            "installed": self.installed,
            "quantity": self.quantity,
            "unit_price": None if self.unit_price is None else str(self.unit_price),
            "total": None if self.total is None else str(self.total),
            "catalog_gap": self.catalog_gap,
        }


@dataclass(frozen=True, kw_only=True)
class FailureReport:
    rates: tuple[ComponentRate, ...]
    network_per_month: float
    all_causes_per_month: float  # every cause at Llama 3's rate, for scale
    effects: tuple[FailureEffect, ...]
    spares: tuple[SpareLine, ...]
    spares_total: Decimal | None  # None without prices; lines without a price left out
    policy: SparesPolicy

    @property
    def hours_between_network_failures(self) -> float | None:
        if self.network_per_month <= 0:
            return None
        return HOURS_PER_MONTH / self.network_per_month

    def effect(self, component: str) -> FailureEffect | None:
        return next((e for e in self.effects if e.component == component), None)

    def to_json(self) -> dict[str, object]:
        hours = self.hours_between_network_failures
        return {
            "rates": [rate.to_json() for rate in self.rates],
            "network_per_month": round(self.network_per_month, 4),
            "all_causes_per_month": round(self.all_causes_per_month, 4),
            "hours_between_network_failures": None if hours is None else round(hours, 1),
            "effects": [effect.to_json() for effect in self.effects],
            "spares": [line.to_json() for line in self.spares],
            "spares_total": None if self.spares_total is None else str(self.spares_total),
            "policy": {
                "switch": str(self.policy.switch),
                "transceiver": str(self.policy.transceiver),
                "cable": str(self.policy.cable),
                "minimum": self.policy.minimum,
            },
        }


def component_rates(design: Design) -> tuple[ComponentRate, ...]:
    """The compute fabric's components by class and tier, each with its expected failures."""
    plane = design.compute
    out: list[ComponentRate] = []
    links: dict[str, int] = {}
    for group in plane.links:
        pair = f"{group.a}-{group.b}"
        links[pair] = links.get(pair, 0) + group.links
    nics = links.get("server-leaf", 0)  # one NIC port at the server end of each link
    out.append(
        ComponentRate(component="nic", tier="server", count=nics, rate_per_month=NIC_RATE_PER_MONTH,
                      expected_per_month=nics * NIC_RATE_PER_MONTH)
    )  # fmt: skip
    for tier in plane.tiers:
        out.append(
            ComponentRate(component="switch", tier=tier.role, count=tier.count,
                          rate_per_month=DEVICE_RATE_PER_MONTH,
                          expected_per_month=tier.count * DEVICE_RATE_PER_MONTH)
        )  # fmt: skip
    for pair, count in links.items():
        out.append(
            ComponentRate(component="link", tier=pair, count=count,
                          rate_per_month=DEVICE_RATE_PER_MONTH,
                          expected_per_month=count * DEVICE_RATE_PER_MONTH)
        )  # fmt: skip
    return tuple(out)


def failure_effects(design: Design) -> tuple[FailureEffect, ...]:
    """Each single failure on the compute fabric. Switches of a tier are alike by symmetry; the
    busiest leaf is the first (full units come before a partial one). Leaf, spine and core
    figures are the ones `graph.validate` reports for its worst switch failure."""
    shape = design.compute.shape
    ports = shape.ports_per_server * shape.fabric_planes
    # A GPU with a second path keeps running when one fails, at less bandwidth: two or more
    # ports per GPU (twin-plane B300, the NVIDIA reference: "continues at half bandwidth") or
    # servers homed to a leaf pair. With one port per GPU and one leaf, the rank behind it stops.
    redundant = design.request.dual_homing or ports >= 2 * design.request.gpus_per_server
    out = [_link_effect(design, ports, redundant), _leaf_effect(shape, ports, redundant)]
    if shape.tiers >= 2:
        out += _spine_effects(shape)
    if shape.tiers == 3:
        out += _core_effects(shape)
    if shape.fabric_planes > 1:
        out.append(_plane_effect(shape, ports))
    return tuple(out)


def _link_effect(design: Design, ports: int, redundant: bool) -> FailureEffect:
    return FailureEffect(
        component="server-leaf link",
        servers_cut_off=1 if ports == 1 else 0,
        servers_degraded=1,
        capacity_lost_gbps=design.compute.shape.nic_speed_gbps,
        share_lost=1 / ports,
        effect=text(
            gettext_noop(
                "One server loses one of its %(ports)s ports; its GPUs keep their other "
                "paths and continue with %(share)s %% less bandwidth until it is replaced."
            )
            if redundant
            else gettext_noop(
                "One server loses one of its %(ports)s ports; the GPU behind it stops its "
                "job until the link (or NIC) is replaced or the server is swapped out."
            ),
            ports=ports,
            share=round(100 / _paths_per_gpu(ports, design.request.gpus_per_server), 1),
        ),
    )


def _leaf_effect(shape: PlaneShape, ports: int, redundant: bool) -> FailureEffect:
    """The busiest leaf: the first, full units coming before a partial one."""
    group = shape.leaf_groups[0]
    down = leaf_downlinks_at(shape, 0) * shape.nic_speed_gbps
    up = shape.leaf_uplinks * shape.uplink_speed_gbps
    alone = shape.leaves_per_group == 1
    return FailureEffect(
        component="leaf",
        servers_cut_off=group.servers if alone else 0,
        servers_degraded=group.servers,
        capacity_lost_gbps=down + up,
        share_lost=1 / max(1, shape.leaves * shape.fabric_planes),
        effect=text(
            gettext_noop("%(servers)s servers lose every port on this leaf.")
            if alone
            else gettext_noop(
                "%(servers)s servers lose %(lost)s of their %(ports)s ports and continue on "
                "the others at reduced bandwidth until the leaf is replaced."
            )
            if redundant
            else gettext_noop(
                "%(servers)s servers lose %(lost)s of their %(ports)s ports; their jobs "
                "stop until the leaf is replaced or they are swapped out."
            ),
            servers=group.servers,
            lost=shape.links_per_server_per_leaf,
            ports=ports,
        ),
    )


def _spine_effects(shape: PlaneShape) -> list[FailureEffect]:
    """A leaf's uplink and a spine (two or more tiers)."""
    out: list[FailureEffect] = []
    unit = shape.groups_per_pod * shape.group_servers
    out.append(
        FailureEffect(
            component="leaf-spine link",
            servers_cut_off=0,
            servers_degraded=shape.leaf_groups[0].servers,
            capacity_lost_gbps=shape.uplink_speed_gbps,
            share_lost=1 / shape.leaf_uplinks,
            effect=text(
                gettext_noop(
                    "One leaf keeps %(left)s of its %(uplinks)s uplinks; ECMP routes "
                    "around the lost one."
                ),
                left=shape.leaf_uplinks - 1,
                uplinks=shape.leaf_uplinks,
            ),
        )
    )
    only = shape.spines_per_pod == 1
    spine_cap = shape.spine_downlinks * shape.uplink_speed_gbps
    spine_cap += shape.spine_uplinks * shape.core_speed_gbps
    pod_servers = min(unit, shape.servers)
    out.append(
        FailureEffect(
            component="spine",
            servers_cut_off=pod_servers if only else 0,
            servers_degraded=pod_servers,
            capacity_lost_gbps=spine_cap,
            share_lost=1 / shape.spines_per_pod,
            effect=text(
                gettext_noop(
                    "The pod's only spine: its servers reach no server beyond their own leaf."
                )
                if only
                else gettext_noop(
                    "%(servers)s servers keep %(left)s of %(spines)s spines: "
                    "%(share)s %% less bandwidth between units."
                ),
                servers=pod_servers,
                left=shape.spines_per_pod - 1,
                spines=shape.spines_per_pod,
                share=round(100 / shape.spines_per_pod, 1),
            ),
        )
    )
    return out


def _core_effects(shape: PlaneShape) -> list[FailureEffect]:
    """A spine's core link and a core (three tiers)."""
    out: list[FailureEffect] = []
    out.append(
        FailureEffect(
            component="spine-core link",
            servers_cut_off=0,
            servers_degraded=min(shape.groups_per_pod * shape.group_servers, shape.servers),
            capacity_lost_gbps=shape.core_speed_gbps,
            share_lost=1 / shape.spine_uplinks,
            effect=text(
                gettext_noop(
                    "One spine keeps %(left)s of its %(uplinks)s core links; ECMP routes "
                    "around the lost one."
                ),
                left=shape.spine_uplinks - 1,
                uplinks=shape.spine_uplinks,
            ),
        )
    )
    out.append(
        FailureEffect(
            component="core",
            servers_cut_off=0,
            servers_degraded=shape.servers,
            capacity_lost_gbps=shape.pods * shape.spine_core_links * shape.core_speed_gbps,
            share_lost=1 / shape.cores,
            effect=text(
                gettext_noop("Bandwidth between pods drops by %(share)s %%."),
                share=round(100 / shape.cores, 2),
            ),
        )
    )
    return out


def _paths_per_gpu(ports: int, gpus: int) -> float:
    """The ports a GPU's traffic can take: its own share when each GPU has ports of its own
    (rail fabrics), every port of the server when the GPUs share a few (top of rack)."""
    return ports / gpus if ports >= gpus else ports


def _plane_effect(shape: PlaneShape, ports: int) -> FailureEffect:
    """A whole fabric plane (a rail plane, one of several compute planes) out: every server
    keeps its other planes, and each of them loses that plane's ports."""
    lost = shape.servers * shape.ports_per_server * shape.nic_speed_gbps
    return FailureEffect(
        component="plane",
        servers_cut_off=0,
        servers_degraded=shape.servers,
        capacity_lost_gbps=lost,
        share_lost=1 / shape.fabric_planes,
        effect=text(
            gettext_noop(
                "Every server loses %(lost)s of its %(ports)s ports; no server is cut off, and "
                "GPUs on the failed plane reach the others over NVLink (as in DeepSeek's "
                "multi-plane fabric)."
            ),
            lost=shape.ports_per_server,
            ports=ports,
        ),
    )


def spares(
    design: Design,
    prices: Mapping[str, Decimal] | None = None,
    policy: SparesPolicy | None = None,
) -> tuple[tuple[SpareLine, ...], Decimal | None]:
    """Spare switches, modules and cables by SKU over every plane of the design, with prices
    when given; the total leaves out lines without a price."""
    policy = policy or SparesPolicy()
    installed: dict[tuple[str, str, str], int] = {}
    gaps: set[tuple[str, str, str]] = set()
    for line in design.bom:
        share = policy.share(line.category)
        if share is None:
            continue
        key = (line.category, line.sku, line.sku or line.description)
        installed[key] = installed.get(key, 0) + line.quantity
        if line.catalog_gap or not line.sku:
            gaps.add(key)
    order = {"switch": 0, "transceiver": 1, "cable": 2}
    lines: list[SpareLine] = []
    total: Decimal | None = Decimal(0) if prices is not None else None
    for key in sorted(installed, key=lambda k: (order[k[0]], k[1], k[2])):
        category, sku, description = key
        count = installed[key]
        share = policy.share(category)
        assert share is not None
        quantity = max(policy.minimum, math.ceil(Decimal(count) * share))
        price = prices.get(sku) if prices is not None and sku else None
        line_total = price * quantity if price is not None else None
        if total is not None and line_total is not None:
            total += line_total
        lines.append(
            SpareLine(sku=sku, description=description, category=category, installed=count,
                      quantity=quantity, unit_price=price, total=line_total,
                      catalog_gap=key in gaps)
        )  # fmt: skip
    return tuple(lines), total


def failure_report(
    design: Design,
    prices: Mapping[str, Decimal] | None = None,
    policy: SparesPolicy | None = None,
) -> FailureReport:
    rates = component_rates(design)
    lines, total = spares(design, prices, policy)
    return FailureReport(
        rates=rates,
        network_per_month=sum(rate.expected_per_month for rate in rates),
        all_causes_per_month=design.gpus * ALL_CAUSES_PER_GPU_MONTH,
        effects=failure_effects(design),
        spares=lines,
        spares_total=total,
        policy=policy or SparesPolicy(),
    )


__all__ = [
    "ALL_CAUSES_PER_GPU_MONTH",
    "DEVICE_RATE_PER_MONTH",
    "NIC_RATE_PER_MONTH",
    "ComponentRate",
    "FailureEffect",
    "FailureReport",
    "SpareLine",
    "SparesPolicy",
    "component_rates",
    "failure_effects",
    "failure_report",
    "spares",
]
