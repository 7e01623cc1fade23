"""Rack elevations: placement by the layout's rules, U positions that never overlap, power that
adds up to the design's, warnings naming the rack over its height or power, SVG and XLSX read
back. Pure engine designs on the test catalog, no database."""

from __future__ import annotations

import io
from xml.etree import ElementTree

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from openpyxl import load_workbook

from engine.cabling import iter_cabling
from engine.request import RequestError, parse_request
from engine.sizing import size
from planner.handover.elevations import PDU_UNITS, ServerModel, design_elevations
from planner.handover.rack_sheet import COLUMNS, rack_sheet_xlsx
from planner.handover.rack_svg import elevations_svg
from tests.engine.catalogs import CATALOG
from tests.planner.test_handover_ids import seed

SVG_LABELS = {"power": "Typical", "max": "max", "over": "over height"}


def _design(**fields: object):
    return size(parse_request(fields, CATALOG), CATALOG)


def test_top_of_rack_leaves_stand_in_their_racks_with_the_servers() -> None:
    # 256 GPUs / 8 = 32 servers; 4 per rack = 8 compute racks. A ToR leaf of 64 x 400G takes
    # 4 servers x 8 rails = 32 ports down and 32 up: one leaf per rack, in the rack.
    design = _design(gpus=256, fabric="tor", leaf="64x400", leaf_placement="tor")
    leaf_units = design.compute.tier("leaf").rack_units
    elevations = design_elevations(design)
    compute = [rack for rack in elevations.racks if rack.kind == "compute"]
    assert [rack.name for rack in compute] == [f"R01-{n:02d}" for n in range(1, 9)]
    for number, rack in enumerate(compute, start=1):
        roles = [item.role for item in rack.items]
        assert roles.count("server") == 4
        assert roles.count("leaf") == 1
        assert elevations.device_rack[f"rack{number:03d}-leaf"] == rack.name
        # 2 PDUs + 4 servers x 8U + the leaf + one cable manager for it.
        assert rack.used_u == PDU_UNITS + 4 * 8 + leaf_units + 1
        assert not rack.over_height
    assert elevations.warnings == ()
    # Spines stand in the network row.
    assert all(elevations.device_rack[f"spine{n:02d}"].startswith("NET-") for n in (1, 2))


def test_middle_of_row_leaves_stand_in_the_rows_network_rack() -> None:
    # 1,024 GPUs = 128 servers = 32 racks = rows of 10: 4 rows. Rail leaves of unit 1 (servers
    # 1-32, racks 1-8, row 1) stand in row 1's network rack; unit 4 (servers 97-128, racks
    # 25-32) starts in row 3.
    design = _design(gpus=1024, leaf="64x400", leaf_placement="mor")
    elevations = design_elevations(design)
    assert elevations.device_rack["su01-r1-leaf"] == "R01-N1"
    assert elevations.device_rack["su04-r8-leaf"] == "R03-N1"
    assert elevations.device_rack["srv0128"] == "R04-02"  # rack 32 = row 4, position 2
    network_rack = elevations.rack("R01-N1")
    assert network_rack is not None
    assert network_rack.kind == "network"


def test_network_rack_placement_puts_every_leaf_in_the_network_row() -> None:
    design = _design(gpus=1024, leaf="64x400", leaf_placement="network-rack")
    elevations = design_elevations(design)
    leaves = [name for name in elevations.device_rack if name.endswith("-leaf")]
    assert len(leaves) == 32  # 4 units x 8 rails
    assert all(elevations.device_rack[name].startswith("NET-") for name in leaves)
    # Network racks fill to their height, then the next opens: none overflows.
    assert not any(rack.over_height for rack in elevations.racks)


def test_a_rack_over_its_height_is_a_warning_naming_it() -> None:
    # 5 servers x 8U = 40U + 2U of PDUs = 42U: full before any switch; rail leaves on top of
    # rack (1 per rack of the unit) push every rack holding one past 42U.
    design = _design(gpus=1024, leaf="64x400", leaf_placement="tor", servers_per_rack=5)
    elevations = design_elevations(design)
    over = [rack.name for rack in elevations.racks if rack.over_height]
    assert "R01-01" in over
    messages = [str(warning) for warning in elevations.warnings]
    assert any("R01-01" in message and "42U" in message for message in messages)
    assert len([m for m in messages if "holds 42U" in m]) == len(over)


def test_a_rack_over_the_power_limit_is_a_warning_naming_it() -> None:
    # A 4-server rack with an 8,000 W server each draws at least 32,000 W: over a 20 kW limit.
    design = _design(gpus=256, fabric="tor", leaf="64x400", max_rack_power_w=20_000)
    elevations = design_elevations(design, server=ServerModel(power_w=8000))
    compute = [rack for rack in elevations.racks if rack.kind == "compute"]
    assert all(rack.power_max_w >= 32_000 for rack in compute)
    messages = [str(warning) for warning in elevations.warnings]
    for rack in compute:
        assert any(rack.name in m and "20,000 W" in m for m in messages), rack.name


def test_rack_power_adds_up_to_the_designs_network_power() -> None:
    # With no server power, every watt in the racks is a BOM line's: switches whole, modules
    # and active cables half at each end, NICs in the servers. Rounding per rack: 1 W each.
    design = _design(gpus=1024, leaf="64x400", nic="NETI-400G-1P", rails=8)
    elevations = design_elevations(design)
    total = sum(rack.power_w for rack in elevations.racks)
    assert abs(total - design.power_w) <= len(elevations.racks)
    total_max = sum(rack.power_max_w for rack in elevations.racks)
    assert abs(total_max - design.power_max_w) <= len(elevations.racks)


def _requests() -> st.SearchStrategy[dict[str, object]]:
    return st.fixed_dictionaries(
        {
            "gpus": st.integers(min_value=1, max_value=96).map(lambda n: n * 8),
            "leaf": st.sampled_from(["64x400", "32x400", "64x100", "48x100"]),
            "nic_speed": st.sampled_from([100, 400]),
            "rails": st.sampled_from([1, 2, 4, 8]),
            "fabric": st.sampled_from(["rail", "rail-plane", "tor"]),
            "leaf_placement": st.sampled_from(["tor", "mor", "eor", "network-rack"]),
            "servers_per_rack": st.integers(min_value=1, max_value=8),
            "racks_per_row": st.integers(min_value=1, max_value=12),
        }
    )


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fields=_requests(), oob=st.booleans())
def test_every_switch_and_server_has_one_place_and_no_two_items_overlap(
    fields: dict[str, object], oob: bool
) -> None:
    if oob:
        fields["oob"] = {}
    try:
        design = _design(**fields)
    except (RequestError, ValueError):
        assume(False)
        return
    elevations = design_elevations(design)
    placed: list[str] = []
    for rack in elevations.racks:
        occupied: set[int] = set()
        for item in rack.items:
            units = set(range(item.u, item.top_u + 1))
            assert not units & occupied, (rack.name, item.device)
            occupied |= units
            if item.role in ("server", "leaf", "spine", "core"):
                placed.append(item.device)
    assert len(placed) == len(set(placed))
    switches = sum(tier.count for plane in design.planes for tier in plane.tiers)
    assert len(placed) == design.servers + switches
    # Every device of the cabling schedule stands in a rack, except the packed planes' extra
    # endpoints (storage nodes, switch management ports), which the design does not place.
    for row in iter_cabling(design):
        for device in row.a_device.split("+") + row.b_device.split("+"):
            if "-dev" not in device:
                assert device in elevations.device_rack, device


def test_svg_escapes_text_and_parses_as_xml() -> None:
    design = _design(gpus=64, fabric="tor", leaf="64x400", servers_per_rack=6)
    elevations = design_elevations(design, server=ServerModel(name="<b>GPU & co</b>"))
    svg = elevations_svg(elevations, {**SVG_LABELS, "over": "<over>"})
    root = ElementTree.fromstring(svg)  # raises on unescaped markup
    assert "<b>" not in svg
    assert "&lt;b&gt;GPU &amp; co&lt;/b&gt;" in svg
    groups = root.findall("{http://www.w3.org/2000/svg}g")
    assert len(groups) == len(elevations.racks)
    # 6 servers x 8U + 2U PDUs = 50U: over height, and the drawing says so.
    assert elevations.racks[0].over_height
    assert "&lt;over&gt;" in svg


def test_rack_sheet_reads_back_with_every_item_and_its_power() -> None:
    design = _design(gpus=256, fabric="tor", leaf="64x400", leaf_placement="tor")
    elevations = design_elevations(design)
    headers = {key: key.upper() for key in COLUMNS}
    content = rack_sheet_xlsx(
        elevations, title="=HYPERLINK(1)", headers=headers, sheet_name="Rack and U position"
    )
    sheet = load_workbook(io.BytesIO(content))["Rack and U position"]
    rows = list(sheet.iter_rows(values_only=True))
    assert rows[0][0] == "=HYPERLINK(1)"  # text, never a formula
    assert sheet.cell(1, 1).data_type == "s"
    assert list(rows[1]) == [key.upper() for key in COLUMNS]
    body = rows[2:]
    assert len(body) == sum(len(rack.items) for rack in elevations.racks)
    first = elevations.racks[0]
    mine = [row for row in body if row[0] == first.name]
    assert [row[1] for row in mine] == sorted((item.u for item in first.items), reverse=True)
    assert abs(sum(row[6] for row in mine) - first.power_w) <= len(mine)


@pytest.mark.parametrize("placement", ["mor", "eor"])
def test_row_network_racks_stand_mid_row_or_at_its_end(placement: str) -> None:
    design = _design(gpus=256, leaf="64x400", leaf_placement=placement)
    elevations = design_elevations(design)
    rack = elevations.rack("R01-N1")
    assert rack is not None
    # 10 racks a row (0-based positions 0-9): the middle, between racks 5 and 6, is 4.5; the
    # end, after rack 10, is 10.
    assert rack.order == pytest.approx(4.5 if placement == "mor" else 10.0)


def test_every_patch_panel_of_the_bom_takes_rack_space_once() -> None:
    # Multimode optics over a 60 m walk to the spines: structured cabling with panels at both
    # ends of each trunk, catalog panels and generic ones (no SKU) alike.
    catalog = seed()
    request = {"gpus": 4096, "nic_speed": 400, "leaf": "64x400", "media": "mmf",
               "leaf_placement": "eor", "spine_row_distance_m": 60}  # fmt: skip
    design = size(parse_request(request, catalog), catalog)
    panels = sum(group.panels for plane in design.planes for group in plane.links)
    assert panels > 0
    elevations = design_elevations(design)
    placed = [i.device for rack in elevations.racks for i in rack.items if i.role == "patch_panel"]
    assert len(placed) == panels
    assert len(set(placed)) == len(placed)
    assert panels == sum(line.quantity for line in design.bom if line.category == "patch_panel")


def test_panels_find_their_row_past_the_ninety_ninth() -> None:
    # 4,096 GPUs = 512 servers = 128 racks at 4 per rack; one rack per row makes 128 rows, so
    # row network racks are named R100-N1 and beyond (three digits). Each panel stands in its
    # own row's network rack, as in rows 1 to 99.
    catalog = seed()
    request = {"gpus": 4096, "nic_speed": 400, "leaf": "64x400", "leaf_placement": "eor",
               "racks_per_row": 1}  # fmt: skip
    design = size(parse_request(request, catalog), catalog)
    elevations = design_elevations(design)
    row_racks = [rack for rack in elevations.racks if "-N" in rack.name]
    assert any(rack.name.startswith("R1") and len(rack.name.split("-")[0]) == 4
               for rack in row_racks)  # fmt: skip
    placed = [i.device for rack in elevations.racks for i in rack.items if i.role == "patch_panel"]
    assert len(placed) == sum(group.panels for plane in design.planes for group in plane.links)
    for rack in row_racks:
        for item in rack.items:
            if item.role == "leaf":
                # A leaf in row r's network rack serves row r's servers (row = rack number).
                assert elevations.device_rack[item.device] == rack.name


# --- rack-scale (NVL72-class) racks: issue 28, item 1 ----------------------------------------


def test_an_nvl72_rack_shows_every_part_at_its_u_and_its_power() -> None:
    # DGX GB200 user guide, "Rack Configuration": 18 x 1RU compute trays, 9 x 1RU NVLink switch
    # trays, 2 management switches, power shelves (8 of 1RU in the reference rack: BCM power
    # shelf integration). https://docs.nvidia.com/dgx/dgxgb200-user-guide/hardware.html;
    # https://docs.nvidia.com/base-command-manager/product-manuals/nvidia-mission-control/
    # powershelf.md. Here 16 of 18 trays run: two spares per rack.
    catalog = seed()
    design = size(
        parse_request(
            {"gpus": 128, "system": "gb200-nvl72", "fabric": "rail", "leaf": "64x400",
             "active_trays_per_rack": 16},
            catalog,
        ),
        catalog,
    )  # fmt: skip
    up = design.scale_up
    assert up is not None
    assert design.racks == 2
    elevations = design_elevations(design)
    compute = [rack for rack in elevations.racks if rack.kind == "compute"]
    assert len(compute) == 2
    for rack in compute:
        roles = [item.role for item in rack.items]
        assert roles.count("server") + roles.count("spare_tray") == 18
        assert roles.count("spare_tray") == 2
        assert roles.count("nvlink_switch") == 9
        assert roles.count("power_shelf") == 8
        assert roles.count("management_switch") == 2
        assert "pdu" not in roles  # power shelves on a bus bar, not PDUs
        assert not rack.over_height
        assert rack.used_u >= 18 + 9 + 8 + 2
        # The NVLink switch trays stand between the two groups of compute trays.
        us = {role: [i.u for i in rack.items if i.role == role] for role in set(roles)}
        trays = sorted(us["server"] + us["spare_tray"])
        assert trays[0] < min(us["nvlink_switch"])
        assert max(us["nvlink_switch"]) < trays[-1]
        # Its draw: 16 active trays x 5,400 W and the two SN2201 switches (seed: 104 W max).
        assert rack.power_max_w == up.rack_power_w == 16 * 5400 + 2 * 104
        assert rack.power_max_w <= up.rack_power_limit_w
    # Every rack part of the BOM stands in a rack: the drawing and the sheet count the same.
    placed = {
        role: sum(item.role == role for rack in compute for item in rack.items)
        for role in ("nvlink_switch", "power_shelf", "management_switch")
    }
    assert placed == {
        "nvlink_switch": up.nvlink_switch_trays,
        "power_shelf": up.power_shelves,
        "management_switch": up.management_switches,
    }
    svg = elevations_svg(elevations, SVG_LABELS)
    ElementTree.fromstring(svg)
    for device in ("R01-01-nvsw9", "R01-01-ps8", "R01-01-spare2"):
        assert device in svg
    headers = {key: key for key in COLUMNS}
    content = rack_sheet_xlsx(elevations, title="t", headers=headers, sheet_name="s")
    rows = list(load_workbook(io.BytesIO(content))["s"].iter_rows(values_only=True))[2:]
    assert sum(1 for row in rows if row[5] == "power_shelf") == up.power_shelves


def test_a_rack_scale_rack_over_its_shelves_budget_is_a_warning() -> None:
    # Top-of-rack leaves in racks whose trays already use all of the budget.
    design = _design(
        gpus=128, trays_per_rack=16, tray_power_w=8000, rack_power_kw=128, fabric="rail",
        leaf="64x400", leaf_placement="tor",
    )  # fmt: skip
    elevations = design_elevations(design)
    assert any("its power shelves feed" in str(w) for w in elevations.warnings)
