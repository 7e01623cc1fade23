"""The read-only catalog browser."""

import pytest
from django.urls import reverse
from django.utils import translation

LIST_URL = reverse("catalog:product-list")


def detail_url(sku):
    return reverse("catalog:product-detail", args=[sku])


def test_login_required(seeded, client):
    for url in (LIST_URL, detail_url("NETI710-4CP")):
        response = client.get(url)
        assert response.status_code == 302
        assert reverse("login") in response["Location"]


def test_list_is_paginated_and_filtered(seeded, seed_data, engineer_client):
    response = engineer_client.get(LIST_URL)
    assert response.status_code == 200
    page = response.context["page_obj"]
    assert page.paginator.count == len(seed_data["products"])
    assert len(page.object_list) == 25  # paginate_by
    assert page.paginator.num_pages == -(-len(seed_data["products"]) // 25)

    response = engineer_client.get(LIST_URL, {"category": "nic", "speed": 10})
    skus = {p.sku for p in response.context["products"]}
    assert skus == {"NETI710-2CP", "NETI710-4CP"}  # brochure: both are 10G SFP+

    response = engineer_client.get(LIST_URL, {"form_factor": "QSFP-DD", "category": "switch"})
    skus = {p.sku for p in response.context["products"]}
    assert skus == {"MSN4700-WS2FC", "DCS-7060DX5-64S"}

    response = engineer_client.get(LIST_URL, {"lifecycle": "planned"})
    assert [p.sku for p in response.context["products"]] == ["EZMAX-QSFP28-100G-SR4"]

    response = engineer_client.get(LIST_URL, {"q": "SN5600", "page": 1})
    assert [p.sku for p in response.context["products"]] == ["MSN5600-VS2FC"]


def test_filter_selects_autosubmit_without_inline_script(seeded, engineer_client):
    html = engineer_client.get(LIST_URL).content.decode()
    assert 'name="category"' in html
    assert "data-autosubmit" in html
    assert "<script>" not in html  # CSP: no inline scripts


def test_detail_shows_specs_sample_price_and_compatible_items(seeded, engineer_client):
    response = engineer_client.get(detail_url("MSN5600-VS2FC"))
    assert response.status_code == 200
    html = response.content.decode()
    assert "64 × 800G" in html
    assert "2 x 400G" in html  # breakout modes
    assert "sample price" in html or "样" in html
    compatible = {item.product.sku for item in response.context["compatible"]}
    assert {"MMS4X00-NS", "MMA4Z00-NS", "MCP7Y00-N001", "MCP4Y10-N001"} <= compatible
    assert 'data-testid="cost"' not in html  # engineers never see cost


def test_detail_shows_cost_to_managers(seeded, client, manager):
    client.force_login(manager)
    html = client.get(detail_url("NETI710-4CP")).content.decode()
    assert 'data-testid="cost"' in html


def test_detail_follows_language(seeded, engineer_client):
    with translation.override("en"):
        response = engineer_client.get(detail_url("NETI710-4CP"), HTTP_ACCEPT_LANGUAGE="en")
    assert "EZMAX NETI710-4CP quad-port 10G SFP+ RDMA NIC" in response.content.decode()
    response = engineer_client.get(detail_url("NETI710-4CP"), HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert "四口 10G SFP+ RDMA 网卡" in response.content.decode()


def test_unknown_sku_is_404(seeded, engineer_client):
    assert engineer_client.get(detail_url("NO-SUCH-SKU")).status_code == 404


@pytest.mark.parametrize(
    ("sku", "expected", "reason_part"),
    [
        # ConnectX-7 single-port OSFP 400G takes the 400G leg of an 800G->2x400G splitter.
        ("MCX75310AAS-NEAT", "MCP7Y00-N002", "400G"),
        # 100G SR4 (MPO-12, 100 m OM4) takes an EZMAX MPO-12 OM4 cord of 10 m.
        ("EZMAX-QSFP28-100G-SR4", "EZMAX-MPO12-OM4-10M", "MPO-12 OM4"),
        # A 25G SFP28 DAC fits the SN2410's SFP28 ports.
        ("EZMAX-SFP28-DAC-1M", "MSN2410-CB2F", "SFP28 25G"),
        # A 100G QSFP28 -> 4 x 25G breakout fits the SN2700 broken out 4 x 25G.
        ("MSN2700-CS2F", "MCP7F00-A001R30N", "4 x 25G"),
    ],
)
def test_compatible_items(seeded, sku, expected, reason_part):
    from catalog.models import Product
    from catalog.selectors import compatible_items

    items = {c.product.sku: c.reason for c in compatible_items(Product.objects.get(sku=sku))}
    assert expected in items
    assert reason_part in items[expected]


def test_fibre_longer_than_reach_is_not_compatible(seeded):
    from catalog.models import Product
    from catalog.selectors import compatible_items

    # 800G 2 x SR4 reaches 50 m over OM4 (NVIDIA structured cabling); a 50 m OM4 trunk fits,
    # 100 m of OM4 would not (no such SKU), and OS2 never does.
    items = {c.product.sku for c in compatible_items(Product.objects.get(sku="MMA4Z00-NS"))}
    assert "MFP7E10-N050" in items
    assert "MFP7E30-N050" not in items  # OS2


@pytest.mark.slow
def test_every_seed_product_page_renders(seeded, seed_data, engineer_client):
    for entry in seed_data["products"]:
        response = engineer_client.get(detail_url(entry["sku"]))
        assert response.status_code == 200, entry["sku"]
        assert "This product has no specification yet" not in response.content.decode()
