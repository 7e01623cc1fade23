"""The seed's modern range: 800G twin-port modules and copper, 400G/200G/100G DAC, MPO-12/APC and
UPC trunks and cords, LC single-mode to 100 m; every item sourced and priced on both lists, and
every length sold listed in its media rule."""

from decimal import Decimal

from catalog.snapshot import snapshot_from_seed
from engine.catalog import CableKind, Connector, FibreType, FormFactor, MediaKind
from tests.catalog.conftest import seed_product

# EZMAX GPU Cluster Interconnect Solution brochure, section 四: the EZMAX range is NICs, 25G SR
# and (planned) 100G SR4 modules, 25G SFP28 DAC 1~3 m, MPO-12 and MPO-24 OM4 cords, services.
EZMAX_SKUS = {
    "NETI710-2CP",
    "NETI710-4CP",
    "EZMAX-SFP28-25G-SR",
    "EZMAX-QSFP28-100G-SR4",
    "EZMAX-SFP28-DAC-1M",
    "EZMAX-SFP28-DAC-2M",
    "EZMAX-SFP28-DAC-3M",
    *(f"EZMAX-MPO12-OM4-{n}M" for n in ("0.5", "1", "2", "3", "5", "7", "10")),
    *(f"EZMAX-MPO24-OM4-{n}M" for n in ("0.5", "1", "2", "3", "5", "7", "10")),
    "EZMAX-SVC-POC",
    "EZMAX-SVC-INSTALL-DAY",
    "EZMAX-SVC-SUPPORT-YEAR",
    "EZMAX-SVC-SUPPORT-SWITCH-YEAR",  # support priced by size (issue 15): per switch-year
    "EZMAX-SVC-SUPPORT-GPU-YEAR",  # or per GPU-year
}


def _lengths(cables, prefix):
    return sorted(c.length_m for c in cables if c.sku.startswith(prefix))


def test_ezmax_lines_stay_as_the_brochure_states(seed_data):
    ezmax = {p["sku"] for p in seed_data["products"] if p["vendor"] == "EZMAX"}
    assert ezmax == EZMAX_SKUS


def test_800g_modules_and_copper(seed_data):
    snapshot = snapshot_from_seed(seed_data)
    items = snapshot.by_sku()
    # NVIDIA MMS4X50-NM: twin-port OSFP, 2 x 400G FR4 over duplex LC, 2 km single-mode.
    fr4 = items["MMS4X50-NM"]
    assert (fr4.form_factor, fr4.speed_gbps, fr4.links_per_module) == (FormFactor.OSFP, 800, 2)
    assert (fr4.media, fr4.connector) == (MediaKind.SMF, Connector.LC)
    assert {(r.fibre_type, r.reach_m) for r in fr4.reaches} == {(FibreType.OS2, 2000.0)}
    # NVIDIA MCP4Y10: twin-port OSFP passive DAC in 0.5, 1, 1.5 and 2 m.
    assert _lengths(snapshot.cables, "MCP4Y10-") == [0.5, 1.0, 1.5, 2.0]
    # NVIDIA MCA4J80: twin-port OSFP active copper (ACC), 3 to 5 m, straight (not a splitter).
    accs = [c for c in snapshot.cables if c.sku.startswith("MCA4J80-")]
    assert sorted(c.length_m for c in accs) == [3.0, 4.0, 5.0]
    assert all((c.media, c.speed_gbps, c.breakout_ways) == (MediaKind.AEC, 800, 1) for c in accs)
    assert all(c.end_a is c.end_b is FormFactor.OSFP for c in accs)


def test_400g_200g_100g_copper(seed_data):
    items = snapshot_from_seed(seed_data).by_sku()
    # Arista CAB-D-D-400G-3M: 400G QSFP-DD passive DAC, 3 m (400GBASE-CR8 1-3 m).
    dac400 = items["CAB-D-D-400G-3M"]
    assert (dac400.end_a, dac400.speed_gbps, dac400.length_m) == (FormFactor.QSFP_DD, 400, 3.0)
    # NVIDIA MCP1600-C005E26L: 100G QSFP28 DAC, 5 m (IEEE 802.3bj CR4 reaches 5 m).
    assert items["MCP1600-C005E26L"].length_m == 5.0
    # NVIDIA MCP1650-V: 200G QSFP56 DAC, 1 and 2 m.
    for sku, length in (("MCP1650-V001E30", 1.0), ("MCP1650-V002E26", 2.0)):
        cable = items[sku]
        assert (cable.end_a, cable.end_b, cable.speed_gbps) == (
            FormFactor.QSFP56,
            FormFactor.QSFP56,
            200,
        )
        assert cable.length_m == length
    # NVIDIA MCP7F00: QSFP28 to 4 x SFP28, now to 5 m.
    breakout = items["MCP7F00-A005R26L"]
    assert (breakout.breakout_ways, breakout.end_b, breakout.length_m) == (4, FormFactor.SFP28, 5)


def test_structured_cabling_range(seed_data):
    cables = snapshot_from_seed(seed_data).cables

    def kind_lengths(connector, fibre, kind):
        return sorted(
            c.length_m
            for c in cables
            if c.connector is connector and c.fibre_type is fibre and c.kind is kind
        )

    apc, upc, lc = Connector.MPO12_APC, Connector.MPO12, Connector.LC
    trunk, cord = CableKind.TRUNK, CableKind.PATCH_CORD
    # OS2 MPO-12/APC trunks 20-150 m.
    assert {20, 30, 50, 70, 100, 150} <= set(kind_lengths(apc, FibreType.OS2, trunk))
    # OM4 MPO-12/APC trunks to 50 m, the NDR-class multimode limit (NVIDIA structured cabling);
    # no APC multimode trunk is longer than any APC module reaches.
    assert {20, 30, 50} <= set(kind_lengths(apc, FibreType.OM4, trunk))
    assert max(kind_lengths(apc, FibreType.OM4, trunk)) == 50
    # OM4 MPO-12 UPC trunks 20-100 m for 100G/200G SR4 (100 m OM4, IEEE 802.3bm / 802.3cd).
    assert kind_lengths(upc, FibreType.OM4, trunk) == [20, 30, 50, 70, 100]
    # MPO-12/APC patch cords 1, 2, 3, 5 m on OM4 and OS2.
    for fibre in (FibreType.OM4, FibreType.OS2):
        assert {1, 2, 3, 5} <= set(kind_lengths(apc, fibre, cord)), fibre
    # LC duplex OS2 trunks to 1 km: FR4's pods far from the cores (engine.geometry).
    assert {50, 70, 100, 150, 200, 300, 500, 1000} <= set(kind_lengths(lc, FibreType.OS2, trunk))
    assert {1, 2, 3, 5, 10} <= set(kind_lengths(lc, FibreType.OS2, cord))
    # NVIDIA's MFP7E10 / MFP7E30 are point-to-point fibres, module to module (NVIDIA's
    # SuperPOD BOMs run them leaf to spine with no panel between): patch cords to 50 and 100 m;
    # every new APC cord is a patch cord too.
    assert {c.kind for c in cables if c.sku.startswith("MFP7E")} == {CableKind.PATCH_CORD}
    assert max(kind_lengths(apc, FibreType.OS2, cord)) == 100  # MFP7E30-N100
    assert all(
        c.kind is CableKind.PATCH_CORD
        for c in cables
        if c.sku.startswith("MPO12APC-") and "TRUNK" not in c.sku
    )


def test_every_product_is_sourced_and_priced_on_both_lists(seed_data):
    lists = {
        price_list["code"]: {row["sku"]: Decimal(row["amount"]) for row in price_list["prices"]}
        for price_list in seed_data["price_lists"]
    }
    assert set(lists) == {"CNY-2026", "USD-2026"}
    sold = {p["sku"] for p in seed_data["products"] if p["category"] != "customer_supplied"}
    assert set(lists["CNY-2026"]) == sold
    assert set(lists["USD-2026"]) == sold
    for entry in seed_data["products"]:
        assert entry["source"].strip(), entry["sku"]
        assert len(entry["source"]) <= 300, entry["sku"]  # Product.source max_length
        sku = entry["sku"]
        if sku not in sold:
            continue
        cny, usd = lists["CNY-2026"][sku], lists["USD-2026"][sku]
        if cny >= 20:
            # Sample prices keep the lists' proportions: the existing items run 6.25-7.5 CNY per
            # USD (the seed's two 2026 lists).
            assert Decimal("6.2") <= cny / usd <= Decimal("7.6"), sku
        cost = entry.get("cost")
        if cost and cny:
            assert Decimal(cost["amount"]) < cny, sku  # a sample cost below the list price


def test_price_tiers_only_discount(seed_data):
    for price_list in seed_data["price_lists"]:
        for row in price_list["prices"]:
            amounts = [Decimal(row["amount"])] + [Decimal(t["unit_price"]) for t in row["tiers"]]
            assert amounts == sorted(amounts, reverse=True), (price_list["code"], row["sku"])


def test_media_rules_list_every_length_sold(seed_data):
    snapshot = snapshot_from_seed(seed_data)
    rules = {(r.speed_gbps, r.media): r for r in snapshot.media_rules}
    for cable in snapshot.cables:
        if cable.media in (MediaKind.MMF, MediaKind.SMF):
            continue
        rule = rules.get((cable.speed_gbps, cable.media))
        if rule is not None and cable.length_m <= rule.max_reach_m:
            assert cable.length_m in rule.stock_lengths_m, (cable.sku, rule)
    for module in snapshot.transceivers:
        speed = module.speed_gbps // module.links_per_module  # per link
        rule = rules.get((speed, module.media))
        if rule is None:
            continue
        reach = {r.fibre_type: r.reach_m for r in module.reaches}
        for fibre in snapshot.cables:
            if fibre.connector is not module.connector or fibre.media is not module.media:
                continue
            limit = min(reach.get(fibre.fibre_type, 0.0), rule.max_reach_m)
            if fibre.length_m <= limit:
                assert fibre.length_m in rule.stock_lengths_m, (module.sku, fibre.sku)


def test_new_items_are_sold_by_their_vendor(seed_data):
    # NVIDIA and Arista part numbers keep their vendor; cabling without a vendor part number is
    # the generic cabling partner's.
    for sku, vendor in (
        ("MMS4X50-NM", "NVIDIA"),
        ("MCA4J80-N004", "NVIDIA"),
        ("CAB-D-D-400G-3M", "Arista"),
        ("MPO12APC-OS2-TRUNK-150M", "Generic"),
        ("LC-LC-OS2-TRUNK-100M", "Generic"),
    ):
        assert seed_product(seed_data, sku)["vendor"] == vendor
