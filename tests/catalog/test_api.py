"""REST API: read for any authenticated user, write for catalog managers, cost only with
catalog.view_cost."""

from decimal import Decimal

import pytest
from django.urls import resolve

from catalog.models import Product
from tests.catalog.conftest import seed_product

LIST = "/api/v1/products/"


def detail(sku):
    return f"{LIST}{sku}/"


@pytest.fixture
def manager_client(client, manager):
    client.force_login(manager)
    return client


@pytest.fixture
def catalog_client(client, catalog_manager):
    client.force_login(catalog_manager)
    return client


def test_router_registers_products():
    assert resolve(LIST).url_name == "product-list"
    assert resolve(detail("EZMAX-MPO12-OM4-0.5M")).url_name == "product-detail"


def test_anonymous_is_refused(seeded, client):
    assert client.get(LIST).status_code in (401, 403)
    assert client.get(detail("NETI710-4CP")).status_code in (401, 403)


def test_engineer_lists_and_filters(seeded, seed_data, engineer_client):
    response = engineer_client.get(LIST, {"limit": 100})
    assert response.status_code == 200
    listed = [p["sku"] for p in response.json()["results"]]
    next_url = response.json()["next"]
    while next_url:  # the seed has more products than one page of 100
        page = engineer_client.get(next_url).json()
        listed += [p["sku"] for p in page["results"]]
        next_url = page["next"]
    assert sorted(listed) == sorted(p["sku"] for p in seed_data["products"])

    switches = engineer_client.get(LIST, {"category": "switch"}).json()
    expected = {p["sku"] for p in seed_data["products"] if p["category"] == "switch"}
    assert {p["sku"] for p in switches["results"]} == expected

    osfp_800 = engineer_client.get(LIST, {"speed": 800, "form_factor": "OSFP"}).json()
    skus = {p["sku"] for p in osfp_800["results"]}
    assert {"MSN5600-VS2FC", "MMS4X00-NS", "MCP7Y00-N001"} <= skus
    assert "MCX75310AAS-NEAT" not in skus  # a 400G NIC

    ezmax_planned = engineer_client.get(LIST, {"vendor": "EZMAX", "lifecycle": "planned"}).json()
    assert [p["sku"] for p in ezmax_planned["results"]] == ["EZMAX-QSFP28-100G-SR4"]

    search = engineer_client.get(LIST, {"q": "光跳线"}).json()
    assert search["results"]
    assert all(p["category"] == "fibre" for p in search["results"])


def test_engineer_never_sees_cost(seeded, engineer_client):
    listing = engineer_client.get(LIST).json()["results"]
    for row in listing:
        assert not {"cost", "cost_currency", "cost_is_sample", "margin"} & set(row)
    one = engineer_client.get(detail("NETI710-4CP")).json()
    assert "cost" not in one
    assert "margin" not in one
    assert one["nic_spec"]["ports"] == 4  # brochure: NETI710-4CP, 4 x 10G SFP+
    assert one["list_price"]["is_sample"] is True
    assert b"cost" not in engineer_client.get(detail("NETI710-4CP")).content


def test_manager_sees_cost_and_margin(seeded, seed_data, manager_client):
    one = manager_client.get(detail("NETI710-4CP")).json()
    entry = seed_product(seed_data, "NETI710-4CP")
    assert one["cost"] == entry["cost"]["amount"]
    # margin = (list - cost) / list, on the CNY list where the seed prices it.
    price = next(
        r["amount"] for r in seed_data["price_lists"][0]["prices"] if r["sku"] == "NETI710-4CP"
    )
    expected = ((Decimal(price) - Decimal(entry["cost"]["amount"])) / Decimal(price)).quantize(
        Decimal("0.0001")
    )
    assert Decimal(one["margin"]) == expected


def test_switch_detail_has_port_groups_and_breakouts(seeded, engineer_client):
    spec = engineer_client.get(detail("MSN5600-VS2FC")).json()["switch_spec"]
    (group,) = spec["port_groups"]
    assert (group["count"], group["speed_gbps"], group["form_factor"]) == (64, 800, "OSFP")
    assert {(b["ways"], b["speed_gbps"]) for b in group["breakouts"]} == {
        (2, 400),
        (4, 200),
        (8, 100),
    }


NEW_PRODUCT = {
    "sku": "EZMAX-TEST-1",
    "category": "service",
    "vendor": "EZMAX",
    "lifecycle": "planned",
    "name_en": "Test service",
    "name_zh": "测试服务",
}


def test_engineer_cannot_write(seeded, engineer_client):
    assert (
        engineer_client.post(LIST, NEW_PRODUCT, content_type="application/json").status_code == 403
    )
    url = detail("NETI710-4CP")
    body = {"lifecycle": "end_of_sale"}
    assert engineer_client.patch(url, body, content_type="application/json").status_code == 403
    assert engineer_client.delete(url).status_code == 403
    assert Product.objects.get(sku="NETI710-4CP").lifecycle == "available"


def test_catalog_manager_writes_with_history(seeded, catalog_client, catalog_manager):
    response = catalog_client.post(LIST, NEW_PRODUCT, content_type="application/json")
    assert response.status_code == 201, response.content
    product = Product.objects.get(sku="EZMAX-TEST-1")
    assert product.history.first().history_user == catalog_manager

    response = catalog_client.patch(
        detail("EZMAX-TEST-1"), {"lifecycle": "available"}, content_type="application/json"
    )
    assert response.status_code == 200
    latest = product.history.first()
    assert latest.lifecycle == "available"
    assert latest.history_user == catalog_manager


def test_write_validation_errors_are_per_field(seeded, catalog_client):
    bad = {**NEW_PRODUCT, "sku": "bad sku", "lifecycle": "someday", "cost": "-5.00"}
    response = catalog_client.post(LIST, bad, content_type="application/json")
    assert response.status_code == 400, response.content
    # RFC 9457 problem body (core.api): field -> messages under "errors".
    assert {"sku", "lifecycle", "cost"} <= set(response.json()["errors"])
    duplicate = {**NEW_PRODUCT, "sku": "NETI710-4CP"}
    response = catalog_client.post(LIST, duplicate, content_type="application/json")
    assert response.status_code == 400
    assert "sku" in response.json()["errors"]


def test_media_rules_endpoint(seeded, seed_data, engineer_client):
    response = engineer_client.get("/api/v1/media-rules/", {"limit": 100})
    assert response.status_code == 200
    assert len(response.json()["results"]) == len(seed_data["media_rules"])


def test_schema_builds(db, engineer_client):
    response = engineer_client.get("/api/v1/schema/")
    assert response.status_code == 200
    assert b"/api/v1/products/" in response.content
