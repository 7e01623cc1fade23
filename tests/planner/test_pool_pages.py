"""Heterogeneous pools (issue 28) through every door and document: the API takes them and names
a bad one by field, the CLI too, the design page and the proposal count every pool's GPUs, the
elevations rack each pool's servers in racks of their own after the first pool's, and NetBox
and Slurm list them. On the real seed catalog; the engine's arithmetic is tested in
tests/engine/test_pools.py."""

from __future__ import annotations

import csv
import io
import json
import zipfile
from collections import Counter
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse
from rest_framework.test import APIClient

from planner import services
from planner.handover.elevations import design_elevations
from planner.handover.slurm import topology_conf
from tests.conftest import load_seed_catalog

pytestmark = pytest.mark.django_db

NIC_400G = "MCX75310AAS-NEAT"  # seed: ConnectX-7, 1 x 400G OSFP
# Two GB200 NVL72 racks (36 trays x 4 GPUs) and 16 HGX servers of 8 GPUs on the same SN5600
# fabric: 144 + 128 = 272 GPUs, 36 + 16 = 52 servers.
REQUEST = {
    "gpus": 144, "system": "gb200-nvl72", "leaf": "MSN5600-VS2FC",
    "pools": [{"gpus": 128, "gpus_per_server": 8, "rails": 8, "nic": NIC_400G}],
}  # fmt: skip


@pytest.fixture
def design(engineer):
    load_seed_catalog()
    return services.design_create(owner=engineer, name="Mixed hall", request_data=REQUEST)


@pytest.fixture
def api(engineer) -> APIClient:
    client = APIClient()
    client.force_authenticate(engineer)
    return client


def test_the_api_sizes_a_pool_and_names_a_bad_one_by_field(api):
    load_seed_catalog()
    response = api.post("/api/v1/designs/preview/", REQUEST, format="json")
    assert response.status_code == 200, response.content
    result = response.json()["result"]
    assert [pool["gpus"] for pool in result["pools"]] == [128]
    assert [plane["name"] for plane in result["planes"]][:2] == ["compute", "pool2"]
    assert result["switches"]["pool2_leaf"] > 0
    bad = {**REQUEST, "pools": [{"gpus": 100, "gpus_per_server": 8}]}  # 12.5 servers
    response = api.post("/api/v1/designs/preview/", bad, format="json")
    assert response.status_code == 400
    assert "pools.0.gpus" in json.dumps(response.json())
    unknown = {**REQUEST, "pools": [{"gpus": 64, "gpu_count": 8}]}
    response = api.post("/api/v1/designs/preview/", unknown, format="json")
    assert response.status_code == 400
    assert "gpu_count" in json.dumps(response.json())


def test_the_cli_takes_pools_and_refuses_what_is_no_list_in_one_line():
    load_seed_catalog()
    out = StringIO()
    call_command(
        "size", "--gpus", "64", "--leaf", "DCS-7060DX5-64S",
        "--pools", '[{"gpus": 64, "nic_speed": 200}]', "--format", "json", stdout=out,
    )  # fmt: skip
    result = json.loads(out.getvalue())
    assert result["pools"][0]["nic_speed_gbps"] == 200
    with pytest.raises(CommandError, match="--pools takes a JSON list"):
        call_command("size", "--gpus", "64", "--pools", "64", stdout=StringIO())


@pytest.mark.parametrize(
    ("language", "heading", "pool"),
    [("en", "Server pools on this fabric", "Compute fabric, second pool"),
     ("zh-hans", "本网络中的服务器资源池", "计算网络（第二资源池）")],
)  # fmt: skip
def test_the_design_page_counts_every_pool(client, design, engineer, settings, language, heading,
                                           pool):  # fmt: skip
    settings.LANGUAGE_CODE = language
    client.force_login(engineer)
    html = client.get(reverse("planner:design-detail", args=[design.pk])).content.decode()
    assert 'data-testid="gpus" data-value="272"' in html
    assert 'data-testid="servers" data-value="52"' in html
    assert heading in html
    assert pool in html
    assert design.gpus == 272  # the list and the quote form show the cluster's GPUs


def test_each_pools_servers_stand_in_racks_of_their_own(design):
    engine_design = services.design_engine(design=design)
    elevations = design_elevations(engine_design)
    # 2 NVL72 racks in row 1, then 16 HGX servers at 4 a rack in a row of their own (rows of
    # 10 racks by default): R02-01 to R02-04.
    assert elevations.device_rack["srv0036"] == "R01-02"
    assert elevations.device_rack["pool2-srv0001"] == "R02-01"
    assert elevations.device_rack["pool2-srv0016"] == "R02-04"
    compute = [rack for rack in elevations.racks if rack.kind == "compute"]
    assert len(compute) == 6
    hgx = [item for rack in compute[2:] for item in rack.items if item.role == "server"]
    assert len(hgx) == 16
    assert {item.model for item in hgx} == {"8-GPU server"}
    # Slurm: the pool's unit under the same spines, its nodes by their cabling names.
    conf = topology_conf(engine_design)
    assert "SwitchName=pool2-su01 Nodes=pool2-srv[0001-0016]" in conf
    spines = next(line for line in conf.splitlines() if line.startswith("SwitchName=spines"))
    assert "pool2-su01" in spines


def test_netbox_racks_every_pools_servers_and_cables_reach_them(client, design, engineer):
    client.force_login(engineer)
    response = client.get(reverse("planner:handover-netbox", args=[design.pk]))
    assert response.status_code == 200
    content = b"".join(response.streaming_content) if response.streaming else response.content
    archive = zipfile.ZipFile(io.BytesIO(content))
    devices = list(csv.DictReader(io.StringIO(archive.read("06_devices.csv").decode())))
    pool_servers = [row for row in devices if row["name"].startswith("pool2-srv")]
    assert len(pool_servers) == 16
    assert all(row.get("rack") for row in pool_servers)  # racked, not left as bare endpoints


def test_the_quote_counts_and_prices_per_every_pools_gpu(client, design, engineer):
    from customers.services import customer_create
    from quotes.services.creation import quote_create

    customer = customer_create(user=engineer, name_en="ACME")
    quote = quote_create(user=engineer, design=design, customer=customer)
    client.force_login(engineer)
    html = client.get(reverse("quotes:quote-detail", args=[quote.pk])).content.decode()
    assert "272 GPUs, 52 servers" in html
    lines = list(quote.current_revision.lines.all())
    # The pool's ConnectX-7s are quoted under the pool's plane: 16 servers x 8.
    assert [(line.sku, line.quantity) for line in lines if line.plane == "pool2"
            and line.sku == NIC_400G] == [(NIC_400G, 128)]  # fmt: skip


def test_the_infragraph_document_holds_every_pool_and_validates(design):
    """ASTRA-sim's InfraGraph: the trays and the HGX servers are two kinds of server device
    (4 GPUs and 4 NICs; 8 and 8), every cabled link of both pools is one graph link, and the
    package's own schema and expansion accept the document."""
    infragraph = pytest.importorskip("infragraph")
    from infragraph.infragraph_service import InfraGraphService

    from engine.cabling import iter_cabling
    from planner.handover.cable_ids import legs
    from planner.handover.infragraph_doc import infragraph_json, instance_names

    engine_design = services.design_engine(design=design)
    text = infragraph_json(engine_design, iter_cabling(engine_design))
    infragraph.Infrastructure().deserialize(text).validate()
    service = InfraGraphService()
    service.set_graph(text)
    graph = service.get_networkx_graph()
    names = instance_names(iter_cabling(engine_design))
    assert (len(names["server"]), len(names["pool2_server"])) == (36, 16)
    document = json.loads(text)
    kinds = {d["name"]: {c["name"]: c["count"] for c in d["components"]}
             for d in document["devices"]}  # fmt: skip
    assert (kinds["server"]["xpu"], kinds["server"]["nic"]) == (4, 4)
    assert (kinds["pool2_server"]["xpu"], kinds["pool2_server"]["nic"]) == (8, 8)

    def device(node: str) -> str:
        role, index = node.split(".")[:2]
        return names[role][int(index)]

    between = [(a, b) for a, b in graph.edges if a.split(".")[:2] != b.split(".")[:2]]
    cabled = Counter(
        frozenset((a, b))
        for row in iter_cabling(engine_design)
        if row.plane in ("compute", "pool2")
        for a, _a_port, b, _b_port in legs(row)
    )
    assert Counter(frozenset((device(a), device(b))) for a, b in between) == cabled


def test_the_launch_kit_lists_every_pools_hosts_on_their_own_units(design):
    """NVIDIA's launch kit allocates addresses per scalable unit and rail from the host-to-leaf
    links: the trays' units come first (as many as the compute plane has, each tray on rails
    0-3), then the pool's: its 16 servers fill less than one unit (a leaf with the spines' 40
    uplinks takes 40 servers at 1:1), so one unit follows, its hosts on rails 0-7, and no unit
    is claimed twice."""
    from engine.cabling import iter_cabling
    from planner.handover.launch_kit import launch_kit_topology

    engine_design = services.design_engine(design=design)
    topology = launch_kit_topology(engine_design, iter_cabling(engine_design))
    hosts: dict[str, set[tuple[int, int]]] = {}
    for _leaf, host in topology["links"]:
        attributes = host["attributes"]
        hosts.setdefault(host["node"], set()).add((attributes["su"], attributes["rail"]))
    trays = {name: seen for name, seen in hosts.items() if name.startswith("srv")}
    hgx = {name: seen for name, seen in hosts.items() if name.startswith("pool2-srv")}
    assert (len(trays), len(hgx)) == (36, 16)
    assert all({rail for _su, rail in seen} == set(range(4)) for seen in trays.values())
    assert all({rail for _su, rail in seen} == set(range(8)) for seen in hgx.values())
    tray_units = {su for seen in trays.values() for su, _rail in seen}
    hgx_units = {su for seen in hgx.values() for su, _rail in seen}
    assert hgx_units == {max(tray_units) + 1}
    assert len(tray_units) == engine_design.compute.shape.groups


def test_a_three_tier_pools_pods_in_slurm_and_the_launch_kit():
    """Past two tiers each pool has pods of its own under the same cores
    (tests/engine/test_pools.py: 32 + 64 servers on 32-port switches, 2 units a pod): Slurm
    hangs the pool's units under its pods and every pod under the cores; the launch kit numbers
    the pool's units 2-5 and its pods 1-2 after the first pool's unit 0-1 and pod 0."""
    from engine.cabling import iter_cabling
    from engine.request import parse_request
    from engine.sizing import size
    from planner.handover.launch_kit import launch_kit_topology
    from tests.engine.seed import seed_catalog_and_prices

    catalog, prices = seed_catalog_and_prices()
    request = {"gpus": 256, "fabric": "rail", "leaf": "MSN4700-WS2FC", "pools": [{"gpus": 512}]}
    engine_design = size(parse_request(request, catalog), catalog, prices)
    conf = topology_conf(engine_design)
    assert "SwitchName=pod1 Switches=su[01-02]" in conf
    assert "SwitchName=pool2-pod1 Switches=pool2-su[01-02]" in conf
    assert "SwitchName=pool2-pod2 Switches=pool2-su[03-04]" in conf
    assert "SwitchName=cores Switches=pod1,pool2-pod[1-2]" in conf
    topology = launch_kit_topology(engine_design, iter_cabling(engine_design))
    seen: dict[bool, set[tuple[int, int]]] = {True: set(), False: set()}
    for _leaf, host in topology["links"]:
        attributes = host["attributes"]
        seen[host["node"].startswith("pool2-")].add((attributes["su"], attributes["pod"]))
    assert seen[False] == {(0, 0), (1, 0)}
    assert seen[True] == {(2, 1), (3, 1), (4, 2), (5, 2)}
