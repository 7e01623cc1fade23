"""Issue 18, item 5: hostile input. Spreadsheet cells from user and catalog text are text, never
formulas; ids, path parameters, lengths, nesting and numeric ranges are checked before use (a
400 or 404 problem, never a 500); every /api/ error is problem+json; logins are throttled per
client address as well as per user; share tokens never reach the logs and share pages are
throttled per address. (Webhook targets: tests/core/test_webhooks.py.)"""

import csv
import io
import json
import logging
import zipfile
from types import SimpleNamespace

import pytest
from django.core.cache import cache
from django.test import Client
from gunicorn.glogging import SafeAtoms
from openpyxl import load_workbook
from rest_framework.test import APIClient

from core.models import TokenScope
from core.services import api_token_create
from customers.models import Customer, Opportunity
from planner.exports import files as exports
from tests.quotes.factories import CustomerFactory, DesignFactory, load_seed_subset, small_result

pytestmark = pytest.mark.django_db
PROBLEM = "application/problem+json"
FORMULA = '=HYPERLINK("http://x")'


def api(user) -> APIClient:
    client = APIClient(raise_request_exception=False)
    client.force_authenticate(user)
    return client


def bearer(user) -> APIClient:
    _token, secret = api_token_create(user=user, name="crm", scope=TokenScope.READ_WRITE)
    client = APIClient(raise_request_exception=False)
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    return client


def assert_problem(response, status: int) -> dict:
    assert response.status_code == status, (response.status_code, response.content[:500])
    assert response["Content-Type"] == PROBLEM
    body = response.json()
    assert body["status"] == status
    return body


@pytest.fixture(autouse=True)
def _fresh_counters():
    """Throttle counters live in the cache; each test counts from zero."""
    cache.clear()
    yield
    cache.clear()


# --- Spreadsheet and CSV formula injection ------------------------------------------------------


@pytest.fixture
def hostile_design(engineer):
    result = small_result()
    result["bom"][0].update(
        sku="@SUM(1+1)*cmd|' /C calc'!A0", description="=1+2", plane="+3", tier="-4"
    )
    result["bom"][1].update(description="\tTabbed", plane="\rReturn")
    result["bom"][2].update(description="a\x01b")  # a control character XLSX cannot hold
    return DesignFactory(owner=engineer, name=FORMULA, result=result)


def test_bom_xlsx_writes_user_and_catalog_text_as_text_never_a_formula(engineer, hostile_design):
    response = api(engineer).get(f"/api/v1/designs/{hostile_design.pk}/bom.xlsx")
    assert response.status_code == 200
    with zipfile.ZipFile(io.BytesIO(response.content)) as package:
        sheet_xml = package.read("xl/worksheets/sheet1.xml").decode()
    assert "<f>" not in sheet_xml
    assert "<f " not in sheet_xml
    sheet = load_workbook(io.BytesIO(response.content)).active
    assert sheet["A1"].value == FORMULA
    assert sheet["A1"].data_type == "s"
    first = list(sheet[3])
    assert first[0].value == "@SUM(1+1)*cmd|' /C calc'!A0"
    assert first[1].value == "=1+2"
    assert {cell.data_type for cell in first[:5] if cell.value is not None} <= {"s", "n"}
    assert first[0].data_type == first[1].data_type == first[3].data_type == "s"
    # Numbers stay numbers.
    assert first[2].value == 32
    assert first[2].data_type == "n"
    assert sheet["B5"].value == "ab"  # the control character is dropped, not a 500


def test_bom_csv_escapes_cells_that_would_start_a_formula(engineer, hostile_design):
    response = api(engineer).get(f"/api/v1/designs/{hostile_design.pk}/bom.csv")
    assert response.status_code == 200
    rows = list(csv.DictReader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert rows[0]["sku"] == "'@SUM(1+1)*cmd|' /C calc'!A0"
    assert rows[0]["description"] == "'=1+2"
    assert rows[0]["plane"] == "'+3"
    assert rows[0]["tier"] == "'-4"
    assert rows[1]["description"] == "'\tTabbed"
    assert rows[1]["plane"] == "'\rReturn"
    # Numbers and ordinary text are untouched.
    assert rows[0]["quantity"] == "32"
    assert rows[1]["sku"] == "MSN2700-CS2F"
    assert rows[3]["description"] == "SN2201 management"


def test_cabling_csv_escapes_text_cells_and_keeps_numbers():
    row = SimpleNamespace(
        label="=L1", a_device="+leaf", a_port="-1", a_form_factor="@QSFP", a_plug="\tx",
        b_device="spine-1", b_port="1/1", b_form_factor="OSFP", b_plug="\rplug", media="dac",
        speed_gbps=400, length_m=-3.5, cable="=cmd|' /C calc'!A0", cable_sku="@SUM(A1)",
    )  # fmt: skip
    text = "".join(exports.cabling_csv_chunks([row]))
    [parsed] = list(csv.DictReader(io.StringIO(text.lstrip("\ufeff"))))
    assert parsed["label"] == "'=L1"
    assert parsed["a_device"] == "'+leaf"
    assert parsed["a_port"] == "'-1"
    assert parsed["a_form_factor"] == "'@QSFP"
    assert parsed["a_plug"] == "'\tx"
    assert parsed["b_plug"] == "'\rplug"
    assert parsed["cable"] == "'=cmd|' /C calc'!A0"
    assert parsed["cable_sku"] == "'@SUM(A1)"
    assert parsed["b_device"] == "spine-1"
    assert parsed["speed_gbps"] == "400"
    assert parsed["length_m"] == "-3.5"  # a number, not text: left as it is


# --- No 500s: ids, path parameters, lengths, nesting, numeric ranges -----------------------------


@pytest.mark.parametrize("export", ["bom.csv", "bom.xlsx", "cabling.csv"])
@pytest.mark.parametrize("pk", ["abc", "1abc", "99999999999999999999999999"])
def test_non_numeric_or_huge_design_id_in_an_export_is_a_404_problem(engineer, export, pk):
    assert_problem(api(engineer).get(f"/api/v1/designs/{pk}/{export}"), 404)


@pytest.mark.parametrize(
    "url",
    [
        "/api/v1/customers/by-external-id/hubspot/C-1/",
        "/api/v1/opportunities/by-external-id/hubspot/D-1/",
        "/api/v1/designs/",
        "/api/v1/quotes/",
    ],
)
def test_options_is_never_a_server_error(engineer, url):
    response = api(engineer).options(url)
    assert response.status_code in (200, 405), response.content[:500]
    assert response["Content-Type"].startswith("application/")


@pytest.mark.parametrize("kind", ["customers", "opportunities"])
@pytest.mark.parametrize(
    ("source", "external_id", "field"),
    [("s" * 51, "C-1", "source"), ("hubspot", "i" * 101, "external_id")],
)
def test_crm_source_or_id_longer_than_the_column_is_a_400_field_error(
    engineer, kind, source, external_id, field
):
    customer = CustomerFactory(team=engineer.membership.team)
    body = {"name_en": "Acme"} if kind == "customers" else {"customer": customer.pk, "name": "D"}
    response = api(engineer).put(
        f"/api/v1/{kind}/by-external-id/{source}/{external_id}/", body, format="json"
    )
    problem = assert_problem(response, 400)
    assert set(problem["errors"]) == {field}
    assert not Customer.objects.exclude(pk=customer.pk).exists()
    assert not Opportunity.objects.exists()


def test_crm_source_and_id_at_their_column_lengths_are_accepted(engineer):
    response = api(engineer).put(
        f"/api/v1/customers/by-external-id/{'s' * 50}/{'i' * 100}/", {"name_en": "A"}, format="json"
    )
    assert response.status_code == 201, response.content


@pytest.mark.parametrize(
    "url",
    ["/api/v1/designs/1%00/", "/api/v1/opportunities/?external_source=hub%00spot",
     "/api/v1/designs/?name=a%00b"],
)  # fmt: skip
def test_nul_byte_in_an_api_path_or_query_is_a_400_problem(engineer, url):
    assert_problem(api(engineer).get(url), 400)


def test_nul_byte_in_a_crm_path_parameter_is_a_400_problem_and_saves_nothing(engineer):
    response = api(engineer).put(
        "/api/v1/customers/by-external-id/hub%00spot/C-1/", {"name_en": "A"}, format="json"
    )
    assert_problem(response, 400)
    assert not Customer.objects.exists()


def test_nul_byte_outside_the_api_is_a_plain_400(engineer_client):
    response = engineer_client.get("/designs/?q=%00")
    assert response.status_code == 400
    assert response["Content-Type"] != PROBLEM


def test_json_nested_a_thousand_deep_is_a_400_problem(engineer):
    body = "[" * 1000 + "]" * 1000
    response = api(engineer).post("/api/v1/designs/preview/", body, content_type="application/json")
    assert_problem(response, 400)


def test_json_deeper_than_the_limit_is_refused_and_shallower_is_parsed(engineer):
    def nested(depth: int) -> dict:
        value: object = 1
        for _ in range(depth - 1):
            value = {"leaf": value}
        return {"gpus": 64, "oversubscription": value}

    client = api(engineer)
    too_deep = client.post("/api/v1/designs/preview/", nested(33), format="json")
    assert "deep" in assert_problem(too_deep, 400)["detail"]
    # 32 levels parse; the engine then names the field it cannot read.
    shallow = client.post("/api/v1/designs/preview/", nested(32), format="json")
    problem = assert_problem(shallow, 400)
    assert "deep" not in problem["detail"]


def test_nul_character_anywhere_in_a_json_body_is_a_400_problem(engineer):
    body = json.dumps({"gpus": 64, "oversubscription": {"leaf\u0000": 1}})
    response = api(engineer).post("/api/v1/designs/preview/", body, content_type="application/json")
    assert_problem(response, 400)


@pytest.mark.parametrize("rate", ["10000000", "99999999.999999", "1e12", "100000.000001"])
def test_exchange_rate_out_of_range_is_a_400_field_error(engineer, rate):
    load_seed_subset()
    design = DesignFactory(owner=engineer)
    customer = CustomerFactory(team=engineer.membership.team)
    response = api(engineer).post(
        "/api/v1/quotes/",
        {"design": design.pk, "customer": customer.pk, "currency": "USD", "exchange_rate": rate},
        format="json",
    )
    problem = assert_problem(response, 400)
    assert set(problem["errors"]) == {"exchange_rate"}


@pytest.mark.parametrize(
    ("field", "value"),
    [("quantity", 10**12), ("override_unit_price", "1e15"), ("discount_percent", "1e4")],
)
def test_line_numbers_beyond_their_columns_are_400_field_errors(engineer, field, value):
    from quotes.services import quote_create

    load_seed_subset()
    design = DesignFactory(owner=engineer)
    customer = CustomerFactory(team=engineer.membership.team)
    quote = quote_create(user=engineer, design=design, customer=customer)
    line = quote.current_revision.lines.first()
    response = api(engineer).patch(
        f"/api/v1/quotes/{quote.pk}/lines/{line.pk}/", {field: value}, format="json"
    )
    problem = assert_problem(response, 400)
    assert set(problem["errors"]) == {field}


# --- Every /api/ error is problem+json -----------------------------------------------------------


def test_api_404_and_405_are_problem_json(engineer):
    client = api(engineer)
    assert_problem(client.get("/api/v1/no-such-thing/"), 404)
    assert_problem(client.patch("/api/v1/me/", {}, format="json"), 405)


def test_unhandled_api_error_is_a_500_problem_without_details(engineer, monkeypatch):
    from core.api import MeView

    def boom(self, request):
        raise RuntimeError("secret internal detail")

    monkeypatch.setattr(MeView, "get", boom)
    logging.getLogger("django.request").disabled = True
    try:
        response = api(engineer).get("/api/v1/me/")
    finally:
        logging.getLogger("django.request").disabled = False
    body = assert_problem(response, 500)
    assert "secret internal detail" not in response.content.decode()
    assert body["title"]


def test_django_level_400_under_the_api_is_problem_json(engineer, settings):
    # The idempotency middleware reads the body, so Django's size limit answers before DRF.
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 100
    client = bearer(engineer)
    body = json.dumps({"gpus": 64, "name": "x" * 500})
    logging.getLogger("django.security").disabled = True
    try:
        response = client.post(
            "/api/v1/designs/preview/",
            body,
            content_type="application/json",
            HTTP_IDEMPOTENCY_KEY="big-1",
        )
    finally:
        logging.getLogger("django.security").disabled = False
    assert_problem(response, 400)


def test_site_404_stays_a_page(engineer_client):
    response = engineer_client.get("/no-such-page/")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")


# --- Login throttling per client address as well as per user -------------------------------------


def login(client: Client, username: str, password: str, ip: str):
    return client.post(
        "/accounts/login/", {"username": username, "password": password}, REMOTE_ADDR=ip
    )


def test_many_usernames_from_one_address_lock_that_address_out(engineer, settings):
    settings.AXES_FAILURE_LIMIT = 5
    settings.LOGIN_IP_FAILURE_LIMIT = 8
    for n in range(7):  # password spraying: one try per username, never 5 on one
        response = login(Client(), f"someone{n}", "Winter2026!", "203.0.113.9")
        assert response.status_code == 200, n  # the form again, not locked yet
    assert login(Client(), "someone7", "Winter2026!", "203.0.113.9").status_code == 429
    # The address is now locked, even for a real user with the right password...
    locked = login(Client(), "engineer", "pw-engineer", "203.0.113.9")
    assert locked.status_code == 429
    # ...while the same user from another address logs in.
    elsewhere = login(Client(), "engineer", "pw-engineer", "198.51.100.7")
    assert elsewhere.status_code == 302


def test_one_username_is_still_locked_after_the_per_user_limit(engineer, teammate, settings):
    settings.AXES_FAILURE_LIMIT = 5
    settings.LOGIN_IP_FAILURE_LIMIT = 50
    for _ in range(4):
        assert login(Client(), "engineer", "wrong", "203.0.113.10").status_code == 200
    assert login(Client(), "engineer", "wrong", "203.0.113.10").status_code == 429
    assert login(Client(), "engineer", "pw-engineer", "203.0.113.10").status_code == 429
    # Other users from that address are not locked out by one user's failures.
    assert login(Client(), "teammate", "pw-teammate", "203.0.113.10").status_code == 302


def test_a_successful_login_does_not_reset_the_address_count(engineer, teammate, settings):
    settings.AXES_FAILURE_LIMIT = 5
    settings.LOGIN_IP_FAILURE_LIMIT = 6
    ip = "203.0.113.11"
    for n in range(3):
        login(Client(), f"sprayed{n}", "x", ip)
    assert login(Client(), "teammate", "pw-teammate", ip).status_code == 302
    for n in range(3, 6):
        login(Client(), f"sprayed{n}", "x", ip)
    assert login(Client(), "engineer", "pw-engineer", ip).status_code == 429


def test_spoofed_forwarded_for_does_not_give_a_fresh_address(engineer, settings):
    settings.AXES_FAILURE_LIMIT = 5
    settings.LOGIN_IP_FAILURE_LIMIT = 4
    for n in range(4):
        Client().post(
            "/accounts/login/",
            {"username": f"u{n}", "password": "x"},
            REMOTE_ADDR="203.0.113.12",
            HTTP_X_FORWARDED_FOR=f"10.0.0.{n}",
        )
    assert login(Client(), "engineer", "pw-engineer", "203.0.113.12").status_code == 429


# --- Share links: tokens never logged, pages throttled per address -------------------------------


@pytest.fixture
def console_log():
    """What the site's JSON console handler writes, as text."""
    handler = next(h for h in logging.getLogger().handlers if h.get_name() == "console")
    stream = io.StringIO()
    previous = handler.setStream(stream)
    yield stream
    handler.setStream(previous)


def test_share_tokens_never_reach_the_logs(client, console_log):
    token = "tok3nThatMustNeverBeLogged0123456789abcdefABCDEF"
    response = client.get(f"/s/{token}/", HTTP_REFERER=f"https://planner.example.com/s/{token}/")
    assert response.status_code == 404
    client.post(f"/s/{token}/accept/", {"name": "x"})
    # gunicorn's access log: its own logger, which does not propagate to the console handler.
    access = logging.getLogger("gunicorn.access")
    access_stream = io.StringIO()
    access_handler = logging.StreamHandler(access_stream)
    access.addHandler(access_handler)
    access.propagate = False
    try:
        access.warning(
            '%(h)s "%(r)s" %(s)s "%(f)s" %({x-forwarded-for}i)s',
            SafeAtoms(
                {"h": "1.2.3.4", "r": f"GET /s/{token}/ HTTP/1.1", "s": "404",
                 "f": f"https://planner.example.com/s/{token}/accept/"}
            ),
        )  # fmt: skip
    finally:
        access.removeHandler(access_handler)
        access.propagate = True
    assert access_stream.getvalue() == (
        '1.2.3.4 "GET /s/[redacted]/ HTTP/1.1" 404 '
        '"https://planner.example.com/s/[redacted]/accept/" -\n'
    )
    written = console_log.getvalue()
    assert "Not Found" in written  # the 404 was logged...
    assert "/s/" in written
    assert token not in written  # ...without its token
    assert "/s/[redacted]/" in written


def test_share_pages_are_throttled_per_address(client, settings):
    settings.SHARE_THROTTLE_RATE = "3/min"
    statuses = [
        client.get(f"/s/guess-{n}/", REMOTE_ADDR="203.0.113.20").status_code for n in range(4)
    ]
    assert statuses == [404, 404, 404, 429]
    refused = client.get("/s/guess-5/proposal.pdf", REMOTE_ADDR="203.0.113.20")
    assert refused.status_code == 429
    assert 0 < int(refused["Retry-After"]) <= 60
    # Another address has its own allowance.
    assert client.get("/s/guess-6/", REMOTE_ADDR="198.51.100.20").status_code == 404


def test_client_address_comes_from_forwarded_for_only_behind_trusted_proxies(settings):
    from django.test import RequestFactory

    from core.lockout import client_ip

    request = RequestFactory().get(
        "/", REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR="6.6.6.6, 203.0.113.5"
    )
    settings.NUM_PROXIES = 0
    assert client_ip(request) == "10.0.0.2"  # the header is the client's word: ignored
    settings.NUM_PROXIES = 1
    assert client_ip(request) == "203.0.113.5"  # what our one proxy saw; 6.6.6.6 is spoofable


def test_a_value_the_database_refuses_is_a_400_problem_not_a_500(
    postgres_required, engineer, monkeypatch
):
    """The safety net under the field checks: with the path check switched off, PostgreSQL
    refuses the 60-character source (SQLite would store it), and the answer is still a 400."""
    import customers.api.views

    monkeypatch.setattr(customers.api.views, "crm_key_check", lambda *args: None)
    response = api(engineer).put(
        f"/api/v1/customers/by-external-id/{'s' * 60}/C-1/", {"name_en": "A"}, format="json"
    )
    assert_problem(response, 400)
    assert not Customer.objects.exists()


@pytest.mark.parametrize(
    ("body", "lang", "expected"),
    [
        # The value expected after the last character: '{"gpus": 64,' is 12 characters, so
        # column 13; line 2 of the second body, '  "gpus": ', is 10, so column 11.
        (b'{"gpus": 64,', "en", "line 1, column 13"),
        (b'{\n  "gpus": ', "en", "line 2, column 11"),
        (b"\xff\xfe{}", "en", "UTF-8"),
        (b'{"gpus": 64,', "zh-hans", "第 1 行第 13 列"),
    ],
)
def test_broken_json_is_named_in_the_readers_language(engineer, body, lang, expected):
    """Issue 27: the decoder's own English ("Expecting value: line 1 column 1 (char 0)") reached
    Chinese readers; the answer now says where, in the reader's language."""
    response = api(engineer).post(
        "/api/v1/designs/preview/", body, content_type="application/json",
        HTTP_ACCEPT_LANGUAGE=lang,
    )  # fmt: skip
    detail = assert_problem(response, 400)["detail"]
    assert expected in detail
    assert "Expecting" not in detail
