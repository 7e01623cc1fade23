"""A JSON body's values have the JSON types the schema states (core.api.json_types): every input
serializer refuses a value of another type naming the field, the types it checks are the ones
drf-spectacular writes in the schema, and form data (all strings) is left to the fields."""

import pytest
from django.http import QueryDict
from drf_spectacular.generators import SchemaGenerator
from hypothesis import given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

import config.urls  # noqa: F401 (every API module, so every input serializer, is imported)
from core.api.json_types import MESSAGES, JsonTypes, has_json_type, json_type

# One value of each JSON type, and for each type the values of the others.
SAMPLES = {"boolean": True, "integer": 7, "number": 1.5, "string": "7", "array": [], "object": {}}


def input_serializers() -> list[type[JsonTypes]]:
    found, stack = [], list(JsonTypes.__subclasses__())
    while stack:
        cls = stack.pop()
        found.append(cls)
        stack.extend(cls.__subclasses__())
    return sorted(found, key=lambda cls: cls.__name__)


def typed_fields(cls: type[JsonTypes]):
    for name, field in cls().fields.items():
        expected = json_type(field)
        if not field.read_only and expected is not None:
            yield name, expected


def test_the_input_serializers_are_the_apis():
    names = {cls.__name__ for cls in input_serializers()}
    # Design requests, quote writes, CRM upserts, catalog writes and webhooks.
    for name in ("DesignRequestSerializer", "DesignCreateSerializer", "QuoteCreateSerializer",
                 "LineUpdateSerializer", "CustomerUpsertSerializer", "ProductSerializer",
                 "WebhookSubscriptionSerializer", "DocumentRequestSerializer"):  # fmt: skip
        assert name in names


@pytest.mark.parametrize("cls", input_serializers(), ids=lambda cls: cls.__name__)
def test_a_value_of_another_json_type_is_refused_naming_the_field(cls):
    checked = 0
    for name, expected in typed_fields(cls):
        for other, value in SAMPLES.items():
            if has_json_type(value, expected):
                continue
            serializer = cls(data={name: value})
            assert not serializer.is_valid()
            # (the fields left out are named too, when they are required: one answer for all)
            assert serializer.errors[name] == [str(MESSAGES[expected])], (name, other)
            checked += 1
    assert checked


def _resolve(schema: dict, components: dict) -> dict:
    if "$ref" in schema:
        return _resolve(components[schema["$ref"].rsplit("/", 1)[-1]], components)
    for key in ("oneOf", "allOf", "anyOf"):
        if key in schema:  # a nullable enum: the enum and NullEnum; the first names the type
            return _resolve(schema[key][0], components)
    return schema


def test_the_checked_types_are_the_schemas():
    components = SchemaGenerator().get_schema(request=None, public=True)["components"]["schemas"]
    compared = 0
    for cls in input_serializers():
        component = components.get(cls.__name__.removesuffix("Serializer"))
        if component is None:  # used as a request body only through a subclass's component
            continue
        for name, expected in typed_fields(cls):
            schema = _resolve(component["properties"][name], components)
            assert schema.get("type") == expected, (cls.__name__, name, schema)
            compared += 1
    assert compared >= 40


@settings(max_examples=200, deadline=None)
@given(
    value=st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
        max_leaves=5,
    )
)
def test_json_types_are_jsons(value):
    kinds = {kind for kind in SAMPLES if has_json_type(value, kind)}
    if value is None:
        assert not kinds
    elif isinstance(value, bool):
        assert kinds == {"boolean"}
    elif isinstance(value, int):
        assert kinds == {"integer", "number"}
    elif isinstance(value, float):
        assert kinds == {"number"}  # 1.0 too: draft 4, which OpenAPI 3.0 uses
    else:
        assert len(kinds) == 1


def test_form_data_is_left_to_the_fields():
    from planner.serializers import DesignRequestSerializer

    form = QueryDict(mutable=True)
    form.update({"gpus": "64", "gpus_per_server": "8", "dual_homing": "false"})
    assert DesignRequestSerializer(data=form).is_valid()


@pytest.mark.django_db
def test_the_api_answers_a_400_problem_naming_each_field(engineer):
    client = APIClient()
    client.force_authenticate(engineer)
    body = {"gpus": "64", "gpus_per_server": 8, "dual_homing": "yes", "rack_width_m": 0.6}
    response = client.post("/api/v1/designs/preview/", body, format="json",
                           HTTP_ACCEPT_LANGUAGE="en")  # fmt: skip
    assert response.status_code == 400
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["errors"] == {
        "gpus": ["Must be a whole number (a JSON number, not a string)."],
        "dual_homing": ["Must be true or false (a JSON boolean, not a string or a number)."],
    }
    # 64.0 is a number, not an integer, to OpenAPI 3.0's JSON Schema (draft 4).
    assert client.post("/api/v1/designs/preview/", {**body, "gpus": 64.0}, format="json",
                       HTTP_ACCEPT_LANGUAGE="en").json()["errors"]["gpus"]  # fmt: skip
    ok = client.post("/api/v1/designs/preview/", {**body, "gpus": 64, "dual_homing": False},
                     format="json")  # fmt: skip
    assert ok.status_code == 200, ok.content


@pytest.mark.django_db
def test_a_text_is_measured_as_sent(engineer):
    """Schemathesis sent `terms` of 4 spaces and the longest text: DRF trimmed, then measured,
    and took a body whose text the schema refuses (maxLength)."""
    from planner.serializers import DesignCreateSerializer

    longest = "x" * 200  # DesignCreateSerializer.name: max_length=200
    base = {"gpus": 64, "gpus_per_server": 8}
    assert DesignCreateSerializer(data={**base, "name": longest}).is_valid()
    padded = DesignCreateSerializer(data={**base, "name": "    " + longest})
    assert not padded.is_valid()
    assert list(padded.errors) == ["name"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("value", "taken"),
    [
        (3, True), ("3:1", True), ("3", True), ({"leaf": 2, "spine": 1.5}, True),
        (True, False), ([3], False), ({"leaf": "2"}, False), ({"leaf": True}, False),
        ("", False), ("3 to 1", False), ({}, True),
    ],
)  # fmt: skip
def test_oversubscription_is_a_number_a_ratio_or_one_per_tier(engineer, value, taken):
    client = APIClient()
    client.force_authenticate(engineer)
    body = {"gpus": 64, "gpus_per_server": 8, "nic_speed": 400, "oversubscription": value}
    response = client.post("/api/v1/designs/preview/", body, format="json")
    assert response.status_code == (200 if taken else 400), response.content
    if not taken:
        assert list(response.json()["errors"]) == ["oversubscription"]


def test_oversubscription_schema_names_its_three_shapes():
    schema = SchemaGenerator().get_schema(request=None, public=True)
    field = schema["components"]["schemas"]["DesignRequest"]["properties"]["oversubscription"]
    shapes = [shape["type"] for shape in field["oneOf"]]
    assert shapes == ["number", "string", "object"]
