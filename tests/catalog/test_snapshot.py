"""The engine's snapshot: from the seed file (pure) and from the database (after load_catalog)."""

from decimal import Decimal

import pytest
from django.core.management import call_command

from catalog.models import Product
from catalog.selectors import catalog_problems, catalog_snapshot, price_map
from catalog.snapshot import snapshot_from_seed
from engine.catalog import FormFactor, Lifecycle, MediaKind
from tests.catalog.conftest import seed_product


def test_seed_snapshot_is_pure_and_covers_every_sellable_product(seed_data):
    # No database access in this test (no `db` fixture): snapshot_from_seed is pure.
    snapshot = snapshot_from_seed(seed_data)
    engine_categories = {
        "nic",
        "switch",
        "transceiver",
        "copper_cable",
        "aoc",
        "fibre",
        "patch_panel",
    }
    expected = {
        p["sku"]
        for p in seed_data["products"]
        if p["category"] in engine_categories and p["lifecycle"] in ("planned", "available")
    }
    assert set(snapshot.by_sku()) == expected
    assert len(snapshot.media_rules) == len(seed_data["media_rules"])
    assert snapshot.version.startswith("sha256:")


def test_seed_passes_its_own_structural_checks(seed_data):
    snapshot = snapshot_from_seed(seed_data)
    for switch in snapshot.switches:
        for group in switch.port_groups:
            for breakout in group.breakouts:
                # First principles: a breakout splits the port's lanes, ways x speed = port speed.
                assert breakout.ways * breakout.speed_gbps == group.speed_gbps, switch.sku
    for cable in snapshot.cables:
        if cable.media in (MediaKind.MMF, MediaKind.SMF):
            assert cable.fibre_type, cable.sku
            assert cable.connector, cable.sku
            assert cable.strands > 0, cable.sku
            assert cable.speed_gbps == 0, cable.sku  # passive glass has no speed
        else:
            assert isinstance(cable.end_a, FormFactor)
            assert isinstance(cable.end_b, FormFactor)
            assert cable.speed_gbps % cable.breakout_ways == 0, cable.sku
        assert cable.length_m > 0, cable.sku
    for transceiver in snapshot.transceivers:
        assert transceiver.reaches, transceiver.sku
        assert all(r.reach_m > 0 for r in transceiver.reaches), transceiver.sku
    for rule in snapshot.media_rules:
        assert rule.max_reach_m > 0
        assert all(0 < length <= rule.max_reach_m for length in rule.stock_lengths_m)


def test_seed_has_the_brochure_range(seed_data):
    snapshot = snapshot_from_seed(seed_data)
    items = snapshot.by_sku()
    # EZMAX brochure section 四: NETI710-4CP = 4 x 10G SFP+, PCIe 3.0 x8, SR-IOV 64 VF, <= 15 W.
    nic = items["NETI710-4CP"]
    assert (nic.ports, nic.speed_gbps, nic.form_factor) == (4, 10, FormFactor.SFP_PLUS)
    assert (nic.pcie_gen, nic.pcie_lanes, nic.sriov_vfs, nic.rocev2) == (3, 8, 64, True)
    assert nic.power_w == 15.0
    # Brochure: NETI710-2CP = 2 x 10G SFP+, PCIe 3.0 x4, RoCEv2.
    nic2 = items["NETI710-2CP"]
    assert (nic2.ports, nic2.speed_gbps, nic2.pcie_gen, nic2.pcie_lanes) == (2, 10, 3, 4)
    # Brochure: 25G SFP28 SR, 100 m OM4, < 1 W; 70 m OM3 per IEEE 802.3by.
    sr = items["EZMAX-SFP28-25G-SR"]
    assert {r.fibre_type.value: r.reach_m for r in sr.reaches} == {"OM3": 70.0, "OM4": 100.0}
    assert sr.power_w <= 1.0
    # Brochure: 100G QSFP28 SR4 is planned (规划中).
    assert items["EZMAX-QSFP28-100G-SR4"].lifecycle is Lifecycle.PLANNED
    # Brochure: 25G SFP28 DAC 1~3 m.
    dac_lengths = sorted(
        c.length_m for c in snapshot.cables if c.sku.startswith("EZMAX-SFP28-DAC-")
    )
    assert dac_lengths == [1.0, 2.0, 3.0]
    # Brochure: MPO-12 OM4 0.5~10 m and MPO-24 OM4 cords.
    mpo12 = [c for c in snapshot.cables if c.sku.startswith("EZMAX-MPO12-OM4-")]
    assert min(c.length_m for c in mpo12) == 0.5
    assert max(c.length_m for c in mpo12) == 10.0
    assert all(c.strands == 12 for c in mpo12)  # MPO-12: 12 fibre positions
    mpo24 = [c for c in snapshot.cables if c.sku.startswith("EZMAX-MPO24-OM4-")]
    assert mpo24
    assert all(c.strands == 24 for c in mpo24)


def test_seed_partner_items_match_public_specs(seed_data):
    items = snapshot_from_seed(seed_data).by_sku()
    # NVIDIA SN5000 user manual, Data Interfaces:
    # SN5600 = 64 x 800GbE OSFP (128 x 400G, 256 x 200G).
    sn5600 = items["MSN5600-VS2FC"]
    (group,) = sn5600.port_groups
    assert (group.count, group.speed_gbps, group.form_factor) == (64, 800, FormFactor.OSFP)
    assert {(b.ways, b.speed_gbps) for b in group.breakouts} == {(2, 400), (4, 200), (8, 100)}
    assert group.count * 2 == 128
    assert group.count * 4 == 256
    assert sn5600.switching_capacity_gbps == 64 * 800  # 51.2 Tb/s, one direction
    # Arista 7060DX5-64S: 64 x 400G QSFP-DD = 25.6 Tb/s.
    arista = items["DCS-7060DX5-64S"]
    assert arista.port_groups[0].count * arista.port_groups[0].speed_gbps == 25600
    # SN2410: 48 x 25G SFP28 + 8 x 100G QSFP28.
    sn2410 = items["MSN2410-CB2F"]
    assert [(g.count, g.speed_gbps, g.form_factor) for g in sn2410.port_groups] == [
        (48, 25, FormFactor.SFP28),
        (8, 100, FormFactor.QSFP28),
    ]
    # NVIDIA LinkX: 800G twin-port OSFP, 2 x 400G; 15 W multimode, 17 W single-mode.
    assert items["MMA4Z00-NS"].links_per_module == 2
    assert items["MMA4Z00-NS"].power_w == 15.0
    assert items["MMS4X00-NS"].links_per_module == 2
    assert items["MMS4X00-NS"].power_w == 17.0
    # NVIDIA MCP7Y00: 800G twin-port OSFP to 2 x 400G OSFP splitter.
    splitter = items["MCP7Y00-N001"]
    assert (splitter.speed_gbps, splitter.breakout_ways) == (800, 2)
    assert splitter.speed_gbps // splitter.breakout_ways == 400
    # ConnectX-7 MCX75310AAS-NEAT: 1 x 400G OSFP, PCIe 5.0 x16.
    cx7 = items["MCX75310AAS-NEAT"]
    assert (cx7.ports, cx7.speed_gbps, cx7.form_factor, cx7.pcie_gen, cx7.pcie_lanes) == (
        1,
        400,
        FormFactor.OSFP,
        5,
        16,
    )


@pytest.mark.slow
def test_db_snapshot_equals_seed_snapshot(db, seed_data):
    call_command("load_catalog", verbosity=0)
    from_db = catalog_snapshot()
    from_seed = snapshot_from_seed(seed_data)
    assert from_db == from_seed
    assert from_db.version == from_seed.version


def test_loaded_seed_passes_the_catalog_self_check(seeded):
    assert catalog_problems() == []


def test_snapshot_leaves_out_end_of_sale_and_changes_version(seeded, seed_data):
    before = catalog_snapshot()
    Product.objects.filter(sku="NETI710-2CP").update(lifecycle="end_of_sale")
    after = catalog_snapshot()
    assert "NETI710-2CP" in before.by_sku()
    assert "NETI710-2CP" not in after.by_sku()
    assert after.version != before.version


def test_price_map_gives_default_list_prices(seeded, seed_data):
    prices = price_map()
    default = next(pl for pl in seed_data["price_lists"] if pl["default"])
    assert default["currency"] == "CNY"
    expected = {row["sku"]: Decimal(row["amount"]) for row in default["prices"]}
    assert prices == expected
    assert all(isinstance(value, Decimal) for value in prices.values())


def test_every_seed_price_is_marked_sample(seed_data):
    for price_list in seed_data["price_lists"]:
        assert price_list["sample"] is True
        assert "sample" in price_list["note"]
    for product in seed_data["products"]:
        if "cost" in product:
            assert "sample" in product["cost"]["note"]
    nic = seed_product(seed_data, "NETI710-4CP")
    assert nic["vendor"] == "EZMAX"


@pytest.mark.parametrize("price_list_code", ["USD-2026"])
def test_price_map_for_another_list(seeded, seed_data, price_list_code):
    from catalog.models import PriceList

    prices = price_map(PriceList.objects.get(code=price_list_code))
    rows = next(pl for pl in seed_data["price_lists"] if pl["code"] == price_list_code)["prices"]
    assert prices == {row["sku"]: Decimal(row["amount"]) for row in rows}


def test_unit_price_prefers_contract_then_tier_then_list(seeded, seed_data, roles):
    import datetime

    from catalog.models import ContractPrice
    from catalog.selectors import unit_price
    from core.models import Team
    from customers.models import Customer

    product = Product.objects.get(sku="EZMAX-SFP28-DAC-3M")
    row = next(r for r in seed_data["price_lists"][0]["prices"] if r["sku"] == product.sku)
    listed = unit_price(product, quantity=1)
    assert (listed.source, listed.amount, listed.currency) == (
        "list",
        Decimal(row["amount"]),
        "CNY",
    )
    assert listed.is_sample is True
    tier = max(row["tiers"], key=lambda t: t["min_quantity"])
    bulk = unit_price(product, quantity=tier["min_quantity"])
    assert (bulk.source, bulk.amount) == ("tier", Decimal(tier["unit_price"]))

    customer = Customer.objects.create(name_en="ACME AI", team=Team.objects.create(name="T"))
    ContractPrice.objects.create(
        customer=customer,
        product=product,
        currency="CNY",
        amount=Decimal("99.00"),
        valid_from=datetime.date(2020, 1, 1),
    )
    contract = unit_price(product, quantity=tier["min_quantity"], customer=customer)
    assert (contract.source, contract.amount) == ("contract", Decimal("99.00"))


def test_the_seed_catalog_sizes_every_plane_with_its_defaults(seed_data):
    # What the wizard does when an engineer ticks the storage, frontend and OOB boxes: each plane
    # with the engine's defaults must find media in the catalog EZMAX ships, not fail.
    from engine.request import parse_request
    from engine.sizing import size

    catalog = snapshot_from_seed(seed_data)
    request = parse_request(
        {"gpus": 1024, "nic_speed": 400, "fabric": "rail", "leaf": "64x400",
         "storage": {"storage_nodes": 8}, "frontend": {}, "oob": {}},
        catalog,
    )  # fmt: skip
    design = size(request, catalog)
    planes = {plane.name: plane for plane in design.planes}
    assert set(planes) == {"compute", "storage", "frontend", "oob"}
    for plane in planes.values():
        assert plane.links, plane.name
        for group in plane.links:
            assert group.cable_sku in catalog.by_sku(), (plane.name, group.cable_sku)
    # OOB: one BMC port per server (1,024 / 8 = 128), a management port per compute, storage
    # and frontend switch, and one per storage node, all at 1G over the Cat6A cords.
    oob = planes["oob"]
    switches = sum(t.count for p in design.planes if p.name != "oob" for t in p.tiers)
    assert oob.shape.servers == 128 + switches + 8
    assert {group.media.value for group in oob.links} == {"utp"}
    # The default 11:1 on 48-port 1G switches: 44 ports down and 4 up (44 / 4 = 11).
    leaf = oob.tier("leaf")
    assert leaf is not None
    assert (leaf.downlinks, leaf.uplinks) == (44, 4)
