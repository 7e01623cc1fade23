"""Switch models as the fabric arithmetic sees them: port groups that run at a speed natively or
broken out, whether the switch comes from the catalog or from an inline `PORTSxSPEED` spec."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Hashable
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache
from typing import Concatenate, ParamSpec, TypeVar, cast

from engine.catalog import (
    ACCEPTS,
    NATIVE_SPEEDS_GBPS,
    Breakout,
    FormFactor,
    Lifecycle,
    PortGroup,
    SwitchSpec,
)
from engine.text import Text, gettext_noop
from engine.text import text as make_text

INLINE_SPEC = re.compile(r"^\s*(\d+)\s*[xX]\s*(\d+)\s*[gG]?\s*$")

# An inline switch's description: English in the engine's results (stored as is), and a template
# the web layer translates (`inline_description`), so pages and documents name it in the reader's
# language. The same msgid as the catalog gap's text in engine.sizing.
INLINE_DESCRIPTION = gettext_noop(
    "Switch, %(ports)s x %(speed)sG (inline spec, not a catalog product)"
)
_INLINE_DESCRIPTION_RE = re.compile(
    "^"
    + re.escape(INLINE_DESCRIPTION)
    .replace(re.escape("%(ports)s"), r"(?P<ports>[\d,]+)")
    .replace(re.escape("%(speed)s"), r"(?P<speed>[\d,]+)")
    + "$"
)

# Breakout modes per native port speed, from media-and-fabric-facts.md ("Breakouts and twin-port
# optics"). A ways=1 entry is a port that negotiates down (an SFP28 port running 10G).
INLINE_BREAKOUTS: dict[int, tuple[Breakout, ...]] = {
    800: (Breakout(ways=2, speed_gbps=400), Breakout(ways=4, speed_gbps=200),
          Breakout(ways=8, speed_gbps=100)),
    400: (Breakout(ways=2, speed_gbps=200), Breakout(ways=4, speed_gbps=100)),
    200: (Breakout(ways=2, speed_gbps=100), Breakout(ways=4, speed_gbps=50)),
    100: (Breakout(ways=4, speed_gbps=25), Breakout(ways=2, speed_gbps=50)),
    50: (Breakout(ways=2, speed_gbps=25),),
    25: (Breakout(ways=1, speed_gbps=10),),
    10: (Breakout(ways=1, speed_gbps=1),),
}  # fmt: skip

INLINE_FORM_FACTOR: dict[int, FormFactor] = {
    800: FormFactor.OSFP,
    400: FormFactor.QSFP_DD,
    200: FormFactor.QSFP56,
    100: FormFactor.QSFP28,
    50: FormFactor.SFP56,
    25: FormFactor.SFP28,
    10: FormFactor.SFP_PLUS,
    1: FormFactor.RJ45,
}

# Without a datasheet, an inline switch's power without optics is estimated from its switching
# capacity: about 15 W per Tbps plus 150 W for fans, CPU and PSU losses. A 51.2T 64x800 box lands
# near 0.92 kW, the SN5610's typical figure without optics (ports-cages-and-plugs.md, "Power");
# the optics it holds are counted on their own lines. Maximum load: half as much again.
INLINE_WATTS_PER_TBPS = 15
INLINE_BASE_W = 150
INLINE_MAX_FACTOR = 1.5

_P = ParamSpec("_P")
_R = TypeVar("_R")


@dataclass(frozen=True, kw_only=True)
class SwitchModel:
    """A switch resolved for sizing: a catalog SKU or an inline spec."""

    label: str  # the SKU, or the inline spec as written ("64x400")
    sku: str | None
    description: str
    port_groups: tuple[PortGroup, ...]
    power_w: int  # typical, without optics
    rack_units: int
    lifecycle: Lifecycle = Lifecycle.AVAILABLE
    power_max_w: int = 0  # maximum load, without optics

    def __hash__(self) -> int:
        # Equal models have equal labels, so the label alone is a valid hash; the generated one
        # walks every port group and breakout, and models key memo entries (`per_model`).
        return hash((self.label, self.sku))

    @cached_property
    def derived(self) -> dict[Hashable, object]:
        """What sizing derives from this model's ports, keyed by question (see `per_model`)."""
        return {}

    @cached_property
    def physical_ports(self) -> int:
        return sum(group.count for group in self.port_groups)

    @cached_property
    def max_speed_gbps(self) -> int:
        return max(group.speed_gbps for group in self.port_groups)

    def speeds_gbps(self) -> tuple[int, ...]:
        """Every logical port speed this switch can run, fastest first."""
        return _speeds_gbps(self)

    def logical_ports(self, speed_gbps: int) -> int:
        return _logical_ports(self, speed_gbps)

    def breakout_label(self, speed_gbps: int) -> str:
        """How ports run at `speed_gbps`: "" when native, else e.g. "2x400G" (first group that
        needs a breakout to reach it)."""
        return _breakout_label(self, speed_gbps)


def per_model(
    function: Callable[Concatenate[SwitchModel, _P], _R],
) -> Callable[Concatenate[SwitchModel, _P], _R]:
    """Memoise a pure function of a switch model (and hashable arguments, other switch models
    included) on the model itself.

    Models are immutable and a request reuses a few of them many times, so port arithmetic is
    done once per model and question; the cost of sizing then stays flat as tiers are added."""

    # The name, not the function, keys the memo, so a model with its memo still pickles.
    name = f"{function.__module__}.{function.__qualname__}"

    def memoised(model: SwitchModel, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        key = (name, *args, *kwargs.items()) if kwargs else (name, *args)
        store = model.derived
        try:
            return cast(_R, store[key])
        except KeyError:
            value = store[key] = function(model, *args, **kwargs)
            return value

    functools.update_wrapper(memoised, function)
    return memoised


@per_model
def _speeds_gbps(model: SwitchModel) -> tuple[int, ...]:
    speeds = {g.speed_gbps for g in model.port_groups}
    speeds.update(b.speed_gbps for g in model.port_groups for b in g.breakouts)
    speeds.update(
        s
        for g in model.port_groups
        for s in NATIVE_SPEEDS_GBPS.get(g.form_factor, ())
        if s < g.speed_gbps
    )
    return tuple(sorted(speeds, reverse=True))


@per_model
def _logical_ports(model: SwitchModel, speed_gbps: int) -> int:
    return sum(group.count * ways(group, speed_gbps) for group in model.port_groups)


@per_model
def _breakout_label(model: SwitchModel, speed_gbps: int) -> str:
    for group in model.port_groups:
        if group.speed_gbps == speed_gbps:
            return ""
    for group in model.port_groups:
        per_port = ways(group, speed_gbps)
        if per_port > 1:
            return f"{per_port}x{speed_gbps}G"
        if per_port == 1:
            return f"{group.speed_gbps}G port at {speed_gbps}G"
    return ""


@lru_cache(maxsize=4096)
def ways(group: PortGroup, speed_gbps: int) -> int:
    """Logical ports of `speed_gbps` one physical port of `group` gives; 0 when it cannot. A
    lower speed the cage runs natively (a 10G SFP+ plug in an SFP28 cage) is one port, unless a
    breakout gives more."""
    if group.speed_gbps == speed_gbps:
        return 1
    split = max((b.ways for b in group.breakouts if b.speed_gbps == speed_gbps), default=0)
    if split:
        return split
    native = NATIVE_SPEEDS_GBPS.get(group.form_factor, ())
    return 1 if speed_gbps < group.speed_gbps and speed_gbps in native else 0


def _plug_runs(cage: FormFactor, speed_gbps: int) -> bool:
    """Whether a plug `cage` takes runs `speed_gbps` as its own, one link per cage: a QSFP56
    module (200G) in a QSFP-DD cage, which the QSFP-DD MSA makes backward compatible."""
    return any(
        speed_gbps in NATIVE_SPEEDS_GBPS.get(plug, ())
        for plug in ACCEPTS.get(cage, frozenset({cage}))
        if plug != cage
    )


# One model per (model, speed), so every size of a request finds its port arithmetic memoised.
@lru_cache(maxsize=256)
def unsplit(model: SwitchModel, speed_gbps: int) -> SwitchModel | None:
    """`model` with its ports that break out to `speed_gbps` running one link each instead, on a
    plug of that speed the cage takes (a 400G QSFP-DD port at 200G on a QSFP56 module, not split
    2 x 200G); None when no port group would change. Half the links per port, but each end a
    plain module of the far end's kind: where the catalog sells no optic for the breakout
    (QSFP-DD 2 x 200G-SR4), the unsplit port is the one it can price (issue 26, item 1). The
    one-link mode is written as a breakout of one way, so `ways` and the port labels ("400G
    port at 200G") read it as they read any other."""
    groups = []
    changed = False
    for group in model.port_groups:
        split = any(b.speed_gbps == speed_gbps and b.ways > 1 for b in group.breakouts)
        if split and _plug_runs(group.form_factor, speed_gbps):
            kept = tuple(b for b in group.breakouts if b.speed_gbps != speed_gbps)
            group = replace(group, breakouts=(*kept, Breakout(ways=1, speed_gbps=speed_gbps)))
            changed = True
        groups.append(group)
    return replace(model, port_groups=tuple(groups)) if changed else None


def parse_inline(text: str) -> tuple[int, int] | None:
    match = INLINE_SPEC.match(text)
    if match is None:
        return None
    return int(match.group(1)), int(match.group(2))


def inline_description(ports: int, speed_gbps: int) -> Text:
    """An inline switch's description as a text to translate."""
    return make_text(INLINE_DESCRIPTION, ports=ports, speed=speed_gbps)


def inline_description_of(description: str) -> Text | None:
    """The text behind an inline switch's English description (as results stored before the
    switch carried its text have it: spares and growth parts name it so); None for any other."""
    match = _INLINE_DESCRIPTION_RE.match(description)
    if match is None:
        return None
    return inline_description(
        int(match.group("ports").replace(",", "")), int(match.group("speed").replace(",", ""))
    )


# Models are immutable and carry their memo of port arithmetic (`per_model`), so requests that
# name the same switch share one model and find that arithmetic done.
@lru_cache(maxsize=256)
def inline_model(ports: int, speed_gbps: int) -> SwitchModel:
    capacity_tbps = ports * speed_gbps / 1000
    group = PortGroup(
        count=ports,
        speed_gbps=speed_gbps,
        form_factor=INLINE_FORM_FACTOR.get(speed_gbps, FormFactor.QSFP_DD),
        breakouts=INLINE_BREAKOUTS.get(speed_gbps, ()),
    )
    return SwitchModel(
        label=f"{ports}x{speed_gbps}",
        sku=None,
        description=INLINE_DESCRIPTION % {"ports": ports, "speed": speed_gbps},
        port_groups=(group,),
        power_w=round(INLINE_BASE_W + INLINE_WATTS_PER_TBPS * capacity_tbps),
        power_max_w=round(
            (INLINE_BASE_W + INLINE_WATTS_PER_TBPS * capacity_tbps) * INLINE_MAX_FACTOR
        ),
        rack_units=1 if ports * speed_gbps <= 12_800 else 2,
    )


@lru_cache(maxsize=256)
def catalog_model(spec: SwitchSpec) -> SwitchModel:
    return SwitchModel(
        label=spec.sku,
        sku=spec.sku,
        description=spec.name,
        port_groups=spec.port_groups,
        power_w=round(spec.power_typical_w),
        power_max_w=round(spec.power_max_w),
        rack_units=spec.rack_units,
        lifecycle=spec.lifecycle,
    )


@per_model
def leaf_capacity(
    model: SwitchModel, down_gbps: int, up_gbps: int | None, downlinks: int
) -> tuple[int, int] | None:
    """(uplinks available, physical ports for the downlinks) after placing `downlinks` at
    `down_gbps`; None if they do not fit. Downlinks go to the slowest native groups first so the
    fast ports stay free for uplinks (a 48x25G + 8x100G ToR keeps its 100G ports for the spine)."""
    remaining = downlinks
    physical_down = 0
    left: list[tuple[PortGroup, int]] = []
    for group in sorted(model.port_groups, key=lambda g: (g.speed_gbps, -g.count)):
        per_port = ways(group, down_gbps)
        used = 0
        if per_port and remaining > 0:
            used = min(group.count, -(-remaining // per_port))
            remaining -= min(remaining, used * per_port)
        physical_down += used
        left.append((group, group.count - used))
    if remaining > 0:
        return None
    if up_gbps is None:
        return 0, physical_down
    return sum(count * ways(group, up_gbps) for group, count in left), physical_down
