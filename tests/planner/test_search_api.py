"""Alternatives over the API (issue 13, item 7) and the search fields' errors (tolerance below
0, a plane count that does not divide the ports): a 400 naming the field."""

import pytest
from rest_framework.test import APIClient

from tests.conftest import load_seed_catalog

pytestmark = pytest.mark.django_db


@pytest.fixture
def api(engineer) -> APIClient:
    load_seed_catalog()
    client = APIClient()
    client.force_authenticate(engineer)
    return client


def test_alternatives_are_labelled_priced_and_keep_the_fixed_switch(api):
    request = {"gpus": 1024, "nic_speed": 400, "fabric": "rail", "leaf": "MSN5600-VS2FC",
               "oversubscription": 1}  # fmt: skip
    response = api.post("/api/v1/designs/alternatives/", request, format="json")
    assert response.status_code == 200, response.content
    rows = response.json()
    assert 1 <= len(rows) <= 3
    assert rows[0]["label"] == "lowest_cost"
    for row in rows:
        assert row["label"] in {"lowest_cost", "most_resilient", "most_growth"}
        assert row["cost_per_gpu"] is not None  # the SN5600 and its parts carry list prices
        assert row["tradeoffs"]
        assert row["design"]["request"]["leaf"] == "MSN5600-VS2FC"  # kept, never swapped
        assert all(ratio <= 1 for ratio in row["design"]["oversubscription"].values())
    # The lowest-cost label is the cheapest of the fully priced; a design with parts still to
    # be priced ranks after them whatever it shows, and says so.
    priced = [float(row["cost_per_gpu"]) for row in rows if not row["unpriced_lines"]]
    assert not rows[0]["unpriced_lines"]
    assert float(rows[0]["cost_per_gpu"]) == min(priced)
    for row in rows:
        if row["unpriced_lines"]:
            assert any("no price yet" in note for note in row["tradeoffs"])


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"oversubscription_tolerance": -0.1}, "oversubscription_tolerance"),
        ({"rails": 16, "planes": 3}, "planes"),
        ({"build": "someday"}, "build"),
        ({"servers_per_su": 0}, "servers_per_su"),
    ],
)
def test_bad_search_fields_are_400_naming_the_field(api, fields, field):
    body = {"gpus": 1024, "nic_speed": 400, "leaf": "64x400", **fields}
    for url in ("/api/v1/designs/preview/", "/api/v1/designs/alternatives/"):
        response = api.post(url, body, format="json")
        assert response.status_code == 400, (url, response.content)
        assert field in response.content.decode()
