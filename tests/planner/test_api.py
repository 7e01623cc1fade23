"""Designs over the REST API. Expected counts come from the DGX H100 SuperPOD reference
architecture (NVIDIA RA-11333) and first principles, as noted next to each assertion."""

import csv
import io
from decimal import Decimal

import pytest
from openpyxl import load_workbook
from rest_framework.test import APIClient

from catalog.models import Price
from catalog.selectors import default_price_list
from core.models import TokenScope
from core.services import api_token_create
from planner.models import Design
from planner.selectors import catalog_changed
from planner.services import design_create
from tests.api_contract import ApiPermissionContract
from tests.quotes.factories import CustomerFactory

pytestmark = pytest.mark.django_db

SUPERPOD_1SU = {
    "gpus": 256,
    "gpus_per_server": 8,
    "nic_speed": 400,
    "rails": 8,
    "fabric": "rail",
    "leaf": "64x400",
    "spine": "64x400",
    "oversubscription": 1,
}
SMALL = {"gpus": 64, "gpus_per_server": 8, "nic_speed": 400, "fabric": "rail", "leaf": "64x400"}


def client_for(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


class TestDesignListPermissions(ApiPermissionContract):
    list_url = "/api/v1/designs/"

    @pytest.fixture(autouse=True)
    def _catalog(self, catalog):
        pass

    def make_object(self, owner):
        return design_create(owner=owner, name="d", request_data=SMALL)

    def detail_url(self, obj):
        return f"/api/v1/designs/{obj.pk}/"


class TestDesignPreviewPermissions(ApiPermissionContract):
    list_url = "/api/v1/designs/preview/"
    list_method = "post"
    list_body = SMALL

    @pytest.fixture(autouse=True)
    def _catalog(self, catalog):
        pass

    test_someone_elses_object_is_404 = None  # previews are not stored


def test_create_sizes_and_saves_the_superpod_su(catalog, engineer):
    response = client_for(engineer).post("/api/v1/designs/", SUPERPOD_1SU, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    # RA-11333, 1 SU: 32 servers x 8 rails on 64-port switches at 1:1 = 8 leaves, 4 spines.
    assert body["result"]["switches"] == {"leaf": 8, "spine": 4}
    assert body["result"]["servers"] == 32  # 256 GPUs / 8 per server
    assert body["owner"] == "engineer"
    assert body["team"] == "Team A"
    assert response["Location"] == f"/api/v1/designs/{body['id']}/"
    assert Design.objects.get(pk=body["id"]).gpus == 256


def test_preview_saves_nothing_and_returns_the_normalised_request(catalog, engineer):
    response = client_for(engineer).post("/api/v1/designs/preview/", SMALL, format="json")
    assert response.status_code == 200
    assert response.json()["request"]["gpus"] == 64
    assert Design.objects.count() == 0


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"gpus": 0}, "gpus"),
        ({"gpus": -8}, "gpus"),
        ({"gpus": 10_000_000}, "gpus"),
        ({"oversubscription": 0.5}, "oversubscription"),
        ({"leaf": "NO-SUCH-SKU"}, "leaf"),
        # An 800G NIC cannot plug into a 400G leaf port: the leaf is what is refused.
        ({"nic_speed": 800, "leaf": "64x400"}, "leaf"),
        ({"fabric": "mesh"}, "fabric"),
        ({"gpus": "many"}, "gpus"),
        ({"media": "fibre"}, "media"),  # policies: auto, copper, optical, mmf, smf
        ({"servers_per_su": 0}, "servers_per_su"),
        ({"servers_per_su": 65}, "servers_per_su"),  # a 64-port leaf takes 64 rail ports
        # JSON booleans are not numbers (float(False) would have sized with 0 m of slack).
        ({"cable_slack_m": False}, "cable_slack_m"),
        ({"oversubscription": True}, "oversubscription"),
        ({"gpus": True}, "gpus"),
    ],
)
def test_bad_input_is_a_400_naming_the_field_and_saves_nothing(catalog, engineer, change, field):
    response = client_for(engineer).post(
        "/api/v1/designs/", {**SUPERPOD_1SU, **change}, format="json"
    )
    assert response.status_code == 400, response.content
    assert response["Content-Type"] == "application/problem+json"
    errors = response.json()["errors"]
    assert any(key == field or key.startswith(f"{field}") for key in errors), errors
    assert Design.objects.count() == 0


def test_unknown_field_is_refused(catalog, engineer):
    response = client_for(engineer).post(
        "/api/v1/designs/preview/", {**SMALL, "gpu": 8}, format="json"
    )
    assert response.status_code == 400
    assert "gpu" in response.json()["errors"]


def test_read_only_token_cannot_create(catalog, engineer):
    _token, secret = api_token_create(user=engineer, name="crm", scope=TokenScope.READ)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    assert client.get("/api/v1/designs/").status_code == 200
    assert client.post("/api/v1/designs/", SMALL, format="json").status_code == 403


def test_exports_match_the_saved_bom(catalog, engineer):
    design = design_create(owner=engineer, name="Export me", request_data=SUPERPOD_1SU)
    client = client_for(engineer)
    bom = {line["sku"]: line["quantity"] for line in design.result["bom"]}

    csv_response = client.get(f"/api/v1/designs/{design.pk}/bom.csv")
    assert csv_response.status_code == 200
    rows = list(csv.DictReader(io.StringIO(csv_response.content.decode("utf-8-sig"))))
    # The last row is the total, marked "total" where a part has its SKU and with no quantity
    # (it is no part): procurement sums the lines, or reads the total, never both.
    *parts, total = rows
    assert {row["sku"]: int(row["quantity"]) for row in parts} == bom
    assert (total["sku"], total["quantity"]) == ("total", "")
    priced = [Decimal(row["line_total"]) for row in parts if row["line_total"]]
    unpriced = len(parts) - len(priced)
    assert Decimal(total["line_total"]) == sum(priced)
    assert total["description"] == f"{unpriced} lines without a price"

    xlsx_response = client.get(f"/api/v1/designs/{design.pk}/bom.xlsx")
    sheet = load_workbook(io.BytesIO(xlsx_response.content)).active
    assert sheet["A1"].value == "Export me"
    *xlsx_parts, xlsx_total = sheet.iter_rows(min_row=3, values_only=True)
    # A generic line (catalog gap) has no SKU: an empty cell, which openpyxl reads as None.
    assert {r[0] or "": r[2] for r in xlsx_parts} == bom
    assert (xlsx_total[0], xlsx_total[2]) == ("Total", None)  # the XLSX is for people
    assert Decimal(str(xlsx_total[10])) == sum(priced)

    cabling = client.get(f"/api/v1/designs/{design.pk}/cabling.csv")
    lines = list(
        csv.DictReader(io.StringIO(b"".join(cabling.streaming_content).decode("utf-8-sig")))
    )
    # One row per cable; the engine counts them separately from links and transceivers.
    assert len(lines) == design.result["cables_total"]
    pairs = {frozenset(((r["a_device"], r["a_port"]), (r["b_device"], r["b_port"]))) for r in lines}
    assert len(pairs) == len(lines)  # no A-B / B-A duplicates


def test_list_filters_by_gpu_count(catalog, engineer):
    design_create(owner=engineer, name="small", request_data=SMALL)
    design_create(owner=engineer, name="su", request_data=SUPERPOD_1SU)
    names = [
        d["name"]
        for d in client_for(engineer).get("/api/v1/designs/?gpus_min=100").json()["results"]
    ]
    assert names == ["su"]


def test_teammate_sees_team_designs(catalog, engineer, teammate):
    design = design_create(owner=engineer, name="shared", request_data=SMALL)
    assert client_for(teammate).get(f"/api/v1/designs/{design.pk}/").status_code == 200


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en", "The 800G NIC is faster than the 400G ports of 64x400."),
        ("zh-hans", "800G 网卡比 64x400 的 400G 端口更快。"),
    ],
)
def test_engine_field_errors_come_in_the_callers_language(catalog, engineer, language, expected):
    response = client_for(engineer).post(
        "/api/v1/designs/preview/",
        {**SMALL, "nic_speed": 800, "leaf": "64x400"},
        format="json",
        HTTP_ACCEPT_LANGUAGE=language,
    )
    assert response.status_code == 400
    assert response.json()["errors"]["leaf"] == [expected]


def test_resize_shows_what_todays_catalog_changes_then_saves_a_new_version(catalog, engineer):
    client = client_for(engineer)
    created = client.post("/api/v1/designs/", SMALL, format="json")
    assert created.status_code == 201, created.content
    design = created.json()
    url = f"/api/v1/designs/{design['id']}/resize/"
    # Same catalog as at saving: nothing would change.
    same = client.get(url).json()
    assert (same["changed"], same["changes"], same["total_delta"]) == (False, [], "0.00")

    # The cable of the 64 server links (a generic 64x400 leaf, and AOC-D-D-400G-10M at
    # 6,200.00 each) gets 100.00 cheaper on the default price list: still the cheapest medium
    # that fits, so the engine picks it again and only its price changes.
    cable = next(line for line in design["result"]["bom"] if line["category"] == "cable")
    price = Price.objects.get(price_list=default_price_list(), product__sku=cable["sku"])
    price.amount -= Decimal("100.00")
    price.save()
    catalog_changed()  # what the catalog signal does after COMMIT (this test never commits)
    quantity = sum(
        line["quantity"] for line in design["result"]["bom"] if line["sku"] == cable["sku"]
    )
    assert quantity == 64  # 64 GPUs, one 400G NIC port each, one cable per port
    preview = client.get(url).json()
    (change,) = preview["changes"]  # only that part changed
    assert change["sku"] == cable["sku"]
    assert change["kind"] == "repriced"
    assert change["quantity_before"] == change["quantity_after"] == quantity
    assert Decimal(change["unit_price_before"]) - Decimal(change["unit_price_after"]) == 100
    assert Decimal(change["amount_delta"]) == -100 * 64  # -6,400.00
    assert Decimal(preview["total_delta"]) == -100 * 64
    assert Design.objects.count() == 1  # a preview saves nothing

    saved = client.post(url)
    assert saved.status_code == 201, saved.content
    new = saved.json()
    assert saved["Location"] == f"/api/v1/designs/{new['id']}/"
    assert new["copied_from"] == design["id"]
    assert Design.objects.get(pk=new["id"]).version == 2
    # The saved design keeps what it was sized with; the new version is today's.
    assert client.get(url).json()["changed"] is True
    assert client.get(f"/api/v1/designs/{new['id']}/resize/").json()["changed"] is False


def test_resize_of_another_teams_design_is_404(catalog, engineer, other_engineer):
    design = design_create(owner=other_engineer, name="theirs", request_data=SMALL)
    url = f"/api/v1/designs/{design.pk}/resize/"
    assert client_for(engineer).get(url).status_code == 404
    assert client_for(engineer).post(url).status_code == 404
    assert Design.objects.count() == 1


def test_list_filters_by_the_callers_customers_only(catalog, engineer, other_engineer):
    ours = CustomerFactory(team=engineer.membership.team)
    theirs = CustomerFactory(team=other_engineer.membership.team)
    design = design_create(owner=engineer, name="ours", request_data=SMALL, customer=ours)
    design_create(owner=engineer, name="no customer", request_data=SMALL)
    client = client_for(engineer)
    listed = client.get("/api/v1/designs/", {"customer": ours.pk}).json()["results"]
    assert [d["id"] for d in listed] == [design.pk]
    # Another team's customer is no choice (customers_visible_to decides), as on the page.
    response = client.get("/api/v1/designs/", {"customer": theirs.pk})
    assert response.status_code == 400
    assert "customer" in response.json()["errors"]
