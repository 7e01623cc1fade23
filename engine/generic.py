"""Generic parts that stand in when the catalog sells nothing that fits a link (a catalog gap).

A generic part has no SKU and no price. It is named the way a buyer would ask a supplier for it
("800G OSFP 2x400G-DR4 twin-port module"), in a translatable text, so the design is sized and
quoted anyway and the sales engineer prices or replaces the line before the quote is sent."""

from __future__ import annotations

import math

# engine.lanes imports this module too: bound as a module, read when called, not at import.
import engine.lanes as lane_formats
from engine.catalog import (
    CableKind,
    CableSpec,
    Connector,
    FibreType,
    FormFactor,
    Lifecycle,
    MediaKind,
    PatchPanelSpec,
    Reach,
    TransceiverSpec,
)
from engine.ports import INLINE_FORM_FACTOR
from engine.text import Text, gettext_noop, text

# The form factor a cage of a speed has when nothing names it (an inline NIC speed): the same
# as an inline switch's ports.
DEFAULT_FORM_FACTOR = INLINE_FORM_FACTOR


# Reach of each media when the catalog has no rule for a speed: the conservative ends of the
# ranges in media-and-fabric-facts.md (DAC 3 m at 25-100G, 2 m at 800G; AEC 5 m; AOC 30 m stock;
# multimode 50 m with two patch panels at 400G+, 100 m below; DR4 500 m; FR4 2 km; LR4 10 km:
# single-mode reaches across any hall, a stand-in LR4 past FR4's 2 km).
FR_REACH_M = 2000.0  # FR4 / 2 x FR4 on duplex LC (media-and-fabric-facts.md)
LR_REACH_M = 10000.0  # 100G/400G LR4 (IEEE 802.3ba; 100G Lambda MSA 400G-LR4-10)


def default_reach_m(media: MediaKind, speed_gbps: int) -> float:
    if media == MediaKind.DAC:
        return 2.0 if speed_gbps >= 800 else 3.0
    if media == MediaKind.AEC:
        return 5.0
    if media == MediaKind.AOC:
        return 30.0
    if media == MediaKind.MMF:
        return 50.0 if speed_gbps >= 400 else 100.0
    if media == MediaKind.SMF:
        return LR_REACH_M
    return 100.0  # twisted pair


# Power of a generic module by its speed, and of an active cable (both ends), in watts: the
# figures of media-and-fabric-facts.md ("Power per end") and the seed's comparable parts, so a
# design with stand-ins does not understate its power.
# Generic fibre: OM4 is today's multimode default (OM3 reaches less, OM5 costs more).
FIBRE_PREFERENCE = [FibreType.OS2, FibreType.OM4, FibreType.OM5, FibreType.OM3]

MODULE_W = {10: 1.0, 25: 1.0, 50: 1.5, 100: 3.5, 200: 5.0, 400: 9.0, 800: 16.0, 1600: 30.0}
ACTIVE_CABLE_W = {MediaKind.AEC: 6.0, MediaKind.AOC: 2.0}  # AOC per 25G lane-equivalent


def module_w(speed_gbps: int) -> float:
    return MODULE_W.get(speed_gbps, speed_gbps / 400 * 9.0)


def cable_w(media: MediaKind, speed_gbps: int) -> float:
    if media == MediaKind.AOC:
        return ACTIVE_CABLE_W[media] * math.pow(max(1.0, speed_gbps / 25), 0.75)
    return ACTIVE_CABLE_W.get(media, 0.0)


def form_factor(given: FormFactor | None, speed_gbps: int) -> FormFactor:
    return given or DEFAULT_FORM_FACTOR.get(speed_gbps, FormFactor.QSFP_DD)


def _gap(name: Text) -> dict[str, object]:
    return {"sku": "", "name": str(name), "vendor": "", "lifecycle": Lifecycle.AVAILABLE}


def assembly(
    media: MediaKind,
    speed_gbps: int,
    end_a: FormFactor,
    end_b: FormFactor,
    ways: int,
    length_m: float,
) -> tuple[CableSpec, Text]:
    """A copper or AOC assembly: straight when `ways` is 1, else a breakout with `ways` legs."""
    if ways > 1:
        name = text(
            gettext_noop("%(speed)sG %(end_a)s to %(ways)sx %(end_b)s %(media)s breakout, %(m)s m"),
            speed=speed_gbps,
            end_a=end_a.value,
            ways=ways,
            end_b=end_b.value,
            media=media.value.upper(),
            m=float(length_m),
        )
    else:
        name = text(
            gettext_noop("%(speed)sG %(end_a)s to %(end_b)s %(media)s, %(m)s m"),
            speed=speed_gbps,
            end_a=end_a.value,
            end_b=end_b.value,
            media=media.value.upper(),
            m=float(length_m),
        )
    spec = CableSpec(
        **_gap(name),  # type: ignore[arg-type]
        media=media,
        end_a=end_a,
        end_b=end_b,
        speed_gbps=speed_gbps,
        length_m=length_m,
        breakout_ways=ways,
        power_w=cable_w(media, speed_gbps),
    )
    return spec, name


def standard(
    media: MediaKind, speed_gbps: int, length_m: float, lanes: int | None = None
) -> tuple[str, Connector]:
    """The usual standard for one link, and the connector it takes: one that ships. An 800G
    link runs eight 100G lanes, so its parallel optics take 16 fibres on an MPO-16 (IEEE 802.3df
    800GBASE-SR8 and 800GBASE-DR8); there is no 800G SR4 or DR4 on one MPO-12.

    `lanes`: the optical lanes a link of a breakout module runs on (engine.lanes), which name
    its standard: a 100G link on one 100G lane of a 400G-DR4 is 100GBASE-DR (or FR1 past
    500 m, SR1 on multimode), on two 50G lanes 100GBASE-SR2, never a four-lane SR4 or FR4."""
    if lanes is not None and lanes < 4 and speed_gbps >= 50:
        suffix = "" if lanes == 1 else str(lanes)
        if media == MediaKind.MMF:
            single = "SR1" if speed_gbps >= 100 else "SR"
            return f"{speed_gbps}GBASE-{single if lanes == 1 else 'SR' + suffix}", (
                Connector.LC if lanes == 1 else Connector.MPO12
            )
        if lanes == 1:
            kind = "DR" if speed_gbps >= 100 and length_m <= 500 else "FR"
            return f"{speed_gbps}GBASE-{kind}{'1' if kind == 'FR' and speed_gbps >= 100 else ''}", (
                Connector.LC
            )
        return f"{speed_gbps}GBASE-DR{suffix}", Connector.MPO12
    if media == MediaKind.SMF and length_m > FR_REACH_M:
        # Past FR4's 2 km (pods of a million GPUs laid out row after row): LR4, 10 km.
        return f"{speed_gbps}GBASE-LR4" if speed_gbps >= 100 else f"{speed_gbps}GBASE-LR", (
            Connector.LC
        )
    if speed_gbps >= 800 and (media == MediaKind.MMF or length_m <= 500):
        kind = "SR8" if media == MediaKind.MMF else "DR8"
        return f"{speed_gbps}GBASE-{kind}", Connector.MPO16
    if media == MediaKind.MMF:
        if speed_gbps >= 100:
            apc = speed_gbps >= 400  # NDR/XDR-class SR4 modules use angled MPO
            return f"{speed_gbps}GBASE-SR4", Connector.MPO12_APC if apc else Connector.MPO12
        return f"{speed_gbps}GBASE-SR", Connector.LC
    if speed_gbps >= 400 and length_m <= 500:
        return f"{speed_gbps}GBASE-DR4", Connector.MPO12_APC
    if speed_gbps >= 100:
        return f"{speed_gbps}GBASE-FR4", Connector.LC
    return f"{speed_gbps}GBASE-LR", Connector.LC


def module(
    media: MediaKind,
    speed_gbps: int,
    cage: FormFactor,
    links: int,
    length_m: float,
    lanes: int | None = None,
) -> tuple[TransceiverSpec, Text]:
    """A module for one cage serving `links` links of `speed_gbps` (twin-port when 2), each on
    `lanes` optical lanes when a breakout fixes them (`standard`)."""
    if lanes is None and links > 2:
        # Both ends broken out alike (engine.lanes names no lanes then): each link still has
        # only its share of the module's lanes. A 400G module split four ways runs 100G-DR or
        # SR1 on one lane, never a four-lane SR4 or FR4 (16 or 32 fibres, or a WDM pair a leg).
        lanes = lane_formats.lanes_per_link(speed_gbps * links, links)
    link_standard, connector = standard(media, speed_gbps, length_m, lanes)
    module_standard = f"{links}x{link_standard}" if links > 1 else link_standard
    if links > 2:
        # A parallel module run as a breakout (100G SR4 as 4 x 25G SR): one lane group per link,
        # joined to the far modules through a breakout harness (MPO to duplex legs).
        name = text(
            gettext_noop(
                "%(speed)sG %(form)s parallel module, %(links)s x %(standard)s breakout with "
                "its harness"
            ),
            speed=speed_gbps * links,
            form=cage.value,
            links=links,
            standard=link_standard,
        )
    else:
        name = text(
            gettext_noop("%(speed)sG %(form)s %(standard)s module"),
            speed=speed_gbps * links,
            form=cage.value,
            standard=module_standard,
        )
    fibre = FibreType.OM4 if media == MediaKind.MMF else FibreType.OS2
    spec = TransceiverSpec(
        **_gap(name),  # type: ignore[arg-type]
        form_factor=cage,
        speed_gbps=speed_gbps * links,
        standard=module_standard,
        media=media,
        connector=connector,
        reaches=(Reach(fibre_type=fibre, reach_m=_module_reach_m(media, speed_gbps, length_m)),),
        power_w=module_w(speed_gbps * links),
        links_per_module=links,
    )
    return spec, name


def _module_reach_m(media: MediaKind, speed_gbps: int, length_m: float) -> float:
    if media != MediaKind.SMF:
        return default_reach_m(media, speed_gbps)
    return LR_REACH_M if length_m > FR_REACH_M else FR_REACH_M


def fibre(
    media: MediaKind,
    fibre_type: FibreType,
    connector: Connector,
    kind: CableKind,
    length_m: float,
) -> tuple[CableSpec, Text]:
    if kind == CableKind.TRUNK:
        template = gettext_noop("%(fibre)s %(connector)s trunk, %(m)s m")
    else:
        template = gettext_noop("%(fibre)s %(connector)s patch cord, %(m)s m")
    name = text(template, fibre=fibre_type.value, connector=connector.value, m=float(length_m))
    spec = CableSpec(
        **_gap(name),  # type: ignore[arg-type]
        media=media,
        end_a=None,
        end_b=None,
        speed_gbps=0,
        length_m=length_m,
        fibre_type=fibre_type,
        connector=connector,
        strands={Connector.LC: 2, Connector.MPO16: 16, Connector.MPO24: 24}.get(connector, 12),
        kind=kind,
    )
    return spec, name


def patch_panel(connector: Connector, fibre_type: FibreType) -> tuple[PatchPanelSpec, Text]:
    """A 1U panel of 48 ports, the common size (ports-cages-and-plugs.md: 48-96 MPO per 1U)."""
    name = text(
        gettext_noop("%(connector)s patch panel, 48 ports, 1U (%(fibre)s)"),
        connector=connector.value,
        fibre=fibre_type.value,
    )
    spec = PatchPanelSpec(
        **_gap(name),  # type: ignore[arg-type]
        connector=connector,
        ports=48,
        rack_units=1,
        insertion_loss_db=0.5,
        fibre_type=fibre_type,
    )
    return spec, name


# NVIDIA's structured-cabling requirements for NDR/XDR-class optics: "MPO ... splitter cables:
# total length up to 50 m"; no splitter stands in for a longer run.
SPLITTER_MAX_M = 50.0


def splitter(
    media: MediaKind,
    fibre_type: FibreType,
    connector: Connector,
    leg_connector: Connector,
    ways: int,
    length_m: float,
) -> tuple[CableSpec, Text]:
    """A fibre breakout harness as structured-cabling vendors sell it: one MPO at the parallel
    module, `ways` legs (an 8-fibre MPO-12 to 4 x LC duplex; an MPO-16 to 2 x MPO-12)."""
    name = text(
        gettext_noop("%(fibre)s %(connector)s to %(ways)s x %(leg)s breakout harness, %(m)s m"),
        fibre=fibre_type.value,
        connector=connector.value,
        ways=ways,
        leg=leg_connector.value,
        m=float(length_m),
    )
    legs = {Connector.LC: 2, Connector.MPO16: 16}.get(leg_connector, 8)
    spec = CableSpec(
        **_gap(name),  # type: ignore[arg-type]
        media=media,
        end_a=None,
        end_b=None,
        speed_gbps=0,
        length_m=length_m,
        breakout_ways=ways,
        fibre_type=fibre_type,
        connector=connector,
        leg_connector=leg_connector,
        strands=legs * ways,
        kind=CableKind.SPLITTER,
    )
    return spec, name
