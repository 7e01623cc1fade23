"""Never invent a part; prefer what the catalog sells (issue 26, item 1)."""

from __future__ import annotations

from collections import Counter

from engine.catalog import CableKind, Connector, FibreType, MediaKind
from engine.generic import fibre, standard
from engine.request import parse_request
from engine.sizing import size
from tests.engine.seed import seed_catalog_and_prices

SEED, PRICES = seed_catalog_and_prices()
# NVIDIA's H100 SuperPOD, 4 scalable units: 127 DGX H100 (1,016 GPUs) with one ConnectX-7
# 400G OSFP port per GPU, on Spectrum-4 SN5600 (64 x 800G OSFP) leaves and spines, rail
# optimised, non-blocking.
SUPERPOD = {"gpus": 1016, "nic_speed": 400, "nic": "MCX75310AAS-NEAT", "fabric": "rail",
            "leaf": "MSN5600-VS2FC", "spine": "MSN5600-VS2FC", "oversubscription": 1}  # fmt: skip


def _stand_ins(design) -> list[str]:  # type: ignore[no-untyped-def]
    return [line.description for line in design.bom if line.catalog_gap]


def _switches(design) -> int:  # type: ignore[no-untyped-def]
    return sum(tier.count for tier in design.compute.tiers)


def test_the_superpod_takes_the_twin_port_optics_the_catalog_sells() -> None:
    chosen = size(parse_request(SUPERPOD, SEED), SEED, PRICES)
    native = size(parse_request({**SUPERPOD, "uplink_speed": 800}, SEED), SEED, PRICES)
    broken_out = size(parse_request({**SUPERPOD, "uplink_speed": 400}, SEED), SEED, PRICES)
    # The catalog sells no single-port 800G optic: 800G leaf-spine links need a stand-in.
    assert _stand_ins(native)
    # 2 x 400G per 800G cage on twin-port modules (MMA4Z00-NS) needs none, with as many
    # switches (1,024 x 800G or 2,048 x 400G uplinks on 16 leaves: 16 spines' ports either way
    # = 8 spines of 64 cages), so it is the default, fully priced.
    assert _switches(broken_out) == _switches(native) == 24
    assert chosen.compute.shape.uplink_speed_gbps == 400
    assert _stand_ins(chosen) == []
    assert chosen.unpriced_lines == 0
    assert chosen.bom == broken_out.bom
    leaf_spine = [g for g in chosen.compute.links if (g.a, g.b) == ("leaf", "spine")]
    assert {(g.transceiver_sku_a, g.transceiver_sku_b) for g in leaf_spine} == {
        ("MMA4Z00-NS", "MMA4Z00-NS")
    }


def test_an_800g_stand_in_is_a_part_that_ships() -> None:
    # IEEE 802.3df: 800GBASE-SR8 and -DR8 run eight 100G lanes over 16 fibres (MPO-16); no
    # 800G module takes one MPO-12 for one link.
    assert standard(MediaKind.MMF, 800, 30) == ("800GBASE-SR8", Connector.MPO16)
    assert standard(MediaKind.SMF, 800, 300) == ("800GBASE-DR8", Connector.MPO16)
    assert standard(MediaKind.MMF, 400, 30) == ("400GBASE-SR4", Connector.MPO12_APC)
    cord, _name = fibre(MediaKind.MMF, FibreType.OM4, Connector.MPO16, CableKind.PATCH_CORD, 3.0)
    assert cord.strands == 16
    native = size(parse_request({**SUPERPOD, "uplink_speed": 800}, SEED), SEED, PRICES)
    for line in native.bom:
        if line.catalog_gap and "800G" in line.description:
            assert "SR4" not in line.description, line
            assert "DR4" not in line.description, line


def test_the_superpod_in_its_network_racks_is_nvidias_bom() -> None:
    # NVIDIA's DGX H100 SuperPOD reference architecture places the compute leaves in network
    # racks of their own, every DGX link optical. Its 4-SU BOM: 1,016 NIC modules (one per
    # ConnectX-7 port), 1,536 switch twin-port modules and 2,040 fibres. From first principles:
    # 16 leaves x 32 downlink cages = 512 twin-port modules for the NIC links (1,016 used);
    # 16 leaves x 32 uplink cages + 8 spines x 64 cages = 1,024 for the leaf-spine links: 1,536.
    # One MPO-12/APC fibre per 400G link: 16 leaves x 32 cages x 2 = 1,024 leaf-spine and
    # 1,016 NIC links, 2,040. Each is NVIDIA's point-to-point MFP7E10, no patch panel between.
    # (Left in the middle of the row, the leaves reach the nearest DGX racks on 4-5 m copper
    # splitters instead, which cost less: a choice of the layout, not of the parts.)
    design = size(parse_request({**SUPERPOD, "leaf_placement": "network-rack"}, SEED), SEED, PRICES)
    modules = Counter[str]()
    fibres = Counter[str]()
    for line in design.bom:
        if line.category == "transceiver":
            modules[line.sku] += line.quantity
        elif line.category in ("cable", "fibre"):
            fibres[line.sku] += line.quantity
    assert modules == {"MMA4Z00-NS": 1536, "MMA4Z00-NS400": 1016}
    assert sum(fibres.values()) == 2040
    assert all(sku.startswith("MFP7E10-") for sku in fibres)
    assert not [line for line in design.bom if line.category == "patch_panel"]
    assert design.unpriced_lines == 0
