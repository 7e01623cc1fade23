"""Every handover export read back: NetBox CSV headers and rows against the bulk-import forms'
fields and each other, containerlab YAML parsed, Slurm topology.conf parsed and expanded, the
cabling JSON, the label CSV, and the label PDF's QR codes decoded from a rendered page."""

from __future__ import annotations

import csv
import io
import json
import re
import zipfile

import pytest
import yaml

from engine.cabling import iter_cabling
from engine.request import parse_request
from engine.sizing import size
from planner.handover.cable_ids import identified, legs
from planner.handover.containerlab import containerlab_yaml
from planner.handover.elevations import design_elevations
from planner.handover.labels import (
    LABEL_COLUMNS,
    LABELS_PER_PAGE,
    MAX_LABEL_CABLES,
    TooManyLabels,
    labels_csv_chunks,
    labels_pdf,
)
from planner.handover.netbox import netbox_zip
from planner.handover.schedule_json import schedule_json_chunks
from planner.handover.slurm import hostlist, topology_conf
from tests.engine.catalogs import CATALOG

# 1,024 GPUs = 128 servers x 8 rails on 64 x 400G leaves: 4 units of 32 servers, 8 rail leaves
# each (32 leaves), 16 spines; storage and out-of-band planes beside.
REQUEST = {"gpus": 1024, "leaf": "64x400", "storage": {"nic_speed": 100, "storage_nodes": 8},
           "oob": {}}  # fmt: skip
CAPTIONS = {"this_end": "This end", "far_end": "Far end", "length": "Length"}

# NetBox 4's bulk-import forms (dcim/forms/bulk_import.py): the fields each CSV may carry.
NETBOX_FIELDS = {
    "01_manufacturers.csv": {"name", "slug", "description", "tags"},
    "02_device_roles.csv": {"name", "slug", "color", "vm_role", "description", "tags"},
    "03_device_types.csv": {"manufacturer", "model", "slug", "part_number", "u_height",
                            "is_full_depth", "subdevice_role", "airflow", "description",
                            "comments"},
    "04_sites.csv": {"name", "slug", "status", "region", "group", "tenant", "facility",
                     "time_zone", "description", "comments", "tags"},
    "05_racks.csv": {"site", "location", "name", "facility_id", "tenant", "status", "role",
                     "serial", "asset_tag", "width", "u_height", "desc_units", "description",
                     "comments", "tags"},
    "06_devices.csv": {"name", "role", "tenant", "manufacturer", "device_type", "platform",
                       "serial", "asset_tag", "status", "site", "location", "rack", "position",
                       "face", "airflow", "description", "comments", "tags"},
    "07_interfaces.csv": {"device", "name", "label", "type", "enabled", "speed", "mtu",
                          "mgmt_only", "description"},
    "08_cables.csv": {"side_a_device", "side_a_type", "side_a_name", "side_b_device",
                      "side_b_type", "side_b_name", "type", "status", "tenant", "label",
                      "color", "length", "length_unit", "description", "comments", "tags"},
}  # fmt: skip
# Required by those forms (a missing one is an import error).
NETBOX_REQUIRED = {
    "03_device_types.csv": {"manufacturer", "model", "slug"},
    "05_racks.csv": {"site", "name", "status", "width"},
    "06_devices.csv": {"role", "manufacturer", "device_type", "status", "site"},
    "07_interfaces.csv": {"device", "name", "type"},
    "08_cables.csv": {"side_a_device", "side_a_type", "side_a_name", "side_b_device",
                      "side_b_type", "side_b_name"},
}  # fmt: skip
NETBOX_INTERFACE_TYPES = {
    "1000base-t", "10gbase-t", "10gbase-x-sfpp", "25gbase-x-sfp28", "50gbase-x-sfp56",
    "100gbase-x-qsfp28", "200gbase-x-qsfp56", "400gbase-x-qsfp112", "400gbase-x-qsfpdd",
    "400gbase-x-osfp", "800gbase-x-osfp", "other",
}  # fmt: skip
NETBOX_CABLE_TYPES = {"dac-passive", "dac-active", "aoc", "mmf", "smf", "cat6a"}


@pytest.fixture(scope="module")
def built():
    design = size(parse_request(REQUEST, CATALOG), CATALOG)
    elevations = design_elevations(design)
    cables = list(identified(iter_cabling(design), elevations))
    return design, elevations, cables


def _read(archive: zipfile.ZipFile, name: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(archive.read(name).decode())))


def test_netbox_zip_headers_and_rows_import_in_order(built) -> None:
    design, elevations, cables = built
    archive = zipfile.ZipFile(io.BytesIO(netbox_zip(design, elevations, cables)))
    assert archive.namelist() == sorted(NETBOX_FIELDS)  # numbered in import order
    for name, fields in NETBOX_FIELDS.items():
        header = archive.read(name).decode().splitlines()[0].split(",")
        assert set(header) <= fields, name
        assert NETBOX_REQUIRED.get(name, set()) <= set(header), name
    makers = {row["name"] for row in _read(archive, "01_manufacturers.csv")}
    roles = {row["name"] for row in _read(archive, "02_device_roles.csv")}
    types = {(row["manufacturer"], row["model"]) for row in _read(archive, "03_device_types.csv")}
    assert {maker for maker, _ in types} <= makers
    sites = {row["name"] for row in _read(archive, "04_sites.csv")}
    racks = {row["name"]: int(row["u_height"]) for row in _read(archive, "05_racks.csv")}
    assert len(racks) == len(elevations.racks)
    devices = _read(archive, "06_devices.csv")
    names = {row["name"] for row in devices}
    assert len(names) == len(devices)  # device names are unique in a site
    for row in devices:
        assert row["role"] in roles
        assert row["site"] in sites
        assert (row["manufacturer"], row["device_type"]) in types
        if row["rack"]:
            assert 1 <= int(row["position"]) <= racks[row["rack"]]
    # 128 servers + 32 + 16 compute switches + the storage and OOB switches are racked.
    switches = sum(tier.count for plane in design.planes for tier in plane.tiers)
    assert sum(1 for row in devices if row["rack"]) == design.servers + switches
    interfaces = {(row["device"], row["name"]) for row in _read(archive, "07_interfaces.csv")}
    assert all(device in names for device, _ in interfaces)
    for row in _read(archive, "07_interfaces.csv"):
        assert row["type"] in NETBOX_INTERFACE_TYPES
    cable_rows = _read(archive, "08_cables.csv")
    assert len(cable_rows) == sum(len(legs(cable.row)) for cable in cables)
    for row in cable_rows:
        assert (row["side_a_device"], row["side_a_name"]) in interfaces
        assert (row["side_b_device"], row["side_b_name"]) in interfaces
        assert row["side_a_type"] == row["side_b_type"] == "dcim.interface"
        assert row["type"] in NETBOX_CABLE_TYPES
        assert row["length_unit"] == "m"
    # Every interface carries exactly one cable.
    ends = [(r["side_a_device"], r["side_a_name"]) for r in cable_rows] + [
        (r["side_b_device"], r["side_b_name"]) for r in cable_rows
    ]
    assert len(ends) == len(set(ends)) == len(interfaces)


def test_containerlab_topology_is_one_unit_with_its_links(built) -> None:
    design, _elevations, cables = built
    text = containerlab_yaml(design, (cable.row for cable in cables), name="lab")
    doc = yaml.safe_load(text)
    assert doc["name"] == "lab"
    nodes, links = doc["topology"]["nodes"], doc["topology"]["links"]
    roles = [node["labels"]["role"] for node in nodes.values()]
    # One unit: 32 servers, its 8 rail leaves, and the 16 spines every leaf reaches.
    assert roles.count("server") == 32
    assert roles.count("leaf") == 8
    assert roles.count("spine") == 16
    assert all(node["kind"] and node["image"] for node in nodes.values())
    # 32 servers x 8 rails down + 8 leaves x 32 uplinks.
    assert len(links) == 32 * 8 + 8 * 32
    used = set()
    for link in links:
        assert len(link["endpoints"]) == 2
        for endpoint in link["endpoints"]:
            node, interface = endpoint.split(":")
            assert node in nodes
            assert interface
            assert endpoint not in used  # one link per interface
            used.add(endpoint)
    assert "srv0001:c1" in used
    assert "srv0032:c8" in used
    assert "srv0033:c1" not in used


def _expand(hosts: str) -> list[str]:
    out = []
    for part in re.finditer(r"([^,\[]+)(?:\[(\d+)-(\d+)\])?", hosts):
        prefix, first, last = part.group(1), part.group(2), part.group(3)
        if first is None:
            out.append(prefix)
        else:
            out.extend(f"{prefix}{n:0{len(first)}d}" for n in range(int(first), int(last) + 1))
    return out


def test_slurm_topology_parses_with_every_server_under_one_leaf(built) -> None:
    design, _elevations, cables = built
    switches: dict[str, dict[str, list[str]]] = {}
    for line in topology_conf(design).splitlines():
        if not line or line.startswith("#"):
            continue
        fields = dict(field.split("=", 1) for field in line.split())
        assert set(fields) <= {"SwitchName", "Switches", "Nodes"}
        name = fields.pop("SwitchName")
        switches[name] = {key: _expand(value) for key, value in fields.items()}
    nodes = [node for spec in switches.values() for node in spec.get("Nodes", [])]
    server_names = {cable.row.b_device for cable in cables if cable.row.b_device.startswith("srv")}
    assert len(nodes) == len(set(nodes)) == design.servers  # each node under one leaf
    assert set(nodes) == server_names  # names as in the cabling schedule
    # 4 units of 32 servers under one spine level.
    assert [len(switches[f"su0{n}"]["Nodes"]) for n in range(1, 5)] == [32] * 4
    assert switches["spines"]["Switches"] == ["su01", "su02", "su03", "su04"]


def test_hostlist_compresses_runs_only() -> None:
    assert hostlist(["srv0001", "srv0002", "srv0003", "srv0005"]) == "srv[0001-0003],srv0005"
    assert _expand(hostlist(["a1", "a2", "b07"])) == ["a1", "a2", "b07"]
    pods = [f"pod{n}" for n in range(1, 33)]
    assert hostlist(pods) == "pod[1-32]"
    su = [f"su{n:02d}" for n in range(1, 129)]
    # Two-digit padding until 99; su100 onwards is unpadded and starts a new run.
    assert hostlist(su) == "su[01-99],su[100-128]"


def test_cabling_json_carries_every_cable_with_its_id(built) -> None:
    _design, _elevations, cables = built
    doc = json.loads("".join(schedule_json_chunks(cables, design={"id": 7, "name": "x"})))
    assert doc["schema"] == 1
    assert doc["design"] == {"id": 7, "name": "x"}
    assert [entry["id"] for entry in doc["cables"]] == [cable.id for cable in cables]
    first = doc["cables"][0]
    assert first["a"]["device"] == "su01-r1-leaf"
    assert first["b"]["port"] == "c1"


def test_label_csv_reads_back_one_row_per_cable(built) -> None:
    _design, _elevations, cables = built
    text = "".join(labels_csv_chunks(cables)).lstrip("\ufeff")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert tuple(rows[0]) == LABEL_COLUMNS
    assert len(rows) == len(cables)
    assert rows[0]["cable_id"] == cables[0].id
    assert float(rows[0]["length_m"]) > 0


def test_label_pdf_qr_codes_read_back_as_the_cable_ids(built) -> None:
    import pypdfium2  # the dev extras' PDF rasteriser and QR reader
    import zxingcpp

    _design, _elevations, cables = built
    sample = cables[:30]  # 60 labels: 2 full pages of 24 and a third with 12
    pdf = pypdfium2.PdfDocument(labels_pdf(sample, captions=CAPTIONS))
    assert len(pdf) == 3
    found: list[str] = []
    for page in pdf:
        image = page.render(scale=300 / 72).to_pil()  # 300 dpi, as a scanner reads a print
        found.extend(result.text for result in zxingcpp.read_barcodes(image))
    # Two labels per cable, one for each end, both carrying the id.
    assert sorted(found) == sorted([cable.id for cable in sample] * 2)
    assert LABELS_PER_PAGE == 24


def test_label_pdf_refuses_more_than_the_cap(built) -> None:
    _design, _elevations, cables = built
    too_many = cables * (MAX_LABEL_CABLES // len(cables) + 1)
    with pytest.raises(TooManyLabels):
        labels_pdf(too_many, captions=CAPTIONS)


def test_slurm_three_tiers_nest_units_in_pods_under_the_cores() -> None:
    # 4,096 GPUs = 512 servers, ToR pairs of 64 x 400G: 4 servers a rack, 128 racks; too many
    # leaves for one spine tier, so pods of racks under cores.
    request = {"gpus": 4096, "fabric": "tor", "leaf": "64x400", "dual_homing": True}
    design = size(parse_request(request, CATALOG), CATALOG)
    assert design.compute.shape.tiers == 3
    switches: dict[str, dict[str, list[str]]] = {}
    for line in topology_conf(design).splitlines():
        if line and not line.startswith("#"):
            fields = dict(field.split("=", 1) for field in line.split())
            switches[fields.pop("SwitchName")] = {k: _expand(v) for k, v in fields.items()}
    leaves = [name for name, spec in switches.items() if "Nodes" in spec]
    assert len(leaves) == 128  # one per rack
    parents = [child for spec in switches.values() for child in spec.get("Switches", [])]
    # Every switch but the top one has exactly one parent, and every parent is defined.
    assert sorted(parents) == sorted(name for name in switches if name != "cores")
    per_pod = design.compute.shape.groups_per_pod
    assert all(len(switches[f"pod{n}"]["Switches"]) == per_pod for n in range(1, 128 // per_pod))


def test_one_label_a_cable_halves_the_sheet(built) -> None:
    from pypdf import PdfReader

    _design, _elevations, cables = built
    sample = cables[:30]
    # 30 labels at 24 a page: 2 pages; two labels a cable would be 60: 3 pages.
    one = PdfReader(io.BytesIO(labels_pdf(sample, captions=CAPTIONS, copies=1)))
    assert len(one.pages) == 2
    text = one.pages[0].extract_text()
    assert text.count("This end:") == 24
    assert text.count("Far end:") == 24


def test_label_sheet_drawn_directly_matches_the_html_render(built, monkeypatch) -> None:
    """The sheet is drawn straight into PDF when the Noto CJK fonts are there (CI and the image
    install them) and rendered from HTML by WeasyPrint otherwise: the same pages and words."""
    from pypdf import PdfReader

    from planner.handover import label_sheet

    _design, _elevations, cables = built
    sample = cables[:13]  # 26 labels: a full page of 24 and 2 on the second
    assert label_sheet.available()
    direct = PdfReader(io.BytesIO(labels_pdf(sample, captions=CAPTIONS)))
    monkeypatch.setattr(label_sheet, "available", lambda: False)
    html = PdfReader(io.BytesIO(labels_pdf(sample, captions=CAPTIONS)))
    assert len(direct.pages) == len(html.pages) == 2
    for mine, theirs in zip(direct.pages, html.pages, strict=True):
        # A4: 210 x 297 mm = 595.28 x 841.89 pt (to a thousandth of a point).
        assert [round(float(v), 2) for v in mine.mediabox] == [
            round(float(v), 2) for v in theirs.mediabox
        ]
        words, expected = mine.extract_text().split(), theirs.extract_text().split()
        assert sorted(words) == sorted(expected)
