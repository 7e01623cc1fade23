"""Clos arithmetic: leaves, spines and cores for one plane, computed in closed form.

Every count is derived from port counts and the oversubscription target; nothing is enumerated,
so sizing 131,072 GPUs costs the same as sizing 8 (loops run over port counts, never servers)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction

from engine.design import LeafGroup, PlaneShape
from engine.errors import FabricTooLarge, SwitchMismatch
from engine.ports import SwitchModel, leaf_capacity, per_model
from engine.text import gettext_noop, text


@dataclass(frozen=True, kw_only=True)
class PlaneInput:
    plane: str
    style: str  # rail | rail-plane | tor | packed
    servers: int
    ports_per_server: int  # all of a server's ports on this plane
    nic_speed_gbps: int
    leaf: SwitchModel
    spine: SwitchModel
    core: SwitchModel
    leaf_oversubscription: Fraction
    spine_oversubscription: Fraction
    dual_homing: bool = False
    rails_per_plane: int = 1
    servers_per_rack: int = 4
    extra_endpoints: int = 0  # packed planes: storage-node ports, management ports
    # Two spines by default, so no single spine carries the whole fabric (one may be asked).
    min_spines: int = 2
    servers_per_su: int | None = None  # a set scalable-unit size (rail fabrics)
    uplink_gbps: int | None = None  # a set leaf-to-spine speed; None: the cheapest shared one
    planes: int = 1  # rail fabrics: identical planes, each with ports_per_server / planes rails
    # "Minimum for today": servers spread evenly over as few units as hold them, instead of full
    # units and one partial unit whose leaves keep every uplink for growth.
    minimum_for_today: bool = False
    # Leaves of other server pools that share this plane's spines (issue 28: heterogeneous
    # pools): each takes spine ports like one of ours, and the plane is never one switch.
    extra_leaves: int = 0
    extra_pods: int = 0  # likewise on three tiers: other pools' pods on this plane's cores
    # Uplink bandwidth every leaf must have, at least: what the other pools' full leaves need,
    # since every leaf of a two-tier Clos has the same uplinks to the same spines.
    min_uplink_gbps: int = 0


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def smallest_divisor_at_least(n: int, low: int) -> int | None:
    """Smallest divisor of n that is >= low: the fewest spines over which n uplinks spread
    evenly (issue 3: "the number of spines a leaf connects to divides its uplinks")."""
    for candidate in range(max(1, low), n + 1):
        if n % candidate == 0:
            return candidate
    return None


def uplinks_and_spines(
    needed: int, available: int, lower: int, upper_ports: int, least: int = 1
) -> tuple[int, int] | None:
    """(uplinks per lower switch, upper switches) for `lower` switches that each need at least
    `needed` uplinks and have `available`: the upper switches must divide the uplinks evenly and
    have a port for each. Adding uplinks (or leaving ports idle) is allowed when it reaches an
    even spread with fewer upper switches: 11 uplinks need 11 spines (11 is prime) where 12
    spread over 2. Fewest upper switches first, then fewest uplinks (fewer optics)."""
    best: tuple[int, int] | None = None
    floor = max(least, ceil_div(lower * needed, upper_ports))
    for uplinks in range(needed, max(needed, available) + 1):
        low = max(least, ceil_div(lower * uplinks, upper_ports))
        upper = smallest_divisor_at_least(uplinks, low)
        if upper is None:
            continue
        if best is None or (upper, uplinks) < (best[1], best[0]):
            best = (uplinks, upper)
        if upper == floor:
            break  # no fewer upper switches are possible
    return best


@per_model
def split_ports(
    model: SwitchModel, down_gbps: int, up_gbps: int, target: Fraction
) -> tuple[int, int]:
    """Most downlinks d with u uplinks such that d*down : u*up <= target; u is the fewest that
    meets the target, so the achieved ratio is as close to it as whole ports allow."""

    # Integer arithmetic: u >= d*down / (target*up) with target = num/den.
    num, den = target.numerator, target.denominator

    def uplinks_needed(d: int) -> int:
        return max(1, ceil_div(d * down_gbps * den, num * up_gbps))

    def fits(d: int) -> bool:
        cap = leaf_capacity(model, down_gbps, up_gbps, d)
        return cap is not None and uplinks_needed(d) <= cap[0]

    k_down, k_up = model.logical_ports(down_gbps), model.logical_ports(up_gbps)
    # Closed form for one shared pool of ports: d/k_down + u/k_up <= 1 with u = d*down/(r*up).
    # It is exact for single-group switches; the check below falls back to a search otherwise.
    if k_up:
        estimate = (k_down * k_up * num * up_gbps) // (
            k_up * num * up_gbps + k_down * down_gbps * den
        )
        estimate = min(max(estimate, 1), k_down)
        if fits(estimate) and (estimate == k_down or not fits(estimate + 1)):
            return estimate, uplinks_needed(estimate)
    low, high = 0, k_down
    while low < high:  # fits() is monotone: fewer downlinks never need more uplinks
        mid = (low + high + 1) // 2
        if fits(mid):
            low = mid
        else:
            high = mid - 1
    if low == 0:
        raise SwitchMismatch(
            text(
                gettext_noop(
                    "%(switch)s has no room for both %(down)sG downlinks and %(up)sG uplinks."
                ),
                switch=model.label,
                down=down_gbps,
                up=up_gbps,
            )
        )
    return low, uplinks_needed(low)


def ceil_ratio(down_gbps: int, target: Fraction, up_gbps: int) -> int:
    """Fewest uplinks of `up_gbps` that keep `down_gbps` within `target` (down:up), in integers:
    ceil(down / (target * up)) with target = num/den."""
    return ceil_div(down_gbps * target.denominator, target.numerator * up_gbps)


def _two_tier(
    spec: PlaneInput,
    endpoints: int,
    most: int,
    leaves_per_group: int,
    per_leaf: int,
    up: int,
    k_spine: int,
) -> tuple[int, int, int] | None:
    """(servers per group, uplinks per leaf, spines) of the two-tier fabric with the fewest
    switches, or None when two tiers cannot reach. Full groups of `most` servers first; a
    smaller group (some leaf ports left idle) only when it saves switches: at 2:1 a 128-port
    leaf takes 85 servers and needs 43 uplinks, which spread evenly only over 43 spines, where
    84 servers and 42 uplinks spread over 2."""
    nic = spec.nic_speed_gbps
    least = spec.min_spines

    def plan(servers: int) -> tuple[int, int, int] | None:
        d = servers * per_leaf
        u = max(1, ceil_ratio(d * nic, spec.leaf_oversubscription, up))
        u = max(u, ceil_div(spec.min_uplink_gbps, up))
        cap = leaf_capacity(spec.leaf, nic, up, d)
        if cap is None or cap[0] < u:
            return None  # (only another pool's uplinks can ask more than the ports left)
        leaves = ceil_div(endpoints, servers) * leaves_per_group + spec.extra_leaves
        if leaves > k_spine:
            return None  # every spine needs a port for every leaf
        # Pools share these uplinks: more than any pool needs would take ports from the other
        # pools' servers on every one of their leaves (smaller units, more leaves).
        available = u if spec.min_uplink_gbps else cap[0]
        spread = uplinks_and_spines(u, available, leaves, k_spine, least)
        if spread is None:
            return None
        return leaves + spread[1], spread[0], spread[1]

    first = plan(most)
    if first is not None:
        leaves = ceil_div(endpoints, most) * leaves_per_group + spec.extra_leaves
        needed = max(least, ceil_div(leaves * first[1], k_spine))
        if first[2] <= needed:
            return most, first[1], first[2]  # as few spines as the ports allow
    best = (first[0], -most, first[1], first[2]) if first else None
    # A set unit size is kept; today's even spread may still shrink (a prime uplink count).
    low = most if spec.servers_per_su else max(most // 2, 1)
    for servers in range(most - 1, low - 1, -1):
        if ceil_div(endpoints, servers) * leaves_per_group + spec.extra_leaves > k_spine:
            break  # smaller units only add leaves
        found = plan(servers)
        if found is not None and (best is None or (found[0], -servers) < best[:2]):
            best = (found[0], -servers, found[1], found[2])
    if best is None:
        return None
    return -best[1], best[2], best[3]


def _groups(total: int, per_group: int, leaves: int, links_per_leaf: int) -> tuple[LeafGroup, ...]:
    full, rest = divmod(total, per_group)
    groups: list[LeafGroup] = []
    if full:
        groups.append(
            LeafGroup(
                count=full,
                servers=per_group,
                leaves=leaves,
                downlinks_per_leaf=per_group * links_per_leaf,
            )
        )
    if rest:
        groups.append(
            LeafGroup(
                count=1, servers=rest, leaves=leaves, downlinks_per_leaf=rest * links_per_leaf
            )
        )
    return tuple(groups)


def _shape(base: dict[str, object], **tiers: object) -> PlaneShape:
    return PlaneShape(**{**base, **tiers})  # type: ignore[arg-type]


def plan_plane(spec: PlaneInput) -> PlaneShape:
    """Size one plane: single tier if it fits one switch (or a pair), else two, else three."""
    fabric_planes, ports, leaves_per_group, per_leaf, endpoints = _plane_ports(spec)
    k_leaf = spec.leaf.logical_ports(spec.nic_speed_gbps)
    if k_leaf == 0:
        raise cannot_run(spec)
    base = _base_fields(spec, fabric_planes, ports, per_leaf, endpoints)
    single = None if spec.extra_leaves else _single_tier(spec, base, ports, endpoints, k_leaf)
    if single is not None:
        return single
    return _cheapest_multi_tier(spec, base, leaves_per_group, per_leaf, endpoints)


def _plane_ports(spec: PlaneInput) -> tuple[int, int, int, int, int]:
    """(fabric planes, ports per server in each, leaves per group, links per server per leaf,
    endpoints) of the plane's style."""
    if spec.style == "rail-plane":
        fabric_planes = spec.ports_per_server // spec.rails_per_plane
        ports = spec.rails_per_plane
    elif spec.style == "rail":
        fabric_planes, ports = spec.planes, spec.ports_per_server // spec.planes
    else:
        fabric_planes, ports = 1, spec.ports_per_server
    if spec.style in ("rail", "rail-plane"):
        leaves_per_group, per_leaf = ports, 1
    elif spec.style == "tor":
        leaves_per_group = 2 if spec.dual_homing else 1
        per_leaf = ports // leaves_per_group
    else:  # packed endpoints: every port is its own "server" of one link
        leaves_per_group, per_leaf = 1, 1
    endpoints = spec.servers if spec.style != "packed" else spec.servers * ports
    endpoints += spec.extra_endpoints if spec.style == "packed" else 0
    return fabric_planes, ports, leaves_per_group, per_leaf, endpoints


def _base_fields(
    spec: PlaneInput, fabric_planes: int, ports: int, per_leaf: int, endpoints: int
) -> dict[str, object]:
    # The fields every outcome shares; each return fills in its tiers. (Built as a dict, not a
    # PlaneShape to `replace`: sizing builds one shape per plane, and replace costs a second.)
    return {
        "plane": spec.plane,
        "style": spec.style,
        "fabric_planes": fabric_planes,
        "tiers": 1,
        "nic_speed_gbps": spec.nic_speed_gbps,
        "ports_per_server": ports,
        "links_per_server_per_leaf": per_leaf,
        "servers": endpoints,
        "group_servers": endpoints,
        "leaf_groups": (),
        "leaf_downlinks": 0,
        "leaf_uplinks": 0,
        "uplink_speed_gbps": 0,
        "groups_per_pod": 1,
        "pods": 1,
        "spines_per_pod": 0,
        "leaf_spine_links": 0,
        "spine_downlinks": 0,
        "spine_uplinks": 0,
        "core_speed_gbps": 0,
        "cores_per_group": 0,
        "spine_core_links": 0,
        "extra_endpoints": spec.extra_endpoints if spec.style == "packed" else 0,
    }


def _single_tier(
    spec: PlaneInput, base: dict[str, object], ports: int, endpoints: int, k_leaf: int
) -> PlaneShape | None:
    # One switch per fabric plane carries every port of every server (or one redundant pair
    # when dual-homed): no spine needed (media-and-fabric-facts, design rules).
    single_leaves = 2 if spec.style == "tor" and spec.dual_homing else 1
    single_per_leaf = 1 if spec.style == "packed" else ports // single_leaves
    single_links = endpoints * single_per_leaf
    if single_links > k_leaf:
        return None
    return _shape(
        base,
        links_per_server_per_leaf=single_per_leaf,
        leaf_groups=(
            LeafGroup(count=1, servers=endpoints, leaves=single_leaves,
                      downlinks_per_leaf=single_links),
        ),
        leaf_downlinks=single_links,
    )  # fmt: skip


def _leaf_uplink_speeds(spec: PlaneInput) -> tuple[int, ...]:
    """The speeds leaf and spine both run, at least the NIC's (only the set one, if set)."""
    speeds = uplink_speeds(spec.leaf, spec.spine, spec.nic_speed_gbps)
    if spec.uplink_gbps is not None:
        speeds = tuple(s for s in speeds if s == spec.uplink_gbps)
    if not speeds:
        raise SwitchMismatch(
            text(
                gettext_noop(
                    "%(plane)s leaf %(lower)s and spine %(upper)s share no port speed of "
                    "%(speed)sG or more."
                ),
                plane=spec.plane,
                lower=spec.leaf.label,
                upper=spec.spine.label,
                speed=spec.uplink_gbps or spec.nic_speed_gbps,
            )
        )
    return speeds


def _cheapest_multi_tier(
    spec: PlaneInput, base: dict[str, object], leaves_per_group: int, per_leaf: int, endpoints: int
) -> PlaneShape:
    speeds = _leaf_uplink_speeds(spec)
    # Native versus broken-out uplinks (issue 13, item 3): every speed both tiers run is sized,
    # and the fewest switches win; at equal switch counts the fewest links, because one faster
    # link costs less than the slower ones it replaces (one 800G module against two 400G, and
    # half the cables). A 64 x 800G spine broken out as 128 x 400G still wins whenever its radix
    # saves a tier or a switch (131,072 GPUs); below that, 800G uplinks halve the optics.
    best: PlaneShape | None = None
    failure: SwitchMismatch | FabricTooLarge | None = None
    # "Minimum for today" is a ceiling on what to buy: the even spread, unless the units built
    # for growth cost no more (85 servers in one unit at 2:1 need 43 uplinks, a prime: 43
    # spines, where a unit of 64 and one of 21 need 2).
    variants = (spec, replace(spec, minimum_for_today=False)) if spec.minimum_for_today else (spec,)
    for up in speeds:
        for core_up in _core_speeds(spec, up):
            for variant in variants:
                try:
                    shape = _multi_tier(variant, base, leaves_per_group, per_leaf, endpoints, up,
                                        core_up)  # fmt: skip
                except (SwitchMismatch, FabricTooLarge) as exc:
                    failure = failure or exc
                    continue
                if best is None or _cost_key(shape) < _cost_key(best):
                    best = shape
            if best is not None and best.tiers < 3:
                break  # the core speed played no part
    if best is None:
        assert failure is not None
        raise failure
    return best


@per_model
def uplink_speeds(lower: SwitchModel, upper: SwitchModel, floor_gbps: int) -> tuple[int, ...]:
    """Every logical speed both tiers run at `floor_gbps` or faster, fastest first."""
    return tuple(
        s
        for s in sorted(upper.speeds_gbps(), reverse=True)
        if s >= floor_gbps and lower.logical_ports(s) > 0 and upper.logical_ports(s) > 0
    )


def _core_speeds(spec: PlaneInput, up: int) -> tuple[int, ...]:
    """Spine-to-core speeds to size, chosen like the uplinks: by the fewest switches."""
    speeds = uplink_speeds(spec.spine, spec.core, up)
    if not speeds:
        return (0,)  # no core speed: a three-tier outcome reports it, two tiers never ask
    if spec.uplink_gbps in speeds:
        return (spec.uplink_gbps,)  # a set speed holds above the spines too
    return speeds


def _cost_key(shape: PlaneShape) -> tuple[int, int, int]:
    """Fewest switches, then fewest links above the leaves, then fastest uplinks."""
    leaves = shape.leaves
    links = leaves * shape.leaf_uplinks + shape.spines * shape.spine_uplinks
    return (leaves + shape.spines + shape.cores, links, -shape.uplink_speed_gbps)


def _multi_tier(
    spec: PlaneInput,
    base: dict[str, object],
    leaves_per_group: int,
    per_leaf: int,
    endpoints: int,
    up: int,
    core_up: int,
) -> PlaneShape:
    """The two- or three-tier shape of one plane with uplinks at `up` (and spine-to-core links
    at `core_up`)."""
    nic = spec.nic_speed_gbps
    d_max, _ = split_ports(spec.leaf, nic, up, spec.leaf_oversubscription)
    group_servers = _unit_servers(spec, d_max, per_leaf, endpoints)
    k_spine = spec.spine.logical_ports(up)
    two_tier = _two_tier(spec, endpoints, group_servers, leaves_per_group, per_leaf, up, k_spine)
    if two_tier is not None:
        group_servers, u, spines = two_tier
        groups = _groups(endpoints, group_servers, leaves_per_group, per_leaf)
        leaves = sum(g.count * g.leaves for g in groups)
        return _shape(
            base,
            tiers=2,
            group_servers=group_servers,
            leaf_groups=groups,
            leaf_downlinks=group_servers * per_leaf,
            leaf_uplinks=u,
            uplink_speed_gbps=up,
            groups_per_pod=sum(g.count for g in groups),
            pods=1,
            spines_per_pod=spines,
            leaf_spine_links=u // spines,
            spine_downlinks=leaves * (u // spines),
            spine_uplinks=0,
            core_speed_gbps=0,
            cores_per_group=0,
            spine_core_links=0,
        )
    return _three_tier(spec, base, leaves_per_group, per_leaf, endpoints, group_servers, up,
                       core_up)  # fmt: skip


def _unit_servers(spec: PlaneInput, d_max: int, per_leaf: int, endpoints: int) -> int:
    """Servers in a full unit (leaf group): as many as a leaf's downlinks take, a rack's worth
    on top-of-rack leaves, or the unit size the request sets."""
    if spec.style == "tor":
        group_servers = min(spec.servers_per_rack, d_max // per_leaf)
        if group_servers == 0:
            raise SwitchMismatch(
                text(
                    gettext_noop(
                        "%(plane)s leaf %(leaf)s cannot take the %(ports)s ports of one server."
                    ),
                    plane=spec.plane,
                    leaf=spec.leaf.label,
                    ports=per_leaf,
                )
            )
        return group_servers
    if spec.servers_per_su:
        if spec.servers_per_su > d_max:
            raise SwitchMismatch(
                text(
                    gettext_noop(
                        "%(plane)s: at %(ratio)s:1 a leaf %(leaf)s serves at most %(most)s "
                        "servers a unit; servers_per_su asks for %(asked)s."
                    ),
                    plane=spec.plane,
                    ratio=float(spec.leaf_oversubscription),
                    leaf=spec.leaf.label,
                    most=d_max,
                    asked=spec.servers_per_su,
                )
            )
        return spec.servers_per_su
    if spec.minimum_for_today:
        # 40 servers in units of 32 are 32 + 8 built for growth (16 leaves, 32 uplinks
        # each); for today, 2 units of 20 (16 leaves, 20 uplinks each).
        return ceil_div(endpoints, ceil_div(endpoints, d_max))
    return d_max


def _three_tier(
    spec: PlaneInput,
    base: dict[str, object],
    leaves_per_group: int,
    per_leaf: int,
    endpoints: int,
    group_servers: int,
    up: int,
    core_up: int,
) -> PlaneShape:
    """Units of `group_servers` gathered into pods under a core tier, for a plane two tiers
    cannot reach."""
    d = group_servers * per_leaf
    u = max(1, ceil_ratio(d * spec.nic_speed_gbps, spec.leaf_oversubscription, up))
    pools_u = ceil_div(spec.min_uplink_gbps, up)  # every leaf reaches its pod's u spines
    cap = leaf_capacity(spec.leaf, spec.nic_speed_gbps, up, d) if pools_u > u else None
    if cap is not None and cap[0] >= pools_u:
        u = pools_u
    groups = _groups(endpoints, group_servers, leaves_per_group, per_leaf)
    if core_up == 0:
        raise SwitchMismatch(
            text(
                gettext_noop(
                    "%(plane)s spine %(lower)s and core %(upper)s share no port speed of "
                    "%(speed)sG or more."
                ),
                plane=spec.plane,
                lower=spec.spine.label,
                upper=spec.core.label,
                speed=up,
            )
        )
    groups_per_pod = pod_groups(spec, up, core_up, leaves_per_group)
    spine_down = groups_per_pod * leaves_per_group
    u_spine = max(1, ceil_ratio(spine_down * up, spec.spine_oversubscription, core_up))
    total_groups = sum(g.count for g in groups)
    pods = ceil_div(total_groups, groups_per_pod)
    k_core = spec.core.logical_ports(core_up)
    per_group = smallest_divisor_at_least(
        u_spine, ceil_div((pods + spec.extra_pods) * u_spine, k_core)
    )
    if per_group is None:
        raise _too_many_pods(spec, endpoints, pods, k_core, k_core * groups_per_pod * group_servers)
    return _shape(
        base,
        tiers=3,
        group_servers=group_servers,
        leaf_groups=groups,
        leaf_downlinks=d,
        leaf_uplinks=u,
        uplink_speed_gbps=up,
        groups_per_pod=groups_per_pod,
        pods=pods,
        spines_per_pod=u,
        leaf_spine_links=1,
        spine_downlinks=spine_down,
        spine_uplinks=u_spine,
        core_speed_gbps=core_up,
        cores_per_group=per_group,
        spine_core_links=u_spine // per_group,
    )


def pod_groups(spec: PlaneInput, up: int, core_up: int, leaves_per_group: int) -> int:
    """Leaf groups a pod holds on three tiers: each leaf reaches every spine of its pod once,
    so as many as a spine has downlinks for at the target."""
    d_spine, _ = split_ports(spec.spine, up, core_up, spec.spine_oversubscription)
    groups_per_pod = d_spine // leaves_per_group
    if groups_per_pod == 0:
        raise FabricTooLarge(
            text(
                gettext_noop(
                    "%(plane)s: a spine %(spine)s with %(down)s downlinks cannot reach the "
                    "%(leaves)s leaves of one group."
                ),
                plane=spec.plane,
                spine=spec.spine.label,
                down=d_spine,
                leaves=leaves_per_group,
            )
        )
    return groups_per_pod


def cannot_run(spec: PlaneInput) -> SwitchMismatch:
    return SwitchMismatch(
        text(
            gettext_noop("%(plane)s leaf %(leaf)s cannot run %(nic)sG ports."),
            plane=spec.plane,
            leaf=spec.leaf.label,
            nic=spec.nic_speed_gbps,
        )
    )


def _too_many_pods(
    spec: PlaneInput, endpoints: int, pods: int, k_core: int, limit: int
) -> FabricTooLarge:
    template = (
        gettext_noop(
            "%(plane)s: %(count)s endpoints need %(pods)s pods but three tiers of "
            "%(switches)s reach %(reach)s pods (%(limit)s endpoints) at the requested "
            "oversubscription."
        )
        if spec.style == "packed"
        else gettext_noop(
            "%(plane)s: %(count)s servers need %(pods)s pods but three tiers of "
            "%(switches)s reach %(reach)s pods (%(limit)s servers) at the requested "
            "oversubscription."
        )
    )
    return FabricTooLarge(
        text(
            template,
            plane=spec.plane,
            count=endpoints,
            pods=pods,
            switches=f"{spec.leaf.label}/{spec.spine.label}/{spec.core.label}",
            reach=k_core,
            limit=limit,
        )
    )
