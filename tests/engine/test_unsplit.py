"""A port run one link per cage where its breakout has no optic to price (issue 26, item 1).

A 400G QSFP-DD cage takes QSFP56 and QSFP28 plugs (QSFP-DD MSA, backward compatible: the
"Accepts plugs of" column of ../shared/reference/ports-cages-and-plugs.md); a QSFP56 module runs
200G on its own, so a 200G NIC can land on a whole QSFP-DD port through an ordinary QSFP56
200GBASE-SR4 module at each end, where the port's 2 x 200G breakout would need a 2 x 200G-SR4
QSFP-DD optic that the catalog does not sell."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.catalog import FormFactor, MediaKind
from engine.generic import module
from engine.ports import catalog_model, unsplit, ways
from engine.request import parse_request
from engine.sizing import size
from tests.engine.seed import seed_catalog_and_prices

SEED, PRICES = seed_catalog_and_prices()
SWITCHES = {spec.sku: catalog_model(spec) for spec in SEED.switches}


def test_a_qsfp_dd_port_runs_one_200g_link_on_a_qsfp56_plug() -> None:
    sn4700 = SWITCHES["MSN4700-WS2FC"]  # 32 x 400G QSFP-DD, breakouts 2x200, 4x100, 8x50
    (group,) = sn4700.port_groups
    assert ways(group, 200) == 2
    flat = unsplit(sn4700, 200)
    assert flat is not None
    (flat_group,) = flat.port_groups
    assert ways(flat_group, 200) == 1
    assert ways(flat_group, 100) == 4  # only the 200G mode changes
    assert flat.logical_ports(200) == 32  # one NIC per cage: 32, not 64
    assert flat.breakout_label(200) == "400G port at 200G"
    assert (flat.sku, flat.label) == (sn4700.sku, sn4700.label)  # the same switch, bought so


def test_no_one_link_mode_the_cage_cannot_take() -> None:
    # No QSFP plug runs 50G on its own (QSFP28: 100G and 40G; QSFP56: 200G, 100G, 40G), and a
    # QSFP28 cage takes no SFP28 plug: 8 x 50G and 4 x 25G stay breakouts only.
    assert unsplit(SWITCHES["MSN4700-WS2FC"], 50) is None
    assert unsplit(SWITCHES["MSN2700-CS2F"], 25) is None
    # A port group with no breakout at the speed has nothing to unsplit.
    assert unsplit(SWITCHES["MSN2700-CS2F"], 100) is None


def _nic_links(design):  # type: ignore[no-untyped-def]
    return [g for g in design.compute.links if g.a == "server"]


def test_a_200g_nic_under_400g_leaves_is_priced_in_full() -> None:
    # 2,048 GPUs on ConnectX-6 200G QSFP56 (MCX653105A-ECAT), rail, the switch left open: the
    # catalog's 400G leaves would split each cage 2 x 200G, for which it sells no optic
    # (DACs reach only inside a rack). Unsplit, every NIC link is one QSFP56 module at each end.
    request = {"gpus": 2048, "gpus_per_server": 8, "nic": "MCX653105A-ECAT", "fabric": "rail"}
    design = size(parse_request(request, SEED), SEED, PRICES)
    assert design.unpriced_lines == 0
    assert not [line for line in design.bom if line.catalog_gap]
    modules = {line.sku: line.quantity for line in design.bom if line.category == "transceiver"}
    nic_links = sum(g.links for g in _nic_links(design))
    assert nic_links == 2048  # one 200G port per GPU
    # One module at each end of every NIC link: the NIC's and the leaf's, both QSFP56.
    assert {(g.transceiver_sku_a, g.transceiver_sku_b) for g in _nic_links(design)} == {
        ("MMA1T00-VS", "MMA1T00-VS")
    }
    assert sum(g.transceivers_a + g.transceivers_b for g in _nic_links(design)) == 2 * nic_links
    assert modules["MMA1T00-VS"] == 2 * nic_links
    leaf = design.compute.tiers[0]
    assert leaf.downlink_breakout == "400G port at 200G"
    # One cage per 200G NIC link and per 400G uplink: within the leaf's 64 QSFP-DD cages.
    assert leaf.downlinks + leaf.uplinks <= 64


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    gpus=st.integers(min_value=8, max_value=8192).map(lambda n: n - n % 8 or 8),
    fabric=st.sampled_from(["rail", "rail-plane", "tor", None]),
)
def test_200g_nics_never_wait_for_a_breakout_optic(gpus: int, fabric: str | None) -> None:
    request: dict[str, object] = {"gpus": gpus, "gpus_per_server": 8, "nic": "MCX653105A-ECAT"}
    if fabric:
        request["fabric"] = fabric
    design = size(parse_request(request, SEED), SEED, PRICES)
    gaps = [line.description for line in design.bom if line.catalog_gap]
    assert not [g for g in gaps if "2x200G" in g], gaps


def test_a_broken_out_stand_in_names_the_lanes_each_link_has() -> None:
    # A 400G module split four ways has four lanes for four links: one each (100GBASE-DR or
    # SR1), never a four-lane SR4 or FR4, which would need 16 fibres or a WDM pair per leg.
    spec, _name = module(MediaKind.MMF, 100, FormFactor.QSFP_DD, 4, 30.0)
    assert spec.standard == "4x100GBASE-SR1"
    spec, _name = module(MediaKind.SMF, 100, FormFactor.QSFP_DD, 4, 300.0)
    assert spec.standard == "4x100GBASE-DR"
    # 800G OSFP: eight lanes for eight 100G links.
    spec, _name = module(MediaKind.SMF, 100, FormFactor.OSFP, 8, 1500.0)
    assert spec.standard == "8x100GBASE-FR1"
    # A twin-port module keeps its links' own standard (two SR4s on eight lanes).
    spec, _name = module(MediaKind.MMF, 200, FormFactor.QSFP_DD, 2, 30.0)
    assert spec.standard == "2x200GBASE-SR4"
    assert spec.links_per_module == 2
