"""Cable ids: one per cable, unique across the design, the same on every run, naming both ends'
racks, devices and ports. Over random designs on the seed catalog."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from catalog.snapshot import snapshot_from_seed
from engine.cabling import iter_cabling
from engine.catalog import CatalogSnapshot
from engine.errors import DesignError
from engine.request import RequestError, parse_request
from engine.sizing import size
from planner.handover.cable_ids import cable_id, identified, legs
from planner.handover.elevations import design_elevations

SEED = Path(__file__).resolve().parents[2] / "catalog" / "seed" / "catalog.json"


@cache
def seed() -> CatalogSnapshot:
    return snapshot_from_seed(json.loads(SEED.read_text()))


def _requests(catalog: CatalogSnapshot) -> st.SearchStrategy[dict[str, object]]:
    switches = sorted(s.sku for s in catalog.switches)
    nics = sorted(n.sku for n in catalog.nics)
    return st.fixed_dictionaries(
        {
            "gpus": st.integers(min_value=1, max_value=256).map(lambda n: n * 8),
            "rails": st.sampled_from([1, 2, 4, 8]),
            "nic": st.sampled_from(nics),
            "leaf": st.sampled_from(switches),
            "fabric": st.sampled_from(["rail", "rail-plane", "tor"]),
            "leaf_placement": st.sampled_from(["tor", "mor", "eor", "network-rack"]),
            "servers_per_rack": st.integers(min_value=1, max_value=8),
        }
    )


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), storage=st.booleans(), oob=st.booleans())
def test_ids_are_unique_and_stable_over_random_designs(
    data: st.DataObject, storage: bool, oob: bool
) -> None:
    catalog = seed()
    fields = data.draw(_requests(catalog))
    nic = next(n for n in catalog.nics if n.sku == fields["nic"])
    fields["nic_speed"] = nic.speed_gbps
    if storage:
        fields["storage"] = {"nic_speed": 100, "storage_nodes": 4}
    if oob:
        fields["oob"] = {}
    try:
        design = size(parse_request(fields, catalog), catalog)
    except (RequestError, DesignError):
        assume(False)
        return
    elevations = design_elevations(design)
    cables = list(identified(iter_cabling(design), elevations))
    ids = [cable.id for cable in cables]
    assert len(ids) == len(set(ids))
    again = [cable.id for cable in identified(iter_cabling(design), design_elevations(design))]
    assert again == ids
    # Split into links, every port of every device carries exactly one (what NetBox needs).
    ends = [
        end
        for cable in cables
        for a_device, a_port, b_device, b_port in legs(cable.row)
        for end in ((a_device, a_port), (b_device, b_port))
    ]
    assert len(ends) == len(set(ends))
    for cable in cables[:: max(1, len(cables) // 50)]:
        row = cable.row
        assert cable.id == cable_id(row, cable.a_rack, cable.b_rack)
        assert f"{cable.a_rack}:{row.a_device}:{row.a_port}=" in cable.id
        assert cable.id.endswith(f"={cable.b_rack}:{row.b_device}:{row.b_port}")
        assert len(legs(row)) == row.links


def test_an_id_names_plane_rack_device_and_port_at_both_ends() -> None:
    catalog = seed()
    request = {"gpus": 256, "nic_speed": 400, "fabric": "rail", "leaf": "64x400"}
    design = size(parse_request(request, catalog), catalog)
    first = next(identified(iter_cabling(design), design_elevations(design)))
    # Server 1 (rack 1 of row 1) on rail 1's leaf of unit 1, middle of row 1.
    assert first.id == "CMP:R01-N1:su01-r1-leaf:swp1=R01-01:srv0001:c1"
