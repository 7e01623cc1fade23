"""Rack elevations: which rack every device of a design stands in, at which U, and what each
rack draws.

Pure Python over the engine's `Design`, so pages, exports and the bench share one placement. The
placement follows the engine's own geometry (`engine.geometry`): compute racks fill rows of
`racks_per_row` in server order; a top-of-rack leaf stands in the first rack of the servers it
serves (rail leaves spread over their unit's racks, one rail per rack in turn); middle- and
end-of-row leaves stand in their row's network rack; leaves in network racks, spines and cores
in the network row. Network racks fill up to their height (and power limit) and then open the
next, as an installer would; a compute rack holds its servers whatever they need, so only a
compute rack can overflow, and that is a warning naming it.

What the catalog does not know is stated, not guessed silently: a server's height (`8U` for an
8-GPU server unless the customer's server says otherwise) and its power (0 W unless given);
two 1U PDUs (A and B feeds) at the bottom of every rack; one 1U horizontal cable manager per
two switches; patch panels of a structured run split evenly over the racks of its two tiers."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field

from engine import names
from engine.design import Design, PlaneDesign
from engine.geometry import in_rack_leaf, rail_style
from engine.pools import pool_racks
from engine.request import LeafPlacement
from engine.text import Text, gettext_noop, text
from planner.handover.rack_scale import rack_scale_stack, rack_scale_warnings

RACK_HEIGHT_U = 42
PDU_UNITS = 2  # two 1U horizontal PDUs, A and B feeds
SWITCHES_PER_CABLE_MANAGER = 2
NETWORK_ROW = "NET"
GENERIC_PANEL = "patch panel (generic)"


def default_server_units(gpus_per_server: int) -> int:
    """Rack units of a GPU server when the customer's server does not say: 8U for 8 GPUs and
    more (HGX-class), 4U for 4 to 7, 2U below."""
    if gpus_per_server >= 8:
        return 8
    if gpus_per_server >= 4:
        return 4
    return 2


@dataclass(frozen=True, kw_only=True)
class ServerModel:
    """The customer's server as far as the rack cares. `power_w` is per server, typical."""

    name: str = ""
    rack_units: int = 0  # 0: `default_server_units`
    power_w: int = 0
    power_max_w: int = 0


@dataclass(frozen=True, kw_only=True)
class RackItem:
    u: int  # lowest U it occupies, 1 at the bottom
    units: int
    device: str
    model: str
    role: str  # server, leaf, spine, core, patch_panel, cable_manager, pdu
    plane: str = ""
    power_w: float = 0.0
    power_max_w: float = 0.0

    @property
    def top_u(self) -> int:
        return self.u + self.units - 1


@dataclass(frozen=True, kw_only=True)
class Rack:
    name: str
    kind: str  # compute | network
    row: int | None  # 0-based row of compute racks; None for the network row
    order: float  # where it stands along its row, for drawing
    height_u: int
    items: tuple[RackItem, ...]

    @property
    def used_u(self) -> int:
        return sum(item.units for item in self.items)

    @property
    def power_w(self) -> int:
        return round(sum(item.power_w for item in self.items))

    @property
    def power_max_w(self) -> int:
        return round(sum(item.power_max_w for item in self.items))

    @property
    def over_height(self) -> bool:
        return any(item.top_u > self.height_u for item in self.items)


@dataclass(frozen=True, kw_only=True)
class Elevations:
    racks: tuple[Rack, ...]
    warnings: tuple[Text, ...]
    device_rack: dict[str, str] = field(compare=False, repr=False)
    server_units: int
    server_power_stated: bool

    def rack(self, name: str) -> Rack | None:
        return next((rack for rack in self.racks if rack.name == name), None)


def compute_rack_name(index: int, racks_per_row: int) -> str:
    row, pos = divmod(index, racks_per_row)
    return f"R{row + 1:02d}-{pos + 1:02d}"


def _row_network_rack(row: int, number: int) -> str:
    return f"R{row + 1:02d}-N{number}"


def _network_rack(number: int) -> str:
    return f"{NETWORK_ROW}-{number:02d}"


@dataclass
class _Device:
    name: str
    model: str
    role: str
    plane: str
    units: int
    power_w: float
    power_max_w: float


@dataclass
class _Power:
    """Typical and maximum watts per device of (plane, role)."""

    typical: dict[tuple[str, str], float] = field(default_factory=lambda: defaultdict(float))
    maximum: dict[tuple[str, str], float] = field(default_factory=lambda: defaultdict(float))


def _device_power(design: Design) -> _Power:
    """Per device: the switch without optics from its BOM line, plus half of every module and
    active cable on the links of its tier (the other half sits at the far end), NICs on the
    servers. Counts come from the design, so the rack totals add up to the BOM's."""
    counts: dict[tuple[str, str], int] = {}
    # A pool's servers (engine.pools) draw their own NICs and modules, under the pool's name.
    pools = {pool.name: pool.servers for pool in design.request.pools}
    for plane in design.planes:
        for tier in plane.tiers:
            counts[(plane.name, tier.role)] = tier.count
        counts[(plane.name, "server")] = design.servers
        counts[(plane.name, "endpoint")] = design.servers
    power = _Power()
    for line in design.bom:
        line_max = max(line.power_max_w, line.power_w)
        servers = pools.get(line.plane, design.servers)
        server_key = (line.plane if line.plane in pools else "", "server")
        if line.category == "switch":
            key = (line.plane, line.tier)
            power.typical[key] += line.power_w / max(line.quantity, 1)
            power.maximum[key] += line_max / max(line.quantity, 1)
        elif line.category == "nic":
            power.typical[server_key] += line.power_w / max(servers, 1)
            power.maximum[server_key] += line_max / max(servers, 1)
        elif line.category in ("transceiver", "cable") and "-" in line.tier:
            for role in line.tier.split("-", 1):
                role = "server" if role == "endpoint" else role
                plane_key = server_key[0] if role == "server" else line.plane
                count = servers if role == "server" else counts.get((line.plane, role), 0)
                if count:
                    power.typical[(plane_key, role)] += line.power_w * 0.5 / count
                    power.maximum[(plane_key, role)] += line_max * 0.5 / count
    return power


def _leaf_locations(plane: PlaneDesign, design: Design) -> Iterator[tuple[str, str | None, int]]:
    """(leaf name, compute rack it stands in or None, row) for every leaf of a plane."""
    shape = plane.shape
    layout = design.request.layout
    spr, per_row = layout.servers_per_rack, layout.racks_per_row
    placement = layout.leaf_placement
    base, last = 0, design.racks - 1  # a pool's leaves stand in its own racks
    for pool, first_rack, racks in pool_racks(design.request):
        if pool.name == plane.name:
            spr, base, last = pool.servers_per_rack, first_rack, first_rack + racks - 1
    for fabric_plane in range(shape.fabric_planes):
        leaf_index = 0
        first = 0
        for group in shape.leaf_groups:
            for _ in range(group.count):
                for within in range(group.leaves):
                    name = names.leaf(shape, fabric_plane, leaf_index)
                    if shape.style == "packed":
                        endpoint = leaf_index * shape.leaf_downlinks
                        server_ports = shape.servers - shape.extra_endpoints
                        server = min(endpoint, max(server_ports - 1, 0)) // max(
                            shape.ports_per_server, 1
                        )
                    else:
                        server = first
                    rack = base + server // spr
                    row = rack // per_row
                    if placement == LeafPlacement.TOR and in_rack_leaf(shape, layout):
                        if rail_style(shape):
                            rail = fabric_plane * shape.ports_per_server + within
                            rack += rail % math.ceil(group.servers / spr)
                            rack = min(rack, last)
                        yield name, compute_rack_name(rack, per_row), rack // per_row
                    elif placement == LeafPlacement.NETWORK_RACK:
                        yield name, None, -1
                    else:
                        # A single switch for many racks cannot stand in all of them: middle of
                        # the row, as the engine measures its runs (`geometry.rack_run_m`).
                        yield name, None, row if placement != LeafPlacement.TOR else 0
                    leaf_index += 1
                first += group.servers


def _switches(plane: PlaneDesign, role: str) -> Iterator[str]:
    shape = plane.shape
    for fabric_plane in range(shape.fabric_planes):
        if role == "spine":
            for pod in range(shape.pods if shape.tiers == 3 else 1):
                for index in range(shape.spines_per_pod):
                    yield names.spine(shape, fabric_plane, pod, index)
        elif role == "core":
            for index in range(shape.cores):
                yield names.core(shape, fabric_plane, index)


class _NetworkRacks:
    """Network racks of one place (a row, or the network row), filled in turn: a new rack opens
    when the next device does not fit the height or the power limit."""

    def __init__(self, namer: object, height_u: int, limit_w: int | None) -> None:
        self.namer = namer
        self.height_u = height_u
        self.limit_w = limit_w
        self.racks: list[list[_Device]] = []
        # The open rack's totals, kept as devices go in: summing the rack again for every
        # device made a million-GPU design's network racks quadratic (3 s of 10).
        self._units_used = self._switches = 0
        self._power_w = 0.0
        self._names: list[str] = []

    def add(self, device: _Device) -> str:
        switch = 1 if device.role != "patch_panel" else 0
        if self.racks:
            switches = self._switches + switch
            managers = math.ceil(switches / SWITCHES_PER_CABLE_MANAGER)
            units = PDU_UNITS + self._units_used + device.units + managers
            power = self._power_w + device.power_max_w
            if units <= self.height_u and (self.limit_w is None or power <= self.limit_w):
                self.racks[-1].append(device)
                self._units_used += device.units
                self._switches, self._power_w = switches, power
                return self.name(len(self.racks) - 1)
        self.racks.append([device])
        self._units_used, self._switches, self._power_w = device.units, switch, device.power_max_w
        return self.name(len(self.racks) - 1)

    def name(self, index: int) -> str:
        while len(self._names) <= index:  # named once, not once per device it holds
            namer = self.namer
            assert callable(namer)
            self._names.append(namer(len(self._names) + 1))
        return self._names[index]


# The same in every rack, and immutable: made once, not once per rack (36,288 at 1M GPUs).
_PDUS = tuple(
    RackItem(u=u + 1, units=1, device=f"PDU-{'AB'[u % 2]}", model="PDU", role="pdu")
    for u in range(PDU_UNITS)
)


def _stack(
    devices: list[_Device], height_u: int, top: list[_Device], *, pdus: bool = True
) -> tuple[RackItem, ...]:
    """PDUs at the bottom, `devices` upwards from them; `top` (switches with their cable
    managers, patch panels above them) downwards from the top of the rack. When the two meet,
    the top group continues above the bottom one, past the rack's height: the overflow shows.
    A rack-scale rack has no PDUs: its power shelves are among its `devices`."""
    items = list(_PDUS) if pdus else []
    u = (PDU_UNITS if pdus else 0) + 1
    for device in devices:
        items.append(_item(device, u))
        u += device.units
    top_items: list[tuple[_Device | None, int]] = []
    panels = [d for d in top if d.role == "patch_panel"]
    switches = [d for d in top if d.role != "patch_panel"]
    for device in panels:
        top_items.append((device, device.units))
    for index, device in enumerate(switches):
        top_items.append((device, device.units))
        if (
            index % SWITCHES_PER_CABLE_MANAGER == SWITCHES_PER_CABLE_MANAGER - 1
            or index == len(switches) - 1
        ):
            top_items.append((None, 1))
    needed = sum(units for _, units in top_items)
    ceiling = max(height_u, u - 1 + needed)
    managers = 0
    for entry, units in top_items:
        ceiling -= units
        if entry is None:
            managers += 1
            items.append(
                RackItem(
                    u=ceiling + 1,
                    units=1,
                    device=f"CM-{managers}",
                    model="1U cable manager",
                    role="cable_manager",
                )
            )
        else:
            items.append(_item(entry, ceiling + 1))
    return tuple(sorted(items, key=lambda item: item.u))


def _rack_part(name: str, model: str, role: str, units: int, watts: float) -> _Device:
    """A rack-scale rack's part (`rack_scale.rack_scale_stack`)."""
    return _Device(name, model, role, "", units, watts, watts)


def _item(device: _Device, u: int) -> RackItem:
    return RackItem(
        u=u,
        units=device.units,
        device=device.name,
        model=device.model,
        role=device.role,
        plane=device.plane,
        power_w=device.power_w,
        power_max_w=device.power_max_w,
    )


def design_elevations(
    design: Design, *, rack_height_u: int = RACK_HEIGHT_U, server: ServerModel | None = None
) -> Elevations:
    """Every rack of `design` with its U positions and power; warnings name each rack over its
    height or over the layout's power limit."""
    server = server or ServerModel()
    server_units = server.rack_units or default_server_units(design.gpus_per_server)
    power = _device_power(design)
    limit = design.request.layout.max_rack_power_w
    compute, device_rack = _place_servers(design, server, server_units, power)
    compute_top: dict[str, list[_Device]] = defaultdict(list)
    network = _NetworkRacks(_network_rack, rack_height_u, limit)
    rows: dict[int, _NetworkRacks] = {}
    _place_switches(design, power, device_rack, compute_top, network, rows)
    _place_panels(design, device_rack, compute_top, network, rows)
    racks = _racks(design, rack_height_u, compute, compute_top, network, rows)
    return Elevations(
        racks=tuple(racks),
        warnings=_warnings(racks, limit) + rack_scale_warnings(design, racks),
        device_rack=device_rack,
        server_units=server_units,
        server_power_stated=server.power_w > 0,
    )


def _place_servers(
    design: Design, server: ServerModel, server_units: int, power: _Power
) -> tuple[dict[str, list[_Device]], dict[str, str]]:
    """The servers, `servers_per_rack` to a compute rack in hall order, and where each went."""
    layout = design.request.layout
    compute: dict[str, list[_Device]] = defaultdict(list)
    device_rack: dict[str, str] = {}
    nic_w = power.typical[("", "server")]
    nic_max_w = power.maximum[("", "server")]
    up = design.scale_up
    if up is not None:  # a compute tray draws its stated all-in figure (NICs and modules too)
        tray_w = float(design.request.scale_up.tray_power_w if design.request.scale_up else 0)
        model = f"{up.system or 'rack-scale'} compute tray"
        server = ServerModel(name=model, rack_units=1, power_w=round(tray_w))
        server_units, nic_w, nic_max_w = 1, 0.0, 0.0
    for index in range(design.servers):
        rack = compute_rack_name(index // layout.servers_per_rack, layout.racks_per_row)
        name = names.server(index, design.servers)
        compute[rack].append(
            _Device(
                name=name,
                model=server.name or f"{design.gpus_per_server}-GPU server",
                role="server",
                plane="",
                units=server_units,
                power_w=server.power_w + nic_w,
                power_max_w=(server.power_max_w or server.power_w) + nic_max_w,
            )
        )
        device_rack[name] = rack
    for pool, first_rack, _racks in pool_racks(design.request):
        for index in range(pool.servers):
            rack = compute_rack_name(
                first_rack + index // pool.servers_per_rack, layout.racks_per_row
            )
            name = names.server(index, pool.servers, pool.name)
            compute[rack].append(
                _Device(
                    name=name,
                    model=f"{pool.gpus_per_server}-GPU server",
                    role="server",
                    plane="",
                    units=default_server_units(pool.gpus_per_server),
                    power_w=power.typical[(pool.name, "server")],
                    power_max_w=power.maximum[(pool.name, "server")],
                )
            )
            device_rack[name] = rack
    return compute, device_rack


def _place_switches(
    design: Design,
    power: _Power,
    device_rack: dict[str, str],
    compute_top: dict[str, list[_Device]],
    network: _NetworkRacks,
    rows: dict[int, _NetworkRacks],
) -> None:
    """Leaves at the top of their compute rack, in their row's network racks or in the network
    row, as the layout places them; spines and cores in the network row."""

    def row_racks(row: int) -> _NetworkRacks:
        if row not in rows:
            rows[row] = _NetworkRacks(
                lambda n, r=row: _row_network_rack(r, n), network.height_u, network.limit_w
            )
        return rows[row]

    def device(plane: PlaneDesign, role: str, name: str) -> _Device:
        tier = plane.tier(role)
        assert tier is not None
        return _Device(
            name=name,
            model=tier.switch,
            role=role,
            plane=plane.name,
            units=max(tier.rack_units, 1),
            power_w=power.typical[(plane.name, role)],
            power_max_w=power.maximum[(plane.name, role)],
        )

    for plane in design.planes:
        for name, rack_name, row in _leaf_locations(plane, design):
            leaf = device(plane, "leaf", name)
            if rack_name is not None:
                compute_top[rack_name].append(leaf)
                device_rack[name] = rack_name
            elif row < 0:
                device_rack[name] = network.add(leaf)
            else:
                device_rack[name] = row_racks(row).add(leaf)
        for role in ("spine", "core"):
            if plane.tier(role) is None:
                continue
            for name in _switches(plane, role):
                device_rack[name] = network.add(device(plane, role, name))


def _racks(
    design: Design,
    rack_height_u: int,
    compute: dict[str, list[_Device]],
    compute_top: dict[str, list[_Device]],
    network: _NetworkRacks,
    rows: dict[int, _NetworkRacks],
) -> list[Rack]:
    """The compute racks in hall order, then each row's network racks (drawn at the row's
    middle for middle-of-row leaves, else at its end), then the network row's."""
    layout = design.request.layout
    per_row = layout.racks_per_row
    racks: list[Rack] = []
    indices = [*range(design.racks)] + [  # each pool's racks start a row of their own
        first + k for _pool, first, racks in pool_racks(design.request) for k in range(racks)
    ]
    for index in indices:
        name = compute_rack_name(index, per_row)
        row, pos = divmod(index, per_row)
        devices, pdus = compute[name], True
        if design.scale_up is not None and index < design.racks:  # shelves on a bus bar
            devices, pdus = rack_scale_stack(design, name, devices, _rack_part), False
        racks.append(
            Rack(
                name=name,
                kind="compute",
                row=row,
                order=float(pos),
                height_u=rack_height_u,
                items=_stack(devices, rack_height_u, compute_top[name], pdus=pdus),
            )
        )
    middle = (per_row - 1) / 2 if layout.leaf_placement == LeafPlacement.MOR else float(per_row)
    for row, filler in sorted(rows.items()):
        for index, devices in enumerate(filler.racks):
            racks.append(
                Rack(
                    name=filler.name(index),
                    kind="network",
                    row=row,
                    order=middle + index * 0.01,
                    height_u=rack_height_u,
                    items=_stack([], rack_height_u, devices),
                )
            )
    for index, devices in enumerate(network.racks):
        racks.append(
            Rack(
                name=network.name(index),
                kind="network",
                row=None,
                order=float(index),
                height_u=rack_height_u,
                items=_stack([], rack_height_u, devices),
            )
        )
    return racks


def _place_panels(
    design: Design,
    device_rack: dict[str, str],
    compute_top: dict[str, list[_Device]],
    network: _NetworkRacks,
    rows: dict[int, _NetworkRacks],
) -> None:
    """A structured run has a panel port at each end: half of a link group's panels go to the
    racks of its upper tier, half to its lower tier's, spread evenly over those racks."""
    panel_units: dict[str, int] = {}
    numbers: dict[tuple[str, str], int] = defaultdict(int)  # panel names unique per plane end
    for line in design.bom:
        if line.category == "patch_panel" and line.sku and line.quantity:
            panel_units[line.sku] = max(1, line.rack_units // line.quantity)
    # The racks holding each plane's tier, found once per plane and tier: a scan of every
    # device per link group took 10 of the 11 s a million-GPU design's elevations cost.
    tier_racks: dict[tuple[str, str], list[str]] = {}
    for plane in design.planes:
        for group in plane.links:
            if not group.panels:
                continue
            # A generic panel (a catalog gap) has no SKU: it still takes rack space.
            model = group.panel_sku or GENERIC_PANEL
            upper_share = math.ceil(group.panels / 2)
            for role, share in ((group.b, upper_share), (group.a, group.panels - upper_share)):
                key = (plane.name, role)
                if key not in tier_racks:
                    tier_racks[key] = sorted(set(_racks_of(plane, role, device_rack)))
                racks = tier_racks[key]
                if not racks:
                    racks = [NETWORK_ROW]
                for k in range(share):
                    rack = racks[k % len(racks)]
                    numbers[(plane.name, role)] += 1
                    panel = _Device(
                        name=f"PP-{plane.name}-{role}-{numbers[(plane.name, role)]}",
                        model=model,
                        role="patch_panel",
                        plane=plane.name,
                        units=panel_units.get(model, 1),
                        power_w=0.0,
                        power_max_w=0.0,
                    )
                    if rack.startswith(NETWORK_ROW):
                        network.add(panel)
                    elif "-N" in rack:
                        # "R07-N2", "R123-N1": past 99 rows the row number has more digits.
                        rows[int(rack[1 : rack.index("-N")]) - 1].add(panel)
                    else:
                        compute_top[rack].append(panel)


def _role_of(name: str) -> str:
    for role in ("leaf", "spine", "core"):
        if role in name:
            return role
    return "server"


def _racks_of(plane: PlaneDesign, role: str, device_rack: dict[str, str]) -> list[str]:
    role = "server" if role in ("server", "endpoint", "storage") else role
    prefix = "" if plane.name == "compute" else f"{plane.name}-"
    out = []
    for name, rack in device_rack.items():
        if role == "server":
            if name.startswith("srv"):
                out.append(rack)
        elif _role_of(name) == role and (
            name.startswith(prefix) if prefix else name.split("-")[0] not in _OTHER_PLANES
        ):
            out.append(rack)
    return out


_OTHER_PLANES = frozenset({"storage", "frontend", "oob"})


def _warnings(racks: list[Rack], limit_w: int | None) -> tuple[Text, ...]:
    out: list[Text] = []
    for rack in racks:
        if rack.over_height:
            top = max(item.top_u for item in rack.items)
            out.append(
                text(
                    gettext_noop(
                        "Rack %(rack)s needs %(used)sU but holds %(height)sU: move servers or "
                        "switches to another rack."
                    ),
                    rack=rack.name,
                    used=top,
                    height=rack.height_u,
                )
            )
        if limit_w is not None and rack.power_max_w > limit_w:
            out.append(
                text(
                    gettext_noop(
                        "Rack %(rack)s draws up to %(power)s W, above the %(limit)s W limit."
                    ),
                    rack=rack.name,
                    power=rack.power_max_w,
                    limit=limit_w,
                )
            )
    return tuple(out)


@dataclass(frozen=True, kw_only=True)
class RackLayout:
    """Racks that hold the same things at the same U positions (device names aside): `rack`
    is the first of them, `count` how many there are."""

    rack: Rack
    count: int


def rack_layouts(elevations: Elevations) -> list[RackLayout]:
    """The distinct rack layouts of a design, in hall order of their first rack: a 16,384-GPU
    design's 547 racks are 9 layouts, few enough to draw where every rack is not."""
    first: dict[tuple[object, ...], Rack] = {}
    counts: dict[tuple[object, ...], int] = defaultdict(int)
    for rack in elevations.racks:
        key = (
            rack.kind,
            rack.height_u,
            tuple((item.u, item.units, item.role, item.model, item.plane) for item in rack.items),
        )
        first.setdefault(key, rack)
        counts[key] += 1
    return [RackLayout(rack=rack, count=counts[key]) for key, rack in first.items()]


def network_rack_count(elevations: Elevations) -> int:
    """Racks of switches only (a row's network racks and the network row): the compute racks
    are the design's own count (`Design.racks`, the stored result's `racks`)."""
    return sum(1 for rack in elevations.racks if rack.kind == "network")


def rack_of(elevations: Elevations, device: str) -> str:
    """The rack a device (or the first of a breakout's devices) stands in; devices the design
    does not place (storage nodes, switch management ports) are in the network row."""
    first = device.split("+", 1)[0]
    return elevations.device_rack.get(first, NETWORK_ROW)


__all__ = [
    "Elevations",
    "Rack",
    "RackItem",
    "RackLayout",
    "ServerModel",
    "compute_rack_name",
    "default_server_units",
    "design_elevations",
    "network_rack_count",
    "rack_layouts",
    "rack_of",
]
