"""The OpenAPI schema is complete and valid, and Schemathesis, generating requests from it in
process against the real application, finds no server error and no schema violation."""

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import positive_data_acceptance

from core.models import TokenScope
from core.services import api_token_create
from tests.conftest import load_seed_catalog

EXAMPLES_PER_OPERATION = 12


@pytest.fixture
def wsgi_app(db):
    from config.wsgi import application

    # As Django's test client does: a request must not close the connection that holds the
    # test's transaction.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield application
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.mark.slow
def test_api_conforms_to_its_schema(wsgi_app, engineer):
    load_seed_catalog()
    _token, secret = api_token_create(user=engineer, name="fuzz", scope=TokenScope.READ_WRITE)
    headers = {"Authorization": f"Bearer {secret}"}
    schema = schemathesis.openapi.from_wsgi("/api/v1/schema/", wsgi_app)
    failures: list[str] = []
    operations = 0
    for result in schema.get_all_operations():
        operation = result.ok()
        operations += 1

        @given(case=operation.as_strategy())
        @settings(
            max_examples=EXAMPLES_PER_OPERATION,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        def check(case):
            # Every default check except positive_data_acceptance: business rules (GPUs a
            # multiple of GPUs per server, a design that is the caller's) cannot be written in
            # JSON Schema, so a schema-valid body may rightly get a 400 naming the field.
            case.call_and_validate(headers=headers, excluded_checks=[positive_data_acceptance])

        try:
            check()
        except (Exception, BaseExceptionGroup) as exc:  # collect every failure, report all
            failures.append(f"{operation.method.upper()} {operation.path}: {exc}"[:2000])
    assert operations >= 30
    assert not failures, "\n\n".join(failures)


def test_schema_lists_every_endpoint_with_its_errors(client):
    response = client.get("/api/v1/schema/?format=json")
    assert response.status_code == 200
    paths = response.json()["paths"]
    for path in (
        "/api/v1/designs/", "/api/v1/designs/preview/", "/api/v1/designs/{id}/bom.xlsx",
        "/api/v1/products/", "/api/v1/quotes/", "/api/v1/quotes/{id}/send/",
        "/api/v1/quotes/{quote_pk}/documents/", "/api/v1/documents/{id}/download/",
        "/api/v1/customers/by-external-id/{source}/{external_id}/", "/api/v1/webhooks/",
    ):  # fmt: skip
        assert any(p.rstrip("/") == path.rstrip("/") for p in paths), path
    for path, operations in paths.items():
        for method, operation in operations.items():
            for code in ("401", "403", "429"):
                assert code in operation["responses"], (method, path, code)


def test_swagger_ui_loads_without_a_cdn(client):
    response = client.get("/api/v1/docs/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "cdn" not in html.lower()
    assert "<script>" not in html  # inline scripts would break the Content Security Policy


PROBLEM = "application/problem+json"


@pytest.mark.parametrize(
    "query", ["limit=null", "limit=-1", "limit=0", "limit=2.5", "limit=", "limit=5&limit=50"]
)
def test_a_list_refuses_a_limit_that_is_not_one_whole_number(engineer_client, query):
    # Schemathesis: every list accepted `limit=null` (DRF fell back to 25 without a word).
    response = engineer_client.get(f"/api/v1/designs/?{query}")
    assert response.status_code == 400
    assert response["Content-Type"] == PROBLEM
    assert "limit" in response.json()["errors"]


def test_a_limit_above_the_largest_page_is_cut_to_it(engineer_client, engineer):
    from planner.models import Design
    from tests.quotes.factories import DesignFactory

    for _ in range(3):
        DesignFactory(owner=engineer)
    assert Design.objects.count() == 3
    assert len(engineer_client.get("/api/v1/designs/?limit=2").json()["results"]) == 2
    # 1,000 is more than a page holds (100): the page holds all three rows, no error.
    assert len(engineer_client.get("/api/v1/designs/?limit=1000").json()["results"]) == 3


@pytest.mark.parametrize(
    ("path", "body"),
    [
        # Schemathesis's negative cases: a string field given a number, an id given a string.
        ("/api/v1/customers/by-external-id/crm/c1/", {"name_en": 0}),
        ("/api/v1/customers/by-external-id/crm/c1/", {"name_en": "Acme", "name_zh": 0}),
        ("/api/v1/customers/by-external-id/crm/c1/", {"name_en": "x" * 200 + " "}),
        ("/api/v1/opportunities/by-external-id/crm/o1/", {"customer": "{customer}", "name": 0}),
        ("/api/v1/opportunities/by-external-id/crm/o1/", {"customer": "1", "name": "Deal"}),
        ("/api/v1/opportunities/by-external-id/crm/o1/", {"customer": True, "name": "Deal"}),
    ],
)
def test_crm_upserts_refuse_a_body_that_breaks_the_schema(engineer, path, body):
    from rest_framework.test import APIClient

    from customers.models import Customer, Opportunity
    from tests.quotes.factories import CustomerFactory

    customer = CustomerFactory(team=engineer.membership.team)
    body = {k: customer.pk if v == "{customer}" else v for k, v in body.items()}
    client = APIClient()
    client.force_authenticate(engineer)
    response = client.put(path, body, format="json")
    assert response.status_code == 400, response.content
    assert response["Content-Type"] == PROBLEM
    # Nothing was saved: the one customer is the factory's, and no opportunity exists.
    assert Customer.objects.count() == 1
    assert not Opportunity.objects.exists()


def test_crm_upsert_still_takes_a_valid_body(engineer):
    from rest_framework.test import APIClient

    from tests.quotes.factories import CustomerFactory

    customer = CustomerFactory(team=engineer.membership.team)
    client = APIClient()
    client.force_authenticate(engineer)
    response = client.put(
        "/api/v1/opportunities/by-external-id/crm/o1/",
        {"customer": customer.pk, "name": "Deal"},
        format="json",
    )
    assert response.status_code == 201, response.content


def test_meaning_refuses_a_null_body_and_takes_an_empty_one(engineer):
    from rest_framework.test import APIClient

    from tests.quotes.factories import DesignFactory

    design = DesignFactory(owner=engineer)
    client = APIClient()
    client.force_authenticate(engineer)
    url = f"/api/v1/designs/{design.pk}/meaning/"
    # The body is an object (the schema's): JSON null is refused like a list.
    refused = client.post(url, data="null", content_type="application/json")
    assert refused.status_code == 400
    assert refused["Content-Type"] == PROBLEM
    # No body at all still means "no job": failures, spares and growth only.
    assert client.post(url).status_code == 200


def test_revision_responses_match_their_schema(wsgi_app, engineer):
    """GET revisions, PATCH a line, PATCH terms, PUT freight answer a revision whose
    `approved_by` and `sent_by` are null until someone approves or sends it: the schema said a
    string (Schemathesis: response violates schema on all four)."""
    from quotes import services
    from tests.quotes.factories import CustomerFactory, DesignFactory

    load_seed_catalog()
    customer = CustomerFactory(team=engineer.membership.team)
    quote = services.quote_create(
        user=engineer, design=DesignFactory(owner=engineer), customer=customer
    )
    line = quote.current_revision.lines.first()
    _token, secret = api_token_create(user=engineer, name="fuzz", scope=TokenScope.READ_WRITE)
    headers = {"Authorization": f"Bearer {secret}"}
    schema = schemathesis.openapi.from_wsgi("/api/v1/schema/", wsgi_app)
    calls = [
        ("GET", "/api/v1/quotes/{id}/revisions/", {"id": quote.pk}, None),
        ("PATCH", "/api/v1/quotes/{id}/lines/{line_id}/", {"id": quote.pk, "line_id": line.pk},
         {"quantity": 2}),
        ("PATCH", "/api/v1/quotes/{id}/terms/", {"id": quote.pk}, {"validity_days": 30}),
        ("PUT", "/api/v1/quotes/{id}/freight/", {"id": quote.pk}, {"amount": "100.00"}),
        ("GET", "/api/v1/quotes/", {}, None),
        ("GET", "/api/v1/quotes/{id}/", {"id": quote.pk}, None),
    ]  # fmt: skip
    for method, path, parameters, body in calls:
        operation = schema[path][method]
        kwargs = {"path_parameters": parameters}
        if body is not None:
            kwargs.update(body=body, media_type="application/json")
        case = operation.Case(**kwargs)
        response = case.call(headers=headers)
        assert response.status_code == 200, (method, path, response.text[:500])
        assert operation.validate_response(response) in (None, True), (method, path)
        payload = response.json()
        revision = payload[0] if isinstance(payload, list) else payload
        if "approved_by" in revision:
            assert (revision["approved_by"], revision["sent_by"]) == (None, None)


@pytest.mark.parametrize("value", ["null", "maybe", "yes", "2"])
def test_designs_refuse_a_draft_filter_that_is_not_a_boolean(engineer_client, value):
    # Schemathesis: `?is_draft=null` was read as "any" and answered every design.
    response = engineer_client.get(f"/api/v1/designs/?is_draft={value}")
    assert response.status_code == 400
    assert "is_draft" in response.json()["errors"]


def test_designs_draft_filter_takes_true_false_and_nothing(engineer_client, engineer):
    from tests.quotes.factories import DesignFactory

    DesignFactory(owner=engineer, is_draft=True)
    DesignFactory(owner=engineer, is_draft=False)
    counts = {
        query: len(engineer_client.get(f"/api/v1/designs/{query}").json()["results"])
        for query in ("?is_draft=true", "?is_draft=false", "?is_draft=1", "")
    }
    # One draft, one saved design: each filter value picks one, no parameter both.
    assert counts == {"?is_draft=true": 1, "?is_draft=false": 1, "?is_draft=1": 1, "": 2}
    # An empty value is not "no filter" in the API but a 400 naming it (core.filters).
    empty = engineer_client.get("/api/v1/designs/?is_draft=")
    assert empty.status_code == 400
    assert list(empty.json()["errors"]) == ["is_draft"]


def test_alternatives_schema_is_a_plain_list(client):
    operation = client.get("/api/v1/schema/?format=json").json()["paths"][
        "/api/v1/designs/alternatives/"
    ]["post"]
    schema = operation["responses"]["200"]["content"]["application/json"]["schema"]
    # The answer is a list of alternatives, not a page (nor does it take the list's filters).
    assert schema["type"] == "array"
    assert not any(p["name"] in ("scenario", "limit") for p in operation.get("parameters", []))
