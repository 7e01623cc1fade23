"""`parse_request`: a mapping from the CLI, the REST API or a saved JSON file, validated
against the catalog into a `DesignRequest`, or `RequestError` with one sentence per field."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import replace
from enum import StrEnum
from typing import Any

from engine.catalog import CatalogSnapshot, NicSpec, SwitchSpec
from engine.ports import SwitchModel, catalog_model, inline_model, parse_inline
from engine.request.fields import (
    PLANE_DEFAULTS,
    PLANE_FIELDS,
    TOP_FIELDS,
    _float_range,
    _int_range,
)
from engine.request.model import (
    MAX_OVERSUBSCRIPTION,
    NIC_SPEEDS_GBPS,
    Build,
    DesignRequest,
    Fabric,
    Layout,
    LeafPlacement,
    MediaPolicy,
    Oversubscription,
    PlaneRequest,
    RequestError,
    ScaleUpRequest,
    SwitchChoice,
)
from engine.request.pool_parse import parse_pools
from engine.request.scale_up_parse import parse_scale_up, with_system_defaults
from engine.text import Text, gettext_noop, text


class _Reader:
    """Collects every field error instead of stopping at the first."""

    def __init__(self, data: Mapping[str, object], prefix: str = "") -> None:
        self.data = data
        self.prefix = prefix
        self.errors: dict[str, Text] = {}

    def key(self, name: str) -> str:
        return f"{self.prefix}{name}"

    def fail(self, name: str, message: Text) -> None:
        self.errors.setdefault(self.key(name), message)

    def int_(self, name: str, default: int | None, low: int, high: int) -> int | None:
        raw = self.data.get(name)
        if raw is None or raw == "":
            if default is None:
                self.fail(name, text(gettext_noop("%(field)s is required."), field=name))
            return default
        value = _to_number(raw)
        if value is None or value != int(value):
            self.fail(
                name,
                text(
                    gettext_noop("%(field)s must be a whole number, not %(value)s."),
                    field=name,
                    value=repr(raw),
                ),
            )
            return default
        if not low <= value <= high:
            self.fail(
                name,
                text(
                    gettext_noop("%(field)s must be between %(low)s and %(high)s; got %(value)s."),
                    field=name,
                    low=low,
                    high=high,
                    value=int(value),
                ),
            )
            return default
        return int(value)

    def float_(self, name: str, default: float | None, low: float, high: float) -> float | None:
        raw = self.data.get(name)
        if raw is None or raw == "":
            return default
        value = _to_number(raw)
        if value is None or not low <= value <= high:
            self.fail(
                name,
                text(
                    gettext_noop(
                        "%(field)s must be a number between %(low)s and %(high)s; got %(value)s."
                    ),
                    field=name,
                    low=float(low),
                    high=float(high),
                    value=repr(raw),
                ),
            )
            return default
        return value

    def choice(self, name: str, enum: type[StrEnum], default: Any) -> Any:
        raw = self.data.get(name)
        if raw is None or raw == "":
            return default
        try:
            return enum(str(raw).strip().lower())
        except ValueError:
            allowed = ", ".join(member.value for member in enum)
            self.fail(
                name,
                text(
                    gettext_noop("%(field)s must be one of %(allowed)s; got %(value)s."),
                    field=name,
                    allowed=allowed,
                    value=repr(raw),
                ),
            )
            return default

    def bool_(self, name: str, default: bool) -> bool:
        raw = self.data.get(name)
        if raw is None or raw == "":
            return default
        if isinstance(raw, bool):
            return raw
        word = str(raw).strip().lower()
        if word in {"1", "true", "yes", "on"}:
            return True
        if word in {"0", "false", "no", "off"}:
            return False
        self.fail(
            name,
            text(
                gettext_noop("%(field)s must be true or false; got %(value)s."),
                field=name,
                value=repr(raw),
            ),
        )
        return default


# A number as people write one in a form: digits, thousands grouped by commas (or not), a
# decimal point. Not "1e3" (Python's float() took it, and the page echoed it as "1000.0"), nor
# "nan" or "inf" (which then failed inside int()).
_PLAIN_NUMBER = re.compile(r"[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|[+-]?\.\d+")


def _to_number(raw: object) -> float | None:
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int):
        return float(raw)
    if isinstance(raw, float):
        return raw if math.isfinite(raw) else None
    if isinstance(raw, str):
        written = raw.strip().replace("_", "")
        return float(written.replace(",", "")) if _PLAIN_NUMBER.fullmatch(written) else None
    return None


def resolve_switch(name: str, catalog: CatalogSnapshot) -> SwitchModel | Text:
    """The switch a `leaf`/`spine`/`core` value names, or the reason it names none."""
    for spec in catalog.switches:
        if spec.sku.lower() == name.strip().lower():
            return catalog_model(spec)
    inline = parse_inline(name)
    if inline is None:
        return text(
            gettext_noop(
                "%(value)s is neither a catalog switch SKU nor a PORTSxSPEED spec like 64x400."
            ),
            value=repr(name),
        )
    ports, speed = inline
    if not 1 <= ports <= 1024 or speed not in NIC_SPEEDS_GBPS:
        return text(
            gettext_noop("%(value)s: ports must be 1..1024 and the speed one of %(speeds)s Gbps."),
            value=repr(name),
            speeds=", ".join(str(s) for s in NIC_SPEEDS_GBPS),
        )
    return inline_model(ports, speed)


def _nic_fit(model: SwitchModel, nic_speed: int) -> Text | None:
    """Why servers at `nic_speed` cannot use this switch, or None."""
    if model.logical_ports(nic_speed) > 0:
        return None
    if nic_speed > model.max_speed_gbps:
        return text(
            gettext_noop("The %(nic)sG NIC is faster than the %(ports)sG ports of %(switch)s."),
            nic=nic_speed,
            ports=model.max_speed_gbps,
            switch=model.label,
        )
    return text(
        gettext_noop(
            "%(switch)s cannot run its ports at %(nic)sG by breakout (it runs %(speeds)s)."
        ),
        switch=model.label,
        nic=nic_speed,
        speeds=", ".join(f"{s}G" for s in model.speeds_gbps()),
    )


def _nic_unknown(sku: object) -> Text:
    return text(gettext_noop("NIC %(nic)s is not in the catalog."), nic=repr(sku))


def _speed_unknown(speed: int) -> Text:
    return text(
        gettext_noop("nic_speed must be one of %(speeds)s; got %(value)s."),
        speeds=", ".join(str(s) for s in NIC_SPEEDS_GBPS),
        value=speed,
    )


def _find_nic(sku: str, catalog: CatalogSnapshot) -> NicSpec | None:
    for nic in catalog.nics:
        if nic.sku.lower() == sku.strip().lower():
            return nic
    return None


def _switch_field(
    reader: _Reader, name: str, catalog: CatalogSnapshot, nic_speed: int | None
) -> SwitchChoice | None:
    raw = reader.data.get(name)
    if raw is None or raw == "":
        return None
    if isinstance(raw, SwitchSpec):
        return SwitchChoice(text=raw.sku, model=catalog_model(raw))
    given = str(raw).strip()
    model = resolve_switch(given, catalog)
    if isinstance(model, Text):
        reader.fail(name, model)
        return None
    if nic_speed is not None and name == "leaf":
        reason = _nic_fit(model, nic_speed)
        if reason is not None:
            reader.fail(name, reason)
            return None
    return SwitchChoice(text=given, model=model)


def _default_plane_switch(speed: int) -> str:
    return f"64x{speed}" if speed >= 100 else f"48x{speed}"


def _parse_plane(
    name: str, raw: object, catalog: CatalogSnapshot, errors: dict[str, Text]
) -> PlaneRequest | None:
    if raw is None or raw is False:
        return None
    if raw is True:
        raw = {}
    if not isinstance(raw, Mapping):
        errors[name] = text(
            gettext_noop("%(field)s must be a mapping of plane options, e.g. {'nic_speed': 100}."),
            field=name,
        )
        return None
    unknown = sorted(set(raw) - PLANE_FIELDS)
    reader = _Reader({**PLANE_DEFAULTS[name], **raw}, prefix=f"{name}.")
    for key in unknown:
        reader.fail(
            key, text(gettext_noop("%(field)s is not a plane option."), field=f"{name}.{key}")
        )
    nic: NicSpec | None = None
    if raw.get("nic"):
        nic = _find_nic(str(raw["nic"]), catalog)
        if nic is None:
            reader.fail("nic", _nic_unknown(raw["nic"]))
    speed_default = nic.speed_gbps if nic else None
    speed = (
        reader.int_("nic_speed", speed_default, 1, 800)
        if "nic_speed" in raw or not nic
        else speed_default
    )
    if speed is not None and speed not in NIC_SPEEDS_GBPS:
        reader.fail("nic_speed", _speed_unknown(speed))
        speed = None
    ports = reader.int_("ports", None, 1, 64)
    over = reader.float_("oversubscription", 1.0, 1.0, MAX_OVERSUBSCRIPTION)
    nodes = reader.int_("storage_nodes", 0, 0, 100_000) if name == "storage" else 0
    node_ports = (
        reader.int_("storage_node_ports", 2 if nodes else 0, 0, 64) if name == "storage" else 0
    )
    if speed is not None and "leaf" not in raw:
        reader.data = {**reader.data, "leaf": _default_plane_switch(speed)}
    leaf = _switch_field(reader, "leaf", catalog, speed)
    spine = _switch_field(reader, "spine", catalog, None) or leaf
    errors.update(reader.errors)
    if reader.errors or speed is None or ports is None or leaf is None or spine is None:
        return None
    return PlaneRequest(
        name=name,
        nic_speed_gbps=speed,
        ports=ports,
        nic=nic,
        leaf=leaf,
        spine=spine,
        oversubscription=over or 1.0,
        storage_nodes=nodes or 0,
        storage_node_ports=node_ports or 0,
    )


def _parse_uplink_speed(
    reader: _Reader,
    nic_speed: int | None,
    leaf: SwitchChoice | None,
    spine: SwitchChoice | None,
) -> int | None:
    speed = reader.int_("uplink_speed", 0, *_int_range("uplink_speed")) or None
    if speed is None:
        return None
    if speed not in NIC_SPEEDS_GBPS:
        reader.fail("uplink_speed", _speed_unknown(speed))
        return None
    if nic_speed is not None and speed < nic_speed:
        reader.fail(
            "uplink_speed",
            text(
                gettext_noop(
                    "uplink_speed (%(speed)sG) must be at least the NIC speed (%(nic)sG)."
                ),
                speed=speed,
                nic=nic_speed,
            ),
        )
        return None
    for choice in (leaf, spine):
        if choice is not None and choice.model.logical_ports(speed) == 0:
            reader.fail(
                "uplink_speed",
                text(
                    gettext_noop("%(switch)s has no %(speed)sG ports."),
                    switch=choice.model.label,
                    speed=speed,
                ),
            )
            return None
    return speed


def _parse_tolerance(reader: _Reader) -> float:
    raw = reader.data.get("oversubscription_tolerance")
    if raw is None or raw == "":
        return 0.0
    value = _to_number(raw)
    low, high = _float_range("oversubscription_tolerance")
    if value is None or not low <= value <= high:
        shown = f"{value * 100:g} %" if value is not None else repr(raw)
        reader.fail(
            "oversubscription_tolerance",
            text(
                gettext_noop(
                    "The oversubscription tolerance must be between 0 %% and 100 %% (0 to 1 in "
                    "a request file or the API); got %(value)s."
                ),
                value=shown,
            ),
        )
        return 0.0
    return value


def _parse_planes(reader: _Reader, fabric: Fabric | None, rails: int | None) -> int | None:
    planes = reader.int_("planes", 0, *_int_range("planes")) or None
    if planes is None:
        return None
    if fabric not in (Fabric.RAIL, None):
        reader.fail(
            "planes",
            text(
                gettext_noop(
                    "planes splits a rail-optimized fabric; the %(fabric)s fabric has its own "
                    "(rails_per_plane for rail planes)."
                ),
                fabric=fabric.value if fabric else "",
            ),
        )
        return None
    if rails is not None and rails % planes:
        reader.fail(
            "planes",
            text(
                gettext_noop(
                    "planes (%(planes)s) must divide the server's ports (rails, %(rails)s)."
                ),
                planes=planes,
                rails=rails,
            ),
        )
        return None
    return planes


def _parse_oversubscription(reader: _Reader) -> Oversubscription | None:
    raw = reader.data.get("oversubscription")
    if raw is None or raw == "":
        return None
    if isinstance(raw, Mapping):
        unknown = sorted(set(raw) - {"leaf", "spine"})
        if unknown:
            reader.fail(
                "oversubscription",
                text(
                    gettext_noop("oversubscription tiers are leaf and spine, not %(tiers)s."),
                    tiers=", ".join(map(str, unknown)),
                ),
            )
            return None
        sub = _Reader(raw, prefix="oversubscription.")
        leaf = sub.float_("leaf", 1.0, 1.0, MAX_OVERSUBSCRIPTION)
        spine = sub.float_("spine", 1.0, 1.0, MAX_OVERSUBSCRIPTION)
        reader.errors.update(sub.errors)
        return Oversubscription(leaf=leaf or 1.0, spine=spine or 1.0)
    ratio = str(raw).strip()
    if ":" in ratio:
        down, _, up = ratio.partition(":")
        num, den = _to_number(down), _to_number(up)
        value = num / den if num is not None and den else None
    else:
        value = _to_number(raw)
    low, high = _float_range("oversubscription")
    if value is None or not low <= value <= high:
        reader.fail(
            "oversubscription",
            text(
                gettext_noop(
                    "oversubscription is downlink:uplink bandwidth and must be between 1 and "
                    "%(high)s; got %(value)s."
                ),
                high=MAX_OVERSUBSCRIPTION,
                value=repr(raw),
            ),
        )
        return None
    return Oversubscription(leaf=value, spine=1.0)


def _parse_gpus(reader: _Reader) -> tuple[int | None, int | None]:
    """The GPUs and GPUs per server; a count that is not a whole number of servers is refused
    with the nearest ones that are."""
    gpus = reader.int_("gpus", None, *_int_range("gpus"))
    per_server = reader.int_("gpus_per_server", 8, *_int_range("gpus_per_server"))
    if gpus is not None and per_server is not None and gpus % per_server:
        lower = gpus - gpus % per_server
        higher = lower + per_server
        if lower:
            template = gettext_noop(
                "gpus (%(gpus)s) must be a multiple of gpus_per_server (%(per_server)s); "
                "use %(lower)s or %(higher)s."
            )
        else:  # fewer GPUs than one server holds: 0 is no answer
            template = gettext_noop(
                "gpus (%(gpus)s) must be a multiple of gpus_per_server (%(per_server)s); "
                "use %(higher)s."
            )
        reader.fail(
            "gpus",
            text(template, gpus=gpus, per_server=per_server, lower=lower, higher=higher),
        )
    return gpus, per_server


def _parse_nic(reader: _Reader, catalog: CatalogSnapshot) -> tuple[NicSpec | None, int | None]:
    """The catalog NIC, if named, and the NIC speed: the NIC's own unless asked otherwise (and
    then refused when the two differ)."""
    data = reader.data
    nic: NicSpec | None = None
    if data.get("nic"):
        nic = _find_nic(str(data["nic"]), catalog)
        if nic is None:
            reader.fail("nic", _nic_unknown(data["nic"]))
    nic_speed = reader.int_("nic_speed", nic.speed_gbps if nic else 400, *_int_range("nic_speed"))
    if nic_speed is not None and nic_speed not in NIC_SPEEDS_GBPS:
        reader.fail("nic_speed", _speed_unknown(nic_speed))
        nic_speed = None
    if nic is not None and nic_speed is not None and nic_speed != nic.speed_gbps:
        reader.fail(
            "nic_speed",
            text(
                gettext_noop("NIC %(nic)s runs at %(speed)sG, not %(asked)sG."),
                nic=nic.sku,
                speed=nic.speed_gbps,
                asked=nic_speed,
            ),
        )
    return nic, nic_speed


def _parse_fabric(reader: _Reader, rails: int | None) -> tuple[Fabric | None, bool, int | None]:
    """The fabric style, dual homing and rails per spine plane, checked against each other."""
    fabric = reader.choice("fabric", Fabric, None)
    if fabric is None and reader.data.get("leaf") not in (None, ""):
        # Naming a switch but no style means the ordinary rail fabric; naming neither leaves
        # both open for `alternatives`.
        fabric = Fabric.RAIL
    dual = bool(reader.bool_("dual_homing", False))
    if dual and fabric not in (Fabric.TOR, None):
        reader.fail(
            "dual_homing", text(gettext_noop("dual_homing applies to the tor fabric only."))
        )
    if dual and rails is not None and rails % 2:
        reader.fail(
            "dual_homing",
            text(
                gettext_noop(
                    "dual_homing splits each server's ports over a leaf pair; rails (%(rails)s) "
                    "must be even."
                ),
                rails=rails,
            ),
        )
    rails_per_plane = reader.int_("rails_per_plane", 1, *_int_range("rails_per_plane"))
    if rails and rails_per_plane and rails % rails_per_plane:
        reader.fail(
            "rails_per_plane",
            text(
                gettext_noop("rails_per_plane (%(per_plane)s) must divide rails (%(rails)s)."),
                per_plane=rails_per_plane,
                rails=rails,
            ),
        )
    return fabric, dual, rails_per_plane


def _parse_servers_per_su(
    reader: _Reader,
    leaf: SwitchChoice | None,
    fabric: Fabric | None,
    nic_speed: int | None,
    rails: int | None,
) -> int | None:
    """Servers per scalable unit, at most what one leaf serves."""
    servers_per_su = reader.int_("servers_per_su", 0, *_int_range("servers_per_su")) or None
    if servers_per_su and leaf is not None and nic_speed and rails:
        # A rail leaf takes one port of each server of its unit; a ToR leaf all of them.
        per_leaf = rails if fabric == Fabric.TOR else 1
        most = leaf.model.logical_ports(nic_speed) // max(per_leaf, 1)
        if servers_per_su > most:
            reader.fail(
                "servers_per_su",
                text(
                    gettext_noop(
                        "A leaf %(leaf)s serves at most %(most)s servers (%(ports)s ports of "
                        "%(speed)sG); choose %(most)s or fewer."
                    ),
                    leaf=leaf.model.label,
                    most=most,
                    ports=leaf.model.logical_ports(nic_speed),
                    speed=nic_speed,
                ),
            )
    return servers_per_su


def _parse_build(reader: _Reader, servers_per_su: int | None) -> Build:
    build = reader.choice("build", Build, Build.GROWTH)
    if build == Build.TODAY and servers_per_su:
        reader.fail(
            "build",
            text(
                gettext_noop(
                    "build today spreads servers evenly over units; it cannot be combined with "
                    "servers_per_su."
                )
            ),
        )
    return build or Build.GROWTH


def _parse_layout(reader: _Reader, fabric: Fabric | None) -> Layout:
    """Where racks stand: the geometry every cable run is measured from."""
    default_placement = LeafPlacement.TOR if fabric == Fabric.TOR else LeafPlacement.MOR
    return Layout(
        servers_per_rack=reader.int_("servers_per_rack", 4, *_int_range("servers_per_rack")) or 4,
        rack_width_m=reader.float_("rack_width_m", 0.6, *_float_range("rack_width_m")) or 0.6,
        racks_per_row=reader.int_("racks_per_row", 10, *_int_range("racks_per_row")) or 10,
        leaf_placement=reader.choice("leaf_placement", LeafPlacement, default_placement),
        spine_row_distance_m=reader.float_(
            "spine_row_distance_m", 20.0, *_float_range("spine_row_distance_m")
        )
        or 0.0,
        cable_slack_m=reader.float_("cable_slack_m", 0.5, *_float_range("cable_slack_m")) or 0.0,
        max_rack_power_w=reader.int_("max_rack_power_w", 0, *_int_range("max_rack_power_w"))
        or None,
    )


def parse_request(data: Mapping[str, object], catalog: CatalogSnapshot) -> DesignRequest:
    """Every field read in the order a sales engineer fills them in, each section's errors
    collected (`_Reader`) so that one answer names every field to fix."""
    reader = _Reader(data)
    for key in sorted(set(data) - TOP_FIELDS):
        reader.fail(key, text(gettext_noop("%(field)s is not a request field."), field=key))
    reader.data = data = with_system_defaults(data)  # a system's trays: 4 GPUs, 4 NICs

    gpus, per_server = _parse_gpus(reader)
    nic, nic_speed = _parse_nic(reader, catalog)
    rails = reader.int_("rails", per_server, *_int_range("rails"))
    fabric, dual, rails_per_plane = _parse_fabric(reader, rails)
    leaf = _switch_field(reader, "leaf", catalog, nic_speed)
    servers_per_su = _parse_servers_per_su(reader, leaf, fabric, nic_speed, rails)
    min_spines = reader.int_("min_spines", 2, *_int_range("min_spines")) or 2
    spine = _switch_field(reader, "spine", catalog, None)
    core = _switch_field(reader, "core", catalog, None)
    uplink_speed = _parse_uplink_speed(reader, nic_speed, leaf, spine)
    compute_planes = _parse_planes(reader, fabric, rails)
    oversubscription = _parse_oversubscription(reader)
    tolerance = _parse_tolerance(reader)
    build = _parse_build(reader, servers_per_su)
    if oversubscription is None and data.get("leaf") not in (None, ""):
        oversubscription = Oversubscription()  # a named switch without a ratio means 1:1
    media = reader.choice("media", MediaPolicy, MediaPolicy.AUTO)
    layout = _parse_layout(reader, fabric)
    scale_up = parse_scale_up(reader, catalog)
    if scale_up is not None:
        layout = _rack_scale_layout(reader, layout, scale_up)

    pools = parse_pools(reader, catalog, fabric, compute_planes)
    planes: dict[str, PlaneRequest | None] = {}
    for name in ("storage", "frontend", "oob"):
        planes[name] = _parse_plane(name, data.get(name), catalog, reader.errors)

    if reader.errors:
        raise RequestError(reader.errors)
    assert gpus is not None
    assert per_server is not None
    assert rails is not None
    assert nic_speed is not None
    assert rails_per_plane is not None
    return DesignRequest(
        gpus=gpus,
        gpus_per_server=per_server,
        rails=rails,
        nic_speed_gbps=nic_speed,
        nic=nic,
        fabric=fabric,
        leaf=leaf,
        spine=spine,
        core=core,
        oversubscription=oversubscription,
        media=media,
        dual_homing=dual,
        rails_per_plane=rails_per_plane,
        servers_per_su=servers_per_su,
        min_spines=min_spines,
        uplink_speed_gbps=uplink_speed,
        planes=compute_planes,
        oversubscription_tolerance=tolerance,
        build=build,
        layout=layout,
        storage=planes["storage"],
        frontend=planes["frontend"],
        oob=planes["oob"],
        scale_up=scale_up,
        pools=pools,
    )


def _rack_scale_layout(reader: _Reader, layout: Layout, scale_up: ScaleUpRequest) -> Layout:
    """A rack-scale rack holds its active trays as the servers of its rack: the cable runs,
    the rack count and the elevations all read `servers_per_rack`."""
    given = layout.servers_per_rack
    if reader.data.get("servers_per_rack") not in (None, "") and (
        given != scale_up.active_trays_per_rack
    ):
        reader.fail(
            "servers_per_rack",
            text(
                gettext_noop(
                    "servers_per_rack (%(given)s) is the active trays per rack (%(active)s) in "
                    "a rack-scale system; leave it out."
                ),
                given=given,
                active=scale_up.active_trays_per_rack,
            ),
        )
    return replace(layout, servers_per_rack=scale_up.active_trays_per_rack)
