"""Electrical lanes: whether a broken-out cage can feed the far cages at all (issue 26: "0 parts
with fibres or lanes that don't exist").

A breakout splits a cage's lanes among its legs; it does not change their signalling. So each leg
runs the cage's lane rate on its share of the lanes, and the far cage must take that rate on that
many lanes. The figures are the standards' (../shared/reference/ports-cages-and-plugs.md, "Form
factors and what they accept"): a 400G QSFP-DD cage runs 8 x 50G PAM4, so its 4 x 100G breakout
gives 2 x 50G legs, which a QSFP56 cage takes and a QSFP28 cage (4 x 25G NRZ) does not; an 800G
OSFP cage runs 8 x 100G, so "800G OSFP to 8 x QSFP28" and "800G to 4 x 200G QSFP56" do not exist.
This binds copper and AOC assemblies, electrical at both ends; optical modules convert lanes
(a QSFP28 100G-DR module takes one 100G lane of a 400G-DR4 breakout), so optics are free of it."""

from __future__ import annotations

from engine import generic
from engine.assemblies import PortEnd
from engine.catalog import FormFactor
from engine.text import Text, gettext_noop, text

# The fastest lane rate each cage signals, and how many lanes it has.
MAX_LANE_GBPS: dict[FormFactor, int] = {
    FormFactor.RJ45: 10,
    FormFactor.SFP_PLUS: 10,
    FormFactor.SFP28: 25,
    FormFactor.SFP56: 50,
    FormFactor.QSFP28: 25,
    FormFactor.QSFP56: 50,
    FormFactor.QSFP112: 100,
    FormFactor.QSFP_DD: 50,
    FormFactor.OSFP: 100,
}
LANES: dict[FormFactor, int] = {
    FormFactor.RJ45: 1,
    FormFactor.SFP_PLUS: 1,
    FormFactor.SFP28: 1,
    FormFactor.SFP56: 1,
    FormFactor.QSFP28: 4,
    FormFactor.QSFP56: 4,
    FormFactor.QSFP112: 4,
    FormFactor.QSFP_DD: 8,
    FormFactor.OSFP: 8,
}
# Lane rates in use (NRZ 10G and 25G, PAM4 50G and 100G): a cage also runs the slower ones it
# is backward compatible with (a QSFP56 takes a QSFP28's 4 x 25G).
LANE_RATES_GBPS = (10, 25, 50, 100)


def lane_rate_gbps(cage: FormFactor, speed_gbps: int) -> int:
    """The lane rate a cage runs `speed_gbps` at natively: the fastest it signals, on as few of
    its lanes as that takes (a 400G OSFP NIC: 4 x 100G; a 400G QSFP-DD: 8 x 50G)."""
    fastest = MAX_LANE_GBPS[cage]
    for rate in sorted(LANE_RATES_GBPS, reverse=True):
        if rate <= fastest and speed_gbps % rate == 0 and speed_gbps // rate <= LANES[cage]:
            return rate
    return min(speed_gbps, fastest)


def breakout_fits(
    fat: FormFactor, native_gbps: int, ways: int, leg_gbps: int, thin: FormFactor
) -> bool:
    """Whether a cage `fat` running `native_gbps`, split `ways` ways, gives legs of `leg_gbps`
    that a `thin` cage takes: the legs keep the cage's lane rate, on lanes/ways lanes each."""
    if ways <= 1:
        return True
    rate = lane_rate_gbps(fat, native_gbps)
    lanes = native_gbps // rate
    if lanes % ways:
        return False
    leg_lanes = lanes // ways
    return leg_lanes * rate == leg_gbps and rate <= MAX_LANE_GBPS[thin] and leg_lanes <= LANES[thin]


def leg_cage(fat: FormFactor, native_gbps: int, ways: int, leg_gbps: int) -> FormFactor | None:
    """The usual cage that takes one leg of a breakout, for a far end whose cage is not named
    (a NIC given by its speed only): the smallest of its lane rate and lane count. None when the
    split gives no whole legs of `leg_gbps`."""
    rate = lane_rate_gbps(fat, native_gbps)
    lanes = native_gbps // rate
    if ways <= 0 or lanes % ways or (lanes // ways) * rate != leg_gbps:
        return None
    leg_lanes = lanes // ways
    if fat == FormFactor.OSFP and leg_lanes == 4:
        return FormFactor.OSFP  # NVIDIA's splitters end in the flat-top OSFP of ConnectX-7
    candidates = [
        FormFactor.SFP_PLUS, FormFactor.SFP28, FormFactor.SFP56,
        FormFactor.QSFP28, FormFactor.QSFP56, FormFactor.QSFP112, FormFactor.QSFP_DD,
    ]  # fmt: skip
    return next((c for c in candidates if MAX_LANE_GBPS[c] >= rate and LANES[c] >= leg_lanes), None)


def cage_for(end: PortEnd, other: PortEnd, speed: int) -> FormFactor:
    """The cage a generic part plugs into at `end`: its own, else (a NIC named by speed only)
    the usual cage for a leg of the far end's breakout (a 100G leg of a 400G QSFP-DD is two
    50G lanes: QSFP56, not QSFP28), else the usual cage of its speed."""
    if end.form_factor is None and other.ways > end.ways:
        fat_cage = generic.form_factor(other.form_factor, other.native_gbps)
        native = other.native_gbps or speed * other.ways
        leg = leg_cage(fat_cage, native, other.ways // max(1, end.ways), speed)
        if leg is not None:
            return leg
    return generic.form_factor(end.form_factor, end.native_gbps)


def lanes_refusal(speed: int, a: PortEnd, b: PortEnd) -> Text | None:
    """Why no copper or AOC assembly joins these two cages, or None when one could: a breakout
    assembly keeps the cage's lane rate on each leg, end to end."""
    if a.ways == b.ways:
        return None
    fat, thin = (a, b) if a.ways > b.ways else (b, a)
    if thin.form_factor is None:
        return None  # a NIC named by speed only: its cage is taken to be one the legs fit
    fat_cage = generic.form_factor(fat.form_factor, fat.native_gbps)
    fat_native = fat.native_gbps or speed * fat.ways
    if thin.ways == 1:
        if breakout_fits(fat_cage, fat_native, fat.ways, speed, thin.form_factor):
            return None
        return text(
            gettext_noop(
                "a %(native)sG %(fat)s port split %(ways)s ways gives %(speed)sG legs on lanes "
                "a %(thin)s port cannot take, and no such cable or module is made"
            ),
            native=fat_native,
            fat=fat_cage.value,
            ways=fat.ways,
            speed=speed,
            thin=thin.form_factor.value,
        )
    thin_native = thin.native_gbps or speed * thin.ways
    fat_rate = lane_rate_gbps(fat_cage, fat_native)
    thin_rate = lane_rate_gbps(thin.form_factor, thin_native)
    if fat_rate == thin_rate:
        return None
    return text(
        gettext_noop(
            "%(speed)sG links would join %(fat_rate)sG lanes of a %(fat_native)sG %(fat)s port "
            "to %(thin_rate)sG lanes of a %(thin_native)sG %(thin)s port, and no such cable or "
            "module is made"
        ),
        speed=speed,
        fat_rate=fat_rate,
        fat_native=fat_native,
        fat=fat_cage.value,
        thin_rate=thin_rate,
        thin_native=thin_native,
        thin=thin.form_factor.value,
    )


# Optical lanes (rate in Gb/s, count) a parallel module of each native speed runs: 800G SR8/DR8
# and 2 x 400G-SR4/DR4 are 8 x 100G; 400G is SR4/DR4 (4 x 100G) or SR8 (8 x 50G); 200G SR4/FR4
# 4 x 50G; 100G SR4 4 x 25G (IEEE 802.3bm, cm, db, df).
MODULE_LANES: dict[int, tuple[tuple[int, int], ...]] = {
    800: ((100, 8),),
    400: ((100, 4), (50, 8)),
    200: ((50, 4),),
    100: ((25, 4),),
}
# The lanes one link of a shipping module runs on: 100G-DR/FR (1 x 100G), 400G-DR4/SR4,
# 50G-SR/FR, 100G-SR2, 200G-SR4/FR4, 25G-SR, 50G-SR2, 100G-SR4. Two 100G lanes (200G-DR2) is in
# IEEE 802.3df but ships in no breakout module of the catalog's generations.
LINK_LANES = frozenset(
    {(100, 1), (100, 4), (100, 8), (50, 1), (50, 2), (50, 4), (50, 8), (25, 1), (25, 2), (25, 4)}
)


def _link_formats(native_gbps: int, ways: int) -> set[tuple[int, int]]:
    """The optical lanes one link of a module at `native_gbps` split `ways` ways can run."""
    formats = MODULE_LANES.get(native_gbps, ((native_gbps, 1),))
    return {
        (rate, lanes // ways)
        for rate, lanes in formats
        if lanes % ways == 0 and (rate, lanes // ways) in LINK_LANES
    }


def lanes_per_link(native_gbps: int, ways: int) -> int:
    """The fewest optical lanes each of `ways` links of a module at `native_gbps` has: its
    lanes shared out (a 400G-DR4 split four ways, one 100G lane each; 800G eight ways, one)."""
    shares = [lanes // ways for _, lanes in MODULE_LANES.get(native_gbps, ()) if lanes % ways == 0]
    return min(shares, default=1)


def _common_formats(speed: int, a: PortEnd, b: PortEnd) -> set[tuple[int, int]]:
    ends = []
    for end in (a, b):
        native = end.native_gbps or speed * end.ways
        if end.ways == 1:
            ends.append({(rate, n) for rate, n in LINK_LANES if rate * n == speed})
        else:
            ends.append(_link_formats(native, end.ways))
    return ends[0] & ends[1]


def link_lanes(speed: int, a: PortEnd, b: PortEnd) -> int | None:
    """The optical lanes one link of a breakout runs on between these cages (the fewest that
    both modules run: one 100G lane of a 400G-DR4 rather than two 50G of an SR8), or None when
    no end breaks out (the link's own standard decides)."""
    if a.ways == b.ways:
        return None
    formats = _common_formats(speed, a, b)
    return min((lanes for _, lanes in formats), default=None)


def optics_refusal(speed: int, a: PortEnd, b: PortEnd) -> Text | None:
    """Why no pair of parallel modules joins these two cages, or None when one could: a
    breakout module's links keep its optical lanes, and the far module must run the same."""
    if a.ways == b.ways or _common_formats(speed, a, b):
        return None
    fat = a if a.ways > b.ways else b
    return text(
        gettext_noop(
            "no module splits a %(native)sG port %(ways)s ways into %(speed)sG links on optical "
            "lanes the far end's module runs, and no such cable or module is made"
        ),
        native=fat.native_gbps or speed * fat.ways,
        ways=fat.ways,
        speed=speed,
    )
