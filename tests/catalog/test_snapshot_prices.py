"""The snapshot's money and brand fields: unit price on the default list, cost, own brand, and
the cable kind; a price change is a new snapshot version."""

from decimal import Decimal

from catalog.models import Price, PriceList, Product
from catalog.selectors import catalog_snapshot
from catalog.snapshot import snapshot_from_seed
from engine.catalog import CableKind
from tests.catalog.conftest import seed_product


def _default_list(data):
    return next(pl for pl in data["price_lists"] if pl.get("default"))


def test_seed_snapshot_prices_are_the_default_lists(seed_data):
    snapshot = snapshot_from_seed(seed_data)
    default = _default_list(seed_data)
    assert default["code"] == "CNY-2026"
    listed = {row["sku"]: Decimal(row["amount"]) for row in default["prices"]}
    for sku, item in snapshot.by_sku().items():
        assert item.price == listed.get(sku), sku
        assert item.price is None or item.price.as_tuple().exponent == -2, sku
    # Not the USD list: the NETI710-4CP's CNY amount, as written in the seed.
    assert snapshot.by_sku()["NETI710-4CP"].price == listed["NETI710-4CP"]


def test_seed_snapshot_costs_and_own_brand(seed_data):
    snapshot = snapshot_from_seed(seed_data)
    own_brands = {v["code"] for v in seed_data["vendors"] if v["own_brand"]}
    assert own_brands == {"EZMAX"}
    for sku, item in snapshot.by_sku().items():
        entry = seed_product(seed_data, sku)
        assert item.own_brand is (entry["vendor"] in own_brands), sku
        cost = entry.get("cost")
        expected = Decimal(cost["amount"]) if cost and cost["currency"] == "CNY" else None
        assert item.cost == expected, sku


def test_seed_snapshot_cable_kinds(seed_data):
    snapshot = snapshot_from_seed(seed_data)
    for cable in snapshot.cables:
        entry = seed_product(seed_data, cable.sku)
        assert cable.kind is CableKind(entry["spec"].get("kind", "assembly")), cable.sku
    kinds = {c.sku: c.kind for c in snapshot.cables}
    # NVIDIA's MFP7E10 crossover fibres run module to module (issue 26, item 5)
    assert kinds["MFP7E10-N010"] is CableKind.PATCH_CORD
    assert kinds["MPO12APC-OM4-TRUNK-50M"] is CableKind.TRUNK
    assert kinds["EZMAX-MPO12-OM4-1M"] is CableKind.PATCH_CORD
    assert kinds["MCP4Y10-N001"] is CableKind.ASSEMBLY


def test_a_cost_in_another_currency_is_left_out(seed):
    # The engine compares prices and costs across products: a USD cost next to CNY prices
    # would be compared as if it were yuan, so the snapshot leaves it out.
    seed_product(seed, "NETI710-2CP")["cost"]["currency"] = "USD"
    item = snapshot_from_seed(seed).by_sku()["NETI710-2CP"]
    assert item.cost is None
    assert item.price is not None


def test_seed_without_a_default_list_has_no_prices_and_another_version(seed):
    priced = snapshot_from_seed(seed)
    for price_list in seed["price_lists"]:
        price_list["default"] = False
    snapshot = snapshot_from_seed(seed)
    assert all(item.price is None for item in snapshot.by_sku().values())
    assert snapshot.version != priced.version


def test_db_snapshot_prices_cost_and_brand(seeded, seed_data):
    snapshot = catalog_snapshot()
    default = PriceList.objects.get(is_default=True)
    prices = dict(Price.objects.filter(price_list=default).values_list("product__sku", "amount"))
    for sku, item in snapshot.by_sku().items():
        product = Product.objects.select_related("vendor").get(sku=sku)
        assert item.price == prices.get(sku), sku
        assert item.own_brand is product.vendor.is_own_brand, sku
        assert item.cost == product.cost, sku


def test_a_price_change_changes_the_snapshot_version(seeded):
    before = catalog_snapshot()
    price = Price.objects.get(price_list__is_default=True, product__sku="NETI710-4CP")
    price.amount += Decimal("1.00")
    price.save()
    after = catalog_snapshot()
    assert after.by_sku()["NETI710-4CP"].price == price.amount
    assert after.version != before.version


def test_a_price_on_another_list_does_not_change_the_snapshot(seeded):
    before = catalog_snapshot()
    price = Price.objects.get(price_list__code="USD-2026", product__sku="NETI710-4CP")
    price.amount += Decimal("1.00")
    price.save()
    assert catalog_snapshot().version == before.version


def test_a_cost_change_changes_the_snapshot_version(seeded):
    before = catalog_snapshot()
    product = Product.objects.get(sku="NETI710-4CP")
    product.cost = (product.cost or Decimal(0)) + Decimal("1.00")
    product.save()
    after = catalog_snapshot()
    assert after.by_sku()["NETI710-4CP"].cost == product.cost
    assert after.version != before.version
