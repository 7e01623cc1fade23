"""Never invent a part; prefer what the catalog sells (issue 26, item 1)."""

from __future__ import annotations

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
