"""Every line of every design can be built: plugs fit cages, one module per cage, breakouts in
broken-out cages, nothing refused for lack of a medium. Over random requests on the seed
catalog's switches and NICs, and the brochure's 64-GPU example line by line."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from catalog.snapshot import snapshot_from_seed
from engine.cabling import iter_cabling
from engine.catalog import CatalogSnapshot, FormFactor, MediaKind, accepts
from engine.errors import MediaUnavailable
from engine.fit import check_design
from engine.ports import ways
from engine.request import RequestError, parse_request
from engine.sizing import size

SEED = Path(__file__).resolve().parents[2] / "catalog" / "seed" / "catalog.json"


@cache
def seed() -> CatalogSnapshot:
    return snapshot_from_seed(json.loads(SEED.read_text()))


def test_plugs_follow_backward_compatibility() -> None:
    # ports-cages-and-plugs.md, "Form factors and what they accept".
    assert accepts(FormFactor.SFP28, FormFactor.SFP_PLUS)
    assert not accepts(FormFactor.SFP_PLUS, FormFactor.SFP28)
    assert accepts(FormFactor.QSFP_DD, FormFactor.QSFP56)
    assert accepts(FormFactor.QSFP_DD, FormFactor.QSFP28)
    assert not accepts(FormFactor.OSFP, FormFactor.QSFP_DD)
    assert not accepts(FormFactor.QSFP_DD, FormFactor.OSFP)
    assert not accepts(FormFactor.QSFP28, FormFactor.SFP28)


def test_a_10g_nic_runs_natively_in_an_sfp28_cage() -> None:
    sn2410 = next(s for s in seed().switches if s.sku == "MSN2410-CB2F")
    sfp28 = sn2410.port_groups[0]
    assert sfp28.form_factor == FormFactor.SFP28
    assert ways(sfp28, 10) == 1  # an SFP+ plug at 10G, not a breakout


def test_brochure_64_gpus_on_one_msn2410() -> None:
    """Brochure 4.1: 8 servers x 8 x 25G = 64 links on one SN2410 (48 x SFP28 + 8 x QSFP28)."""
    catalog = seed()
    request = parse_request(
        {"gpus": 64, "gpus_per_server": 8, "rails": 8, "nic_speed": 25,
         "nic": "MCX631102AN-ADAT", "leaf": "MSN2410-CB2F", "fabric": "tor"},
        catalog,
    )  # fmt: skip
    design = size(request, catalog)
    leaf = design.compute.tiers[0]
    # 48 links on the 48 SFP28 cages, the other 64 - 48 = 16 on 16 / 4 = 4 QSFP28 cages broken
    # out 4x25G: 52 of 56 cages used, no port beyond them.
    assert (leaf.count, leaf.ports_used, leaf.physical_ports) == (1, 52, 56)
    ends: dict[tuple[FormFactor | None, int], tuple[int, int]] = {}
    for group in design.compute.links:
        assert group.end_b is not None
        key = (group.end_b.form_factor, group.end_b.links_per_cage)
        cages, links = ends.get(key, (0, 0))
        ends[key] = (cages + group.end_b.cages, links + group.links)
    assert ends == {(FormFactor.SFP28, 1): (48, 48), (FormFactor.QSFP28, 4): (4, 16)}
    broken_out = [g for g in design.compute.links if g.end_b and g.end_b.links_per_cage == 4]
    # One breakout assembly per broken-out cage (QSFP28 bundled end, 4 SFP28 legs): 4 in all.
    assert sum(g.cables for g in broken_out) == 4
    for group in broken_out:
        assert group.choice is not None
        assert group.choice.cable.breakout_ways == 4
        assert group.choice.cable.end_a == FormFactor.QSFP28
        assert group.choice.cable.end_b == FormFactor.SFP28
    # 4 servers per rack by default: servers 5-8 stand in the second rack, so some runs leave
    # the switch's rack: each is longer than a rack's height (2 m) and every part reaches it.
    assert max(run for g in design.compute.links for run in g.runs_m) > 2.0
    for group in design.compute.links:
        assert group.length_m >= max(group.runs_m)
    # Every generic stand-in is named in a warning, to be priced before the quote is sent.
    gaps = [line for line in design.bom if line.catalog_gap]
    warning = next((w for w in design.warnings if w.code == "catalog_gap"), None)
    assert (warning is not None) == bool(gaps)
    if warning is not None:
        assert all(line.description in warning.message for line in gaps)
    ports = [row.a_port for row in iter_cabling(design)]
    numbers = {int(m) for port in ports for m in re.findall(r"swp(\d+)", port)}
    assert max(numbers) == 52  # swp49..swp52 carry the breakouts; nothing past the cages
    assert any(port.startswith("swp49s1+") for port in ports)


def _requests(catalog: CatalogSnapshot) -> st.SearchStrategy[dict[str, object]]:
    switches = sorted(s.sku for s in catalog.switches)
    nics = sorted(n.sku for n in catalog.nics)
    return st.fixed_dictionaries(
        {
            "gpus": st.integers(min_value=1, max_value=512).map(lambda n: n * 8),
            "gpus_per_server": st.just(8),
            "rails": st.sampled_from([1, 2, 4, 8]),
            "nic": st.sampled_from(nics),
            "leaf": st.sampled_from(switches),
            "spine": st.sampled_from(switches),
            "fabric": st.sampled_from(["rail", "rail-plane", "tor"]),
            "oversubscription": st.sampled_from([1, 2, 3]),
            "media": st.sampled_from(["auto", "copper", "optical", "mmf", "smf"]),
            "leaf_placement": st.sampled_from(["tor", "mor", "eor", "network-rack"]),
        }
    )


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_line_of_every_design_fits(data: st.DataObject) -> None:
    catalog = seed()
    fields = data.draw(_requests(catalog))
    nic = next(n for n in catalog.nics if n.sku == fields["nic"])
    fields["nic_speed"] = nic.speed_gbps
    try:
        request = parse_request(fields, catalog)
    except RequestError:
        assume(False)  # e.g. a 400G NIC on a 25G switch: refused with a field error
        return
    try:
        design = size(request, catalog)
    except MediaUnavailable as exc:
        # A catalog gap never withholds a design; physics may, when the user rules out every
        # media that reaches (copper or multimode only, for a run past their reach), or when a
        # breakout's legs carry lanes the far cage cannot take (engine.lanes: a 400G QSFP-DD
        # port split 4 ways gives 2 x 50G PAM4 legs; a QSFP28 cage runs 4 x 25G NRZ).
        lanes = "no such cable or module is made" in str(exc)
        if fields["media"] not in ("copper", "mmf") and not lanes:
            raise AssertionError(f"refused for lack of a medium: {exc}") from exc
        assume(False)
        return
    except Exception as exc:
        assume("FitError" not in type(exc).__name__)
        return
    check_design(design)  # raises on the first line that cannot be built
    skus = catalog.by_sku()
    for line in design.bom:
        # Every line is a catalog item, or a generic stand-in that says so.
        assert (line.sku in skus) != line.catalog_gap
        if line.category == "transceiver":
            assert line.power_w > 0  # modules draw power, stand-ins included
    if design.servers <= 64:  # the cabling plan, cable by cable, names only real cages
        ports = {
            (plane.name, tier.role): tier.physical_ports
            for plane in design.planes
            for tier in plane.tiers
        }
        for row in iter_cabling(design):
            role = next(r for r in ("leaf", "spine", "core") if r in row.a_device)
            for number in re.findall(r"swp(\d+)", row.a_port):
                assert 1 <= int(number) <= ports[(row.plane, role)], (row, ports)
    for plane in design.planes:
        for group in plane.links:
            assert group.end_a is not None
            assert group.end_b is not None
            if group.media not in (MediaKind.MMF, MediaKind.SMF):
                assert group.transceivers == 0
            else:
                assert group.transceivers_a == group.end_a.cages  # one module per cage
                assert group.transceivers_b == group.end_b.cages


def test_power_counts_switches_without_optics_and_each_module_once() -> None:
    """32,768 GPUs on SN5600 (rail, 1:1): switch power is the datasheet figure without optics
    (ports-cages-and-plugs.md: about 0.9 kW typical), the modules are counted on their own lines
    at their own power, and the design's total is the sum of its lines."""
    catalog = seed()
    request = parse_request(
        {"gpus": 32768, "leaf": "MSN5600-VS2FC", "nic": "MCX75310AAS-NEAT", "nic_speed": 400,
         "fabric": "rail"},
        catalog,
    )  # fmt: skip
    design = size(request, catalog)
    sn5600 = next(s for s in catalog.switches if s.sku == "MSN5600-VS2FC")
    assert sn5600.power_typical_w <= 1000  # without optics; 1.7 kW was a loaded figure
    modules = {t.sku: t for t in catalog.transceivers}
    for line in design.bom:
        if line.category == "switch":
            assert line.power_w == round(sn5600.power_typical_w * line.quantity)
            assert line.power_max_w == round(sn5600.power_max_w * line.quantity)
        elif line.category == "transceiver" and line.sku:
            assert line.power_w == round(modules[line.sku].power_w * line.quantity)
    assert design.power_w == sum(line.power_w for line in design.bom)
    assert design.power_max_w == sum(line.power_max_w for line in design.bom)
    switches = sum(t.count for t in design.compute.tiers)
    assert switches == 512 + 512 + 256  # 3 tiers of 64 x 800G at 1:1 for 4,096 servers
    # Typical network power excluding NICs, against the 5.6 MW the double count gave.
    nics = sum(line.power_w for line in design.bom if line.category == "nic")
    assert design.power_w - nics < 3_000_000


def test_uplink_runs_follow_the_rows() -> None:
    """2,048 GPUs, rail, leaves top of rack: 256 servers in 64 racks of 4, 10 racks a row, so
    rows 0-6; the spines stand beside the middle row, (0 + 256 / 2) / 4 / 10 = row 3. A leaf
    three rows away runs 3 x 2.4 m = 7.2 m further across than one in row 3, so the far rows
    get the longest runs, and the distribution says how many links run how far."""
    catalog = seed()
    request = parse_request(
        {"gpus": 2048, "leaf": "64x400", "spine": "64x400", "nic_speed": 400, "fabric": "rail",
         "leaf_placement": "tor"},
        catalog,
    )  # fmt: skip
    design = size(request, catalog)
    uplinks = [g for g in design.compute.links if g.a == "leaf"]
    runs = sorted(run for g in uplinks for run in g.runs_m)
    assert runs[-1] - runs[0] >= 3 * 2.4
    carried = sum(links for g in uplinks for _, links in g.run_links)
    assert carried == sum(g.links for g in uplinks)  # every uplink has a run
    for group in uplinks:
        assert group.length_m >= max(group.runs_m)  # each stock length reaches its runs


def test_structured_runs_respect_the_connector_budget() -> None:
    """A 100G SR4 run past the longest UPC cord goes through two panels: 2 x 0.35 dB = 0.7 dB
    fits the 1.5 dB multimode budget less 2 x 0.2 dB for the modules' own pairs (1.1 dB); two
    0.75 dB panels (1.5 dB) do not, and then no structured multimode run is offered."""
    from dataclasses import replace

    from engine.media import MediaSelector, PortEnd
    from engine.request import MediaPolicy

    catalog = seed()
    qsfp28 = PortEnd(form_factor=FormFactor.QSFP28, native_gbps=100, ways=1)
    choice = MediaSelector(catalog, MediaPolicy.MMF).choose("x", 100, 40.0, qsfp28, qsfp28)
    assert choice.panel is not None
    assert choice.cord is not None
    assert 2 * choice.panel.insertion_loss_db <= 1.5 - 2 * 0.2
    lossy = replace(
        catalog,
        patch_panels=tuple(replace(p, insertion_loss_db=0.75) for p in catalog.patch_panels),
    )
    choice = MediaSelector(lossy, MediaPolicy.MMF).choose("x", 100, 40.0, qsfp28, qsfp28)
    assert choice.panel is None or not choice.panel.sku  # only a generic stand-in remains
