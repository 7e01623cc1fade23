"""Small, realistic catalog snapshots for engine tests (no database).

Reach figures follow ../shared/reference/media-and-fabric-facts.md; SKUs are made up but shaped
like EZMAX's range (NETI710 NICs, SFP28/QSFP28 optics, MPO cords)."""

from __future__ import annotations

from engine.catalog import (
    Breakout,
    CableSpec,
    CatalogSnapshot,
    Connector,
    FibreType,
    FormFactor,
    Lifecycle,
    MediaKind,
    MediaRule,
    NicSpec,
    PortGroup,
    Reach,
    SwitchSpec,
    TransceiverSpec,
)

OK = Lifecycle.AVAILABLE


def _nic(sku: str, ports: int, speed: int, ff: FormFactor, power: float, **kw: object) -> NicSpec:
    return NicSpec(
        sku=sku,
        name=f"{sku} {ports}x{speed}G {ff.value}",
        vendor="EZMAX",
        lifecycle=kw.get("lifecycle", OK),  # type: ignore[arg-type]
        ports=ports,
        speed_gbps=speed,
        form_factor=ff,
        pcie_gen=4,
        pcie_lanes=16,
        rocev2=True,
        sriov_vfs=64,
        power_w=power,
    )


NICS = (
    _nic("NETI710-2CP", 2, 10, FormFactor.SFP_PLUS, 9.0),
    _nic("NETI710-4CP", 4, 10, FormFactor.SFP_PLUS, 15.0),
    _nic("NETI-25G-2P", 2, 25, FormFactor.SFP28, 12.0),
    _nic("NETI-400G-1P", 1, 400, FormFactor.OSFP, 25.0),
    _nic("NETI-100G-2P", 2, 100, FormFactor.QSFP28, 18.0, lifecycle=Lifecycle.PLANNED),
)

SWITCHES = (
    SwitchSpec(
        sku="SW-48Y8C",
        name="48 x 25G SFP28 + 8 x 100G QSFP28 leaf",
        vendor="Partner",
        lifecycle=OK,
        port_groups=(
            PortGroup(count=48, speed_gbps=25, form_factor=FormFactor.SFP28,
                      breakouts=(Breakout(ways=1, speed_gbps=10),)),
            PortGroup(count=8, speed_gbps=100, form_factor=FormFactor.QSFP28,
                      breakouts=(Breakout(ways=4, speed_gbps=25),)),
        ),
        switching_capacity_gbps=4000,
        power_typical_w=350,
        power_max_w=500,
        rack_units=1,
    ),
    SwitchSpec(
        sku="SW-64x400",
        name="64 x 400G OSFP",
        vendor="Partner",
        lifecycle=OK,
        port_groups=(
            PortGroup(count=64, speed_gbps=400, form_factor=FormFactor.OSFP,
                      breakouts=(Breakout(ways=2, speed_gbps=200),
                                 Breakout(ways=4, speed_gbps=100))),
        ),
        switching_capacity_gbps=25600,
        power_typical_w=1400,
        power_max_w=2000,
        rack_units=2,
    ),
    SwitchSpec(
        sku="SW-64x800",
        name="64 x 800G OSFP (twin-port)",
        vendor="Partner",
        lifecycle=Lifecycle.PLANNED,
        port_groups=(
            PortGroup(count=64, speed_gbps=800, form_factor=FormFactor.OSFP,
                      breakouts=(Breakout(ways=2, speed_gbps=400),)),
        ),
        switching_capacity_gbps=51200,
        power_typical_w=2400,
        power_max_w=3000,
        rack_units=2,
    ),
)  # fmt: skip


def _trx(
    sku: str,
    ff: FormFactor,
    speed: int,
    standard: str,
    media: MediaKind,
    connector: Connector,
    reaches: tuple[tuple[FibreType, float], ...],
    power: float,
    links_per_module: int = 1,
) -> TransceiverSpec:
    return TransceiverSpec(
        sku=sku,
        name=f"{speed}G {standard}",
        vendor="EZMAX",
        lifecycle=OK,
        form_factor=ff,
        speed_gbps=speed,
        standard=standard,
        media=media,
        connector=connector,
        reaches=tuple(Reach(fibre_type=f, reach_m=r) for f, r in reaches),
        power_w=power,
        links_per_module=links_per_module,
    )


TRANSCEIVERS = (
    _trx("EZ-SFP28-SR", FormFactor.SFP28, 25, "25GBASE-SR", MediaKind.MMF, Connector.LC,
         ((FibreType.OM3, 70), (FibreType.OM4, 100)), 1.0),
    _trx("EZ-SFP-10G-SR", FormFactor.SFP_PLUS, 10, "10GBASE-SR", MediaKind.MMF, Connector.LC,
         ((FibreType.OM3, 300), (FibreType.OM4, 400)), 1.0),
    _trx("EZ-QSFP28-SR4", FormFactor.QSFP28, 100, "100GBASE-SR4", MediaKind.MMF,
         Connector.MPO12, ((FibreType.OM3, 70), (FibreType.OM4, 100)), 2.5),
    _trx("EZ-OSFP-400G-SR4", FormFactor.OSFP, 400, "400GBASE-SR4", MediaKind.MMF,
         Connector.MPO12, ((FibreType.OM3, 30), (FibreType.OM4, 50)), 8.0),
    _trx("EZ-OSFP-400G-DR4", FormFactor.OSFP, 400, "400GBASE-DR4", MediaKind.SMF,
         Connector.MPO12, ((FibreType.OS2, 500),), 8.0),
    _trx("EZ-QDD-400G-DR4", FormFactor.QSFP_DD, 400, "400GBASE-DR4", MediaKind.SMF,
         Connector.MPO12, ((FibreType.OS2, 500),), 10.0),
    _trx("EZ-OSFP-800G-2xDR4", FormFactor.OSFP, 800, "2x400GBASE-DR4", MediaKind.SMF,
         Connector.MPO12, ((FibreType.OS2, 500),), 17.0, links_per_module=2),
    _trx("EZ-OSFP-800G-2xSR4", FormFactor.OSFP, 800, "2x400GBASE-SR4", MediaKind.MMF,
         Connector.MPO12, ((FibreType.OM3, 30), (FibreType.OM4, 50)), 15.0, links_per_module=2),
)  # fmt: skip


def _copper(
    media: MediaKind, speed: int, ff: FormFactor, lengths: tuple[float, ...], ways: int = 1,
    power: float = 0.0,
) -> tuple[CableSpec, ...]:  # fmt: skip
    kind = {MediaKind.DAC: "DAC", MediaKind.AEC: "AEC", MediaKind.AOC: "AOC"}[media]
    label = f"{speed}G-{ways}X" if ways > 1 else f"{speed}G"
    if ff == FormFactor.QSFP_DD:
        label += "-QDD"
    return tuple(
        CableSpec(
            sku=f"EZ-{kind}-{label}-{length:g}M",
            name=f"{speed}G {kind} {length:g} m" + (f" 1:{ways} breakout" if ways > 1 else ""),
            vendor="EZMAX",
            lifecycle=OK,
            media=media,
            end_a=ff,
            end_b=ff,
            speed_gbps=speed,
            length_m=length,
            breakout_ways=ways,
            power_w=power,
        )
        for length in lengths
    )


def _fibre(
    media: MediaKind, fibre: FibreType, connector: Connector, lengths: tuple[float, ...]
) -> tuple[CableSpec, ...]:
    return tuple(
        CableSpec(
            sku=f"EZ-{connector.value}-{fibre.value}-{length:g}M",
            name=f"{connector.value} {fibre.value} cord {length:g} m",
            vendor="EZMAX",
            lifecycle=OK,
            media=media,
            end_a=None,
            end_b=None,
            speed_gbps=0,
            length_m=length,
            fibre_type=fibre,
            connector=connector,
            strands=12 if connector == Connector.MPO12 else 2,
        )
        for length in lengths
    )


SHORT = (1.0, 2.0, 3.0)
AOC_LENGTHS = (3.0, 5.0, 7.0, 10.0, 15.0, 20.0, 30.0)
FIBRE_LENGTHS = (1.0, 2.0, 3.0, 5.0, 10.0, 15.0, 20.0, 30.0, 50.0, 100.0)
TRUNK_LENGTHS = (10.0, 20.0, 30.0, 50.0, 100.0, 200.0, 300.0, 500.0)

CABLES = (
    *_copper(MediaKind.DAC, 25, FormFactor.SFP28, SHORT),
    *_copper(MediaKind.DAC, 10, FormFactor.SFP_PLUS, SHORT),
    *_copper(MediaKind.DAC, 100, FormFactor.QSFP28, SHORT),
    *_copper(MediaKind.DAC, 400, FormFactor.OSFP, SHORT),
    *_copper(MediaKind.DAC, 800, FormFactor.OSFP, SHORT, ways=2),
    *_copper(MediaKind.AOC, 400, FormFactor.OSFP, AOC_LENGTHS, power=16.0),
    # Inline 400G switches have QSFP-DD cages (ports.INLINE_FORM_FACTOR): their own media.
    *_copper(MediaKind.DAC, 400, FormFactor.QSFP_DD, SHORT),
    *_copper(MediaKind.AOC, 400, FormFactor.QSFP_DD, AOC_LENGTHS, power=16.0),
    *_copper(MediaKind.AOC, 100, FormFactor.QSFP28, AOC_LENGTHS, power=4.0),
    *_copper(MediaKind.AOC, 25, FormFactor.SFP28, AOC_LENGTHS, power=2.0),
    *(
        CableSpec(
            sku=f"EZ-CAT6A-{length:g}M",
            name=f"Cat6A patch cord {length:g} m",
            vendor="EZMAX",
            lifecycle=OK,
            media=MediaKind.UTP,
            end_a=FormFactor.RJ45,
            end_b=FormFactor.RJ45,
            speed_gbps=1,
            length_m=length,
        )
        for length in (1.0, 2.0, 3.0, 5.0, 10.0, 20.0, 30.0, 50.0)
    ),
    *_fibre(MediaKind.MMF, FibreType.OM4, Connector.MPO12, FIBRE_LENGTHS),
    *_fibre(MediaKind.MMF, FibreType.OM4, Connector.LC, FIBRE_LENGTHS),
    *_fibre(MediaKind.SMF, FibreType.OS2, Connector.MPO12, TRUNK_LENGTHS),
)


def _rule(speed: int, media: MediaKind, reach: float) -> MediaRule:
    return MediaRule(speed_gbps=speed, media=media, max_reach_m=reach)


MEDIA_RULES = (
    _rule(10, MediaKind.DAC, 3.0),
    _rule(25, MediaKind.DAC, 3.0),
    _rule(25, MediaKind.AOC, 30.0),
    _rule(25, MediaKind.MMF, 100.0),
    _rule(100, MediaKind.DAC, 3.0),
    _rule(100, MediaKind.AOC, 30.0),
    _rule(100, MediaKind.MMF, 100.0),
    _rule(400, MediaKind.DAC, 3.0),
    _rule(400, MediaKind.AOC, 30.0),
    _rule(400, MediaKind.MMF, 50.0),
    _rule(400, MediaKind.SMF, 2000.0),  # FR4 on duplex LC: 2 km (media-and-fabric-facts.md)
    _rule(10, MediaKind.MMF, 400.0),
    _rule(1, MediaKind.UTP, 100.0),
)

CATALOG = CatalogSnapshot(
    nics=NICS,
    switches=SWITCHES,
    transceivers=TRANSCEIVERS,
    cables=CABLES,
    media_rules=MEDIA_RULES,
    version="test-1",
)

# Switch SKUs removed: inline PORTSxSPEED specs must still size.
NO_SWITCHES = CatalogSnapshot(
    nics=NICS, transceivers=TRANSCEIVERS, cables=CABLES, media_rules=MEDIA_RULES, version="t-2"
)
