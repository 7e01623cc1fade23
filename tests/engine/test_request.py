"""Request validation: one clear sentence per bad field; round trip through to_dict."""

from __future__ import annotations

import pytest

from engine.request import RequestError, parse_request, to_dict
from tests.engine.catalogs import CATALOG


def _error(**fields: object) -> RequestError:
    with pytest.raises(RequestError) as info:
        parse_request(fields, CATALOG)
    return info.value


@pytest.mark.parametrize("gpus", [0, -8, 10_000_000])
def test_gpu_bounds(gpus: int) -> None:
    exc = _error(gpus=gpus, leaf="64x400")
    assert "gpus" in exc.errors
    assert "1 and 1,000,000" in exc.errors["gpus"]
    assert "\n" not in str(exc)


def test_gpus_must_fill_whole_servers() -> None:
    exc = _error(gpus=260, gpus_per_server=8, leaf="64x400")
    assert "260" in exc.errors["gpus"]
    assert "8" in exc.errors["gpus"]
    assert "256" in exc.errors["gpus"]  # suggests the neighbours


def test_nic_faster_than_switch() -> None:
    exc = _error(gpus=256, nic_speed=800, leaf="64x400")
    # One sentence, shown next to the leaf field (and after "leaf: " on the CLI).
    assert exc.errors["leaf"] == "The 800G NIC is faster than the 400G ports of 64x400."


def test_breakout_the_switch_cannot_do() -> None:
    # A 25G SFP28 port cannot run 100G, and a 64x100 inline switch has no 400G mode.
    exc = _error(gpus=64, nic_speed=10, leaf="32x100")
    assert "cannot run its ports at 10G" in exc.errors["leaf"]


def test_unknown_sku_and_bad_oversubscription() -> None:
    exc = _error(gpus=256, leaf="NOPE-9000", nic="NOPE-NIC", oversubscription=0.5)
    assert set(exc.errors) == {"leaf", "nic", "oversubscription"}
    assert "NOPE-9000" in exc.errors["leaf"]
    line = str(exc)
    assert "leaf" in line
    assert "nic" in line
    assert "oversubscription" in line


def test_unknown_field() -> None:
    exc = _error(gpus=256, leaf="64x400", spline="64x400")
    assert "spline" in exc.errors


def test_oversubscription_forms() -> None:
    by_number = parse_request({"gpus": 256, "leaf": "64x400", "oversubscription": 3}, CATALOG)
    by_ratio = parse_request({"gpus": 256, "leaf": "64x400", "oversubscription": "3:1"}, CATALOG)
    by_tier = parse_request(
        {"gpus": 256, "leaf": "64x400", "oversubscription": {"leaf": 3, "spine": 1}}, CATALOG
    )
    assert by_number.oversubscription == by_ratio.oversubscription == by_tier.oversubscription


def test_defaults() -> None:
    request = parse_request({"gpus": 1024, "leaf": "64x400"}, CATALOG)
    assert request.gpus_per_server == 8
    assert request.rails == 8  # default = gpus_per_server
    assert request.nic_speed_gbps == 400
    assert request.fabric is not None
    assert request.fabric.value == "rail"
    assert request.layout.rack_width_m == 0.6
    assert request.open_choices == ()
    assert parse_request({"gpus": 1024}, CATALOG).open_choices == (
        "fabric",
        "leaf",
        "oversubscription",
    )


def test_nic_sku_sets_speed() -> None:
    request = parse_request({"gpus": 64, "nic": "NETI710-4CP", "rails": 4}, CATALOG)
    assert request.nic_speed_gbps == 10
    exc = _error(gpus=64, nic="NETI710-4CP", nic_speed=25)
    assert "10G" in exc.errors["nic_speed"]


def test_dual_homing_only_for_tor() -> None:
    exc = _error(gpus=64, leaf="64x400", fabric="rail", dual_homing=True)
    assert "tor" in exc.errors["dual_homing"]


def test_round_trip_with_planes() -> None:
    data = {
        "gpus": 1024,
        "leaf": "SW-64x400",
        "spine": "64x800",
        "fabric": "rail",
        "oversubscription": {"leaf": 2, "spine": 1},
        "media": "optical",
        "servers_per_rack": 8,
        "max_rack_power_w": 20000,
        "storage": {"nic_speed": 200, "ports": 2, "storage_nodes": 12},
        "frontend": {"nic_speed": 100},
        "oob": {},
    }
    request = parse_request(data, CATALOG)
    again = parse_request(to_dict(request), CATALOG)
    assert again == request
    assert to_dict(again) == to_dict(request)


def test_plane_errors_are_prefixed() -> None:
    exc = _error(gpus=64, leaf="64x400", storage={"nic_speed": 3, "ports": 0})
    assert "storage.nic_speed" in exc.errors
    assert "storage.ports" in exc.errors


@pytest.mark.parametrize("written", ["1e3", "1E3", "nan", "inf", "-inf", "1,00", "0x40"])
def test_numbers_only_as_people_write_them(written: str) -> None:
    # Issue 27: "1e3" was taken (and echoed as "1000.0"); "nan" crashed inside int().
    exc = _error(gpus=written, leaf="64x400")
    assert exc.errors["gpus"] == f"gpus must be a whole number, not {written!r}."


@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_json_numbers_that_are_no_numbers_are_refused(value: float) -> None:
    exc = _error(gpus=64, leaf="64x400", oversubscription=value)
    assert "oversubscription" in exc.errors


@pytest.mark.parametrize("written", ["1,024", " 1024 ", "1024", "1_024", "+1024", "1024.0"])
def test_grouped_and_plain_digits_are_read(written: str) -> None:
    assert parse_request({"gpus": written, "leaf": "64x400"}, CATALOG).gpus == 1024
