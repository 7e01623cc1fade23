"""An empty filter value (core.filters): in the API a 400 problem naming the parameter; on the
HTML pages, whose GET forms submit every field, "no filter".

The filter parameters are read from the OpenAPI schema, so a new filter on any list endpoint is
covered without touching this file."""

import pytest
from rest_framework.test import APIClient

from customers.models import Customer
from tests.catalog.factories import VendorFactory

pytestmark = pytest.mark.django_db

PAGING = {"cursor", "limit"}  # core.pagination's own parameters, refused in their own way


def filter_parameters(client):
    paths = client.get("/api/v1/schema/?format=json").json()["paths"]
    for path, operations in paths.items():
        if "{" in path or "get" not in operations:
            continue
        for parameter in operations["get"].get("parameters", []):
            if parameter["in"] == "query" and parameter["name"] not in PAGING:
                yield path, parameter


def test_every_filter_parameter_refuses_the_empty_string_in_its_schema(client):
    """The schema is what Schemathesis and integrators read: "" must not be a value of any
    filter parameter (an enum without "", a date, an integer, a boolean, or minLength 1)."""
    seen = list(filter_parameters(client))
    assert len(seen) >= 20  # designs 9, quotes 6, products 6, opportunities 3 (the filtersets)
    for path, parameter in seen:
        schema = parameter["schema"]
        allows_empty = (
            schema.get("type") == "string"
            and "format" not in schema
            and "enum" not in schema
            and schema.get("minLength", 0) < 1
        ) or "" in schema.get("enum", [])
        assert not allows_empty, (path, parameter["name"], schema)


def test_an_empty_filter_value_is_a_400_naming_the_parameter(client, engineer):
    api = APIClient()
    api.force_authenticate(engineer)
    checked = 0
    for path, parameter in filter_parameters(client):
        name = parameter["name"]
        for empty in ("", " "):
            response = api.get(path, {name: empty})
            assert response.status_code == 400, (path, name, response.content)
            assert response["Content-Type"].startswith("application/problem+json")
            assert list(response.json()["errors"]) == [name], (path, name)
        checked += 1
    assert checked >= 20


def test_a_value_beside_an_empty_one_is_still_refused(engineer):
    api = APIClient()
    api.force_authenticate(engineer)
    response = api.get("/api/v1/designs/?scenario=hpc&created_before=")
    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["created_before"]


def test_leaving_the_parameter_out_is_no_filter(engineer):
    api = APIClient()
    api.force_authenticate(engineer)
    for path in ("/api/v1/designs/", "/api/v1/quotes/", "/api/v1/products/"):
        assert api.get(path).status_code == 200, path
    assert api.get("/api/v1/designs/", {"is_draft": "false", "q": "x"}).status_code == 200


@pytest.mark.parametrize(
    ("page", "form"),
    [
        ("/designs/", "q=&customer=&author=&scenario=&gpus_min=&gpus_max=&created_after="
         "&created_before=&is_draft="),
        ("/quotes/", "q=&status=&customer=&created_after=&created_before=&mine="),
        ("/catalog/", "q=&category=&vendor=&lifecycle=&speed=&form_factor="),
    ],
)  # fmt: skip
def test_pages_read_an_empty_field_as_no_filter(engineer_client, page, form):
    """A submitted GET form with every field left blank lists as if unfiltered."""
    response = engineer_client.get(f"{page}?{form}")
    assert response.status_code == 200
    filterset = response.context["filter"]
    assert filterset.is_valid(), filterset.errors


@pytest.mark.parametrize("value", ["0.5", "-1", str(2**63), "1e3"])
def test_a_count_filter_takes_whole_numbers_a_column_holds(engineer, value):
    """The schema says integer, 0 to 2**63 - 1 (core.filters.CountFilter)."""
    api = APIClient()
    api.force_authenticate(engineer)
    response = api.get("/api/v1/designs/", {"gpus_min": value})
    assert response.status_code == 400, value
    assert list(response.json()["errors"]) == ["gpus_min"]
    assert api.get("/api/v1/designs/", {"gpus_min": "1024"}).status_code == 200


def _a_valid_value(schema: dict) -> str:
    if "enum" in schema:
        return str(schema["enum"][0])
    kind, form = schema.get("type"), schema.get("format")
    if form == "date":
        return "2026-01-05"
    if form == "date-time":
        return "2026-01-05T00:00:00Z"
    return {"integer": "1", "number": "1", "boolean": "true"}.get(kind, "x")


def test_a_filter_given_twice_is_a_400_naming_it(client, engineer):
    """`?gpus_max=1&gpus_max=2` once filtered by the last value alone, silently (Schemathesis
    sent a parameter as a list). Each value here is one the filter accepts alone."""
    api = APIClient()
    api.force_authenticate(engineer)
    customer = Customer.objects.create(name_en="Twice Lab", team=engineer.membership.team)
    vendor = VendorFactory()
    # the filters that choose among rows of the database
    ids = {"customer": str(customer.pk), "vendor": vendor.code, "author": str(engineer.pk)}
    checked = 0
    for path, parameter in filter_parameters(client):
        name = parameter["name"]
        value = ids.get(name) or _a_valid_value(parameter["schema"])
        alone = api.get(path, {name: value}, HTTP_ACCEPT_LANGUAGE="en")
        assert alone.status_code == 200, (path, name, value, alone.content)
        twice = api.get(f"{path}?{name}={value}&{name}={value}", HTTP_ACCEPT_LANGUAGE="en")
        assert twice.status_code == 400, (path, name, twice.content)
        assert twice.json()["errors"] == {name: ["Give this filter one value; it was given 2."]}
        checked += 1
    assert checked >= 20
