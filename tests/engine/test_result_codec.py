"""The one codec for design results (engine.result): what is encoded reads back equal,
through JSON text too (storage), and the JSON keeps the shape the API has always answered with.
Property tests over random requests on the seed catalog (hypothesis)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from catalog.snapshot import snapshot_from_seed
from engine.catalog import CatalogSnapshot
from engine.design import Design
from engine.errors import DesignError
from engine.request import RequestError, parse_request
from engine.result import (
    RESULT_SCHEMA,
    DesignResult,
    ResultFormatError,
    UnknownResultSchema,
    content_sha256,
    design_result,
    result_from_json,
    result_to_json,
    snapshot_from_json,
    snapshot_to_json,
)
from engine.serialize import design_to_dict
from engine.sizing import size
from engine.version import ENGINE_VERSION

SEED = Path(__file__).resolve().parents[2] / "catalog" / "seed" / "catalog.json"
CATALOG: CatalogSnapshot = snapshot_from_seed(json.loads(SEED.read_text(encoding="utf-8")))

# The API's keys, as documented before the codec existed (engine/serialize.py at
# 60856c5): the codec adds "schema" and the engine's version (issue 24) and nothing else.
TOP_KEYS = {
    "gpus", "gpus_per_server", "servers", "scalable_units", "racks", "fabric", "tiers",
    "switches", "links", "links_total", "cables_total", "transceivers_total", "oversubscription",
    "bisection_gbps", "bandwidth_per_gpu_gbps", "bandwidth_per_server_gbps", "growth", "power_w",
    "power_max_w", "power_per_rack_w", "power_per_row_w", "catalog_gaps", "bom", "warnings",
    "notes", "notes_text", "cost", "cost_estimated", "unpriced_lines", "label", "labels",
    "planes", "request",
}  # fmt: skip
LINK_KEYS = {
    "plane", "a", "b", "count", "speed_gbps", "media", "length_m", "cable_sku",
    "cable_description", "cables", "links_per_cable", "transceiver_sku_a", "transceiver_sku_b",
    "transceivers", "transceivers_a", "transceivers_b", "end_a", "end_b", "fibre", "runs_m",
    "run_links", "catalog_gap",
}  # fmt: skip
PLANE_KEYS = {
    "name", "style", "tiers_count", "fabric_planes", "pods", "groups", "group_servers",
    "nic_speed_gbps", "tiers", "bisection_gbps", "bandwidth_per_server_gbps",
    "bandwidth_per_gpu_gbps", "leaf_downlink_gbps", "leaf_uplink_gbps", "growth", "lengths",
    "run_distribution",
}  # fmt: skip
TIER_KEYS = {
    "role", "switch", "sku", "description", "count", "ports_per_switch", "ports_used",
    "ports_free", "downlinks", "uplinks", "downlink_speed_gbps", "uplink_speed_gbps",
    "downlink_breakout", "uplink_breakout", "oversubscription_target", "oversubscription",
    "power_w", "rack_units",
}  # fmt: skip
BOM_KEYS = {
    "sku", "description", "quantity", "power_w", "power_max_w", "rack_units", "plane", "tier",
    "category", "catalog_gap",
}  # fmt: skip
WARNING_KEYS = {"code", "message", "action", "text"}


@st.composite
def requests(draw: st.DrawFn, max_servers: int = 200) -> dict[str, object]:
    per_server = draw(st.sampled_from([4, 8]))
    rails = draw(st.sampled_from([r for r in (2, 4, 8) if r <= per_server]))
    fabric = draw(st.sampled_from(["rail", "rail-plane", "tor"]))
    data: dict[str, object] = {
        "gpus": draw(st.integers(1, max_servers)) * per_server,
        "gpus_per_server": per_server,
        "rails": rails,
        "nic_speed": draw(st.sampled_from([100, 200, 400])),
        "fabric": fabric,
        "leaf": draw(st.sampled_from(["32x400", "64x400", "64x800", "48x25"])),
        "oversubscription": draw(st.sampled_from([1, 1.5, 2, 3])),
        "servers_per_rack": draw(st.integers(1, 16)),
        "leaf_placement": draw(st.sampled_from(["tor", "mor", "eor", "network-rack"])),
        "media": draw(st.sampled_from(["auto", "copper", "optical", "mmf", "smf"])),
    }
    if draw(st.booleans()):
        data["spine"] = draw(st.sampled_from(["64x400", "64x800"]))
    if fabric == "tor":
        data["dual_homing"] = draw(st.booleans())
    if fabric == "rail-plane":
        data["rails_per_plane"] = draw(st.sampled_from([r for r in (1, 2) if rails % r == 0]))
    if draw(st.booleans()):
        data["storage"] = {"storage_nodes": draw(st.integers(2, 32))}
    return data


def _design(data: dict[str, object]) -> Design:
    try:
        return size(parse_request(data, CATALOG), CATALOG)
    except (RequestError, DesignError):
        assume(False)
        raise


SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(requests())
def test_decode_of_encode_is_the_same_result(data: dict[str, object]) -> None:
    result = design_result(_design(data))
    encoded = result_to_json(result)
    assert result_from_json(encoded) == result
    # Stored as JSON text (the database) and read back: still equal, and encodes the same.
    stored = json.loads(json.dumps(encoded))
    assert result_from_json(stored) == result
    assert result_to_json(result_from_json(stored)) == stored


@SETTINGS
@given(requests())
def test_the_json_keeps_the_apis_shape(data: dict[str, object]) -> None:
    design = _design(data)
    encoded = design_to_dict(design)  # what the API and the CLI write
    assert set(encoded) == TOP_KEYS | {"schema", "engine_version"}
    assert encoded["schema"] == RESULT_SCHEMA
    assert encoded["engine_version"] == ENGINE_VERSION
    assert encoded["switches"] == {
        (t.role if p.name == "compute" else f"{p.name}_{t.role}"): t.count
        for p in design.planes
        for t in p.tiers
    }
    assert len(encoded["links"]) == sum(len(p.links) for p in design.planes)
    for link in encoded["links"]:
        assert set(link) == LINK_KEYS
    for plane in encoded["planes"]:
        assert set(plane) == PLANE_KEYS
        for tier in plane["tiers"]:
            assert set(tier) == TIER_KEYS
    for line in encoded["bom"]:
        # A generic part carries its translatable description besides the English one.
        assert set(line) == BOM_KEYS | ({"description_text"} if line["catalog_gap"] else set())
    for warning in encoded["warnings"]:
        assert set(warning) == WARNING_KEYS
    assert encoded["links_total"] == sum(link["count"] for link in encoded["links"])
    assert encoded["catalog_gaps"] == sum(1 for line in encoded["bom"] if line["catalog_gap"])


def _one() -> dict[str, object]:
    request = {"gpus": 256, "gpus_per_server": 8, "nic_speed": 400, "fabric": "rail",
               "leaf": "64x400"}  # fmt: skip
    return result_to_json(design_result(size(parse_request(request, CATALOG), CATALOG)))


def test_an_unknown_schema_is_refused_by_name() -> None:
    with pytest.raises(UnknownResultSchema, match="schema 2"):
        result_from_json({**_one(), "schema": 2})
    with pytest.raises(UnknownResultSchema):
        result_from_json({**_one(), "schema": "1"})


def test_a_wrong_type_names_the_field() -> None:
    data = _one()
    data["links"][0]["count"] = "many"
    with pytest.raises(ResultFormatError, match=r"result\.links\[0\]\.count"):
        result_from_json(data)
    with pytest.raises(ResultFormatError, match=r"result\.gpus: missing"):
        result_from_json({k: v for k, v in _one().items() if k != "gpus"})


def test_a_row_stored_before_the_codec_still_reads() -> None:
    """Rows saved before "schema" existed, and before the engine kept maxima, link ends, fibre
    lines, cable names and texts: read with the defaults the pages used to assume."""
    data = _one()
    del data["schema"]
    for key in ("power_max_w", "power_per_row_w", "catalog_gaps", "notes_text", "label"):
        data.pop(key)
    for link in data["links"]:
        for key in ("end_a", "end_b", "fibre", "cable_description", "catalog_gap", "run_links"):
            link.pop(key)
    for line in data["bom"]:
        line.pop("power_max_w")
    for warning in data["warnings"]:
        warning.pop("text")
    result = result_from_json(data)
    assert isinstance(result, DesignResult)
    assert result.power_max_w == data["power_w"]  # no maxima: the typical figure
    assert [line.power_max_w for line in result.bom] == [line["power_w"] for line in data["bom"]]
    assert all(link.end_a is None and link.fibre == () for link in result.links)
    # Counted from the lines when the row does not say (the two inline-spec switch lines).
    assert result.catalog_gaps == sum(1 for line in data["bom"] if line["catalog_gap"]) == 2
    assert [w.message for w in result.warnings] == [w["message"] for w in data["warnings"]]
    assert all(w.message_text is None for w in result.warnings)


def test_a_result_stored_before_engine_versions_reads_as_none_and_encodes_as_it_was() -> None:
    data = _one()
    assert data["engine_version"] == ENGINE_VERSION
    del data["engine_version"]
    result = result_from_json(data)
    assert result.engine_version is None
    # Re-encoded without the key: nothing claims the running engine sized it.
    assert result_to_json(result) == data


def test_the_seed_catalog_snapshot_reads_back_whole() -> None:
    encoded = snapshot_to_json(CATALOG)
    stored = json.loads(json.dumps(encoded))
    assert snapshot_from_json(stored) == CATALOG
    # Content-addressed: the same catalog always has the same address, another one another.
    assert content_sha256(stored) == content_sha256(snapshot_to_json(CATALOG))
    cheaper = snapshot_to_json(CATALOG)
    cheaper["cables"][0]["price"] = "0.01"
    assert content_sha256(cheaper) != content_sha256(stored)
    with pytest.raises(UnknownResultSchema):
        snapshot_from_json({**stored, "schema": 99})
