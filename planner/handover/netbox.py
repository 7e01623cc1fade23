"""NetBox CSV bulk import: a zip of one CSV per object type, numbered in import order.

Headers are the fields of NetBox 4's bulk-import forms (`dcim/forms/bulk_import.py`:
ManufacturerImportForm, DeviceRoleImportForm, DeviceTypeImportForm, SiteImportForm,
RackImportForm, DeviceImportForm, InterfaceImportForm, CableImportForm), objects named by the
field NetBox looks them up by (a device type by its model, a rack by its name). Import the files
in their numbered order: each refers only to objects the earlier files created."""

from __future__ import annotations

import csv
import io
import re
import zipfile
from collections.abc import Iterable, Mapping

from engine.design import Design
from planner.handover.cable_ids import Cable, legs
from planner.handover.elevations import Elevations

SITE = "EZMAX cluster"
GENERIC_VENDOR = "Generic"
CUSTOMER_VENDOR = "Customer-supplied"

FILES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("01_manufacturers.csv", ("name", "slug")),
    ("02_device_roles.csv", ("name", "slug", "color")),
    ("03_device_types.csv", ("manufacturer", "model", "slug", "u_height", "is_full_depth")),
    ("04_sites.csv", ("name", "slug", "status")),
    ("05_racks.csv", ("site", "name", "status", "width", "u_height")),
    (
        "06_devices.csv",
        (
            "name",
            "role",
            "manufacturer",
            "device_type",
            "status",
            "site",
            "rack",
            "position",
            "face",
        ),
    ),
    ("07_interfaces.csv", ("device", "name", "type", "enabled")),
    (
        "08_cables.csv",
        (
            "side_a_device",
            "side_a_type",
            "side_a_name",
            "side_b_device",
            "side_b_type",
            "side_b_name",
            "type",
            "status",
            "label",
            "length",
            "length_unit",
        ),
    ),
)
ROLE_COLOURS = {"server": "4caf50", "leaf": "2196f3", "spine": "9c27b0", "core": "f44336",
                "patch_panel": "9e9e9e"}  # fmt: skip
# NetBox's interface types (dcim.choices.InterfaceTypeChoices) by cage, for the cage's speed.
INTERFACE_TYPES = {
    "QSFP-DD": "400gbase-x-qsfpdd",
    "QSFP112": "400gbase-x-qsfp112",
    "QSFP56": "200gbase-x-qsfp56",
    "QSFP28": "100gbase-x-qsfp28",
    "SFP56": "50gbase-x-sfp56",
    "SFP28": "25gbase-x-sfp28",
    "SFP+": "10gbase-x-sfpp",
}
# NetBox's cable types (dcim.choices.CableTypeChoices) by the engine's media.
CABLE_TYPES = {"dac": "dac-passive", "aec": "dac-active", "aoc": "aoc", "mmf": "mmf",
               "smf": "smf", "utp": "cat6a"}  # fmt: skip


def slug(value: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", value.lower()).strip("-")[:100] or "x"


def interface_type(form_factor: str, speed_gbps: int) -> str:
    if form_factor == "OSFP":
        return "800gbase-x-osfp" if speed_gbps > 400 else "400gbase-x-osfp"
    if form_factor == "RJ45":
        return "1000base-t" if speed_gbps <= 1 else "10gbase-t"
    return INTERFACE_TYPES.get(form_factor, "other")


def _csv(header: tuple[str, ...], rows: Iterable[Iterable[object]]) -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    for row in rows:
        writer.writerow(
            # NetBox reads the text as given; a spreadsheet opening it must not run formulas.
            ["'" + v if isinstance(v, str) and v.startswith(("=", "+", "-", "@")) else v
             for v in row]
        )  # fmt: skip
    return buffer.getvalue().encode()


def netbox_zip(
    design: Design,
    elevations: Elevations,
    cables: Iterable[Cable],
    *,
    vendors: Mapping[str, str] | None = None,
    site: str = SITE,
) -> bytes:
    """The zip: manufacturers, roles, device types, the site, its racks, devices with their rack
    positions, every cabled interface, and one cable per link (a breakout cable's legs share
    its id, suffixed /1, /2 ... as NetBox cables have one termination per side here)."""
    device_types: dict[tuple[str, str], int] = {}
    devices: list[list[object]] = []
    roles: set[str] = set()
    _racked_devices(design, elevations, vendors or {}, site, device_types, devices, roles)
    interfaces, cable_rows = _cabled(cables)
    placed = {str(row[0]) for row in devices}
    # Devices on the schedule the racks do not hold (storage nodes, management ports' owners)
    # are created unracked, so every cable's ends exist.
    for device, _port in interfaces:
        if device not in placed:
            placed.add(device)
            model = "Endpoint"
            device_types.setdefault((CUSTOMER_VENDOR, model), 1)
            roles.add("endpoint")
            devices.append(
                [device, "endpoint", CUSTOMER_VENDOR, model, "planned", site, "", "", ""]
            )
    makers = sorted({maker for maker, _model in device_types})
    contents: tuple[list[list[object]], ...] = (
        [[maker, slug(maker)] for maker in makers],
        [[role, slug(role), ROLE_COLOURS.get(role, "607d8b")] for role in sorted(roles)],
        [
            [maker, model, slug(f"{maker}-{model}"), units, "true"]
            for (maker, model), units in sorted(device_types.items())
        ],
        [[site, slug(site), "planned"]],
        [[site, rack.name, "planned", 19, rack.height_u] for rack in elevations.racks],
        devices,
        [[device, port, kind, "true"] for (device, port), kind in interfaces.items()],
        cable_rows,
    )
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for (name, header), rows in zip(FILES, contents, strict=True):
            archive.writestr(name, _csv(header, rows))
    return out.getvalue()


def _racked_devices(
    design: Design,
    elevations: Elevations,
    vendors: Mapping[str, str],
    site: str,
    device_types: dict[tuple[str, str], int],
    devices: list[list[object]],
    roles: set[str],
) -> None:
    """Adds the devices the racks hold (not their PDUs and cable managers) to `devices`, with
    their types and roles."""
    skus = {tier.switch: tier.sku for plane in design.planes for tier in plane.tiers}

    def vendor(model: str, role: str) -> str:
        if role == "server":
            return CUSTOMER_VENDOR
        sku = skus.get(model)
        return vendors.get(sku or model, GENERIC_VENDOR) if sku else GENERIC_VENDOR

    for rack in elevations.racks:
        for item in rack.items:
            if item.role in ("pdu", "cable_manager"):
                continue
            maker = vendor(item.model, item.role)
            device_types.setdefault((maker, item.model), item.units)
            roles.add(item.role)
            name = item.device
            devices.append(
                [name, item.role, maker, item.model, "planned", site, rack.name, item.u, "front"]
            )


def _cabled(cables: Iterable[Cable]) -> tuple[dict[tuple[str, str], str], list[list[object]]]:
    """Every cabled interface's type, and one cable row per leg."""
    interfaces: dict[tuple[str, str], str] = {}
    cable_rows: list[list[object]] = []
    for cable in cables:
        row = cable.row
        parts = legs(row)
        for k, (a_device, a_port, b_device, b_port) in enumerate(parts):
            interfaces.setdefault(
                (a_device, a_port), interface_type(row.a_form_factor, row.speed_gbps)
            )
            interfaces.setdefault(
                (b_device, b_port), interface_type(row.b_form_factor, row.speed_gbps)
            )
            label = cable.id if len(parts) == 1 else f"{cable.id}/{k + 1}"
            cable_rows.append(
                [a_device, "dcim.interface", a_port, b_device, "dcim.interface", b_port,
                 CABLE_TYPES.get(row.media.value, ""), "planned", label, row.length_m, "m"]
            )  # fmt: skip
    return interfaces, cable_rows


__all__ = ["FILES", "interface_type", "netbox_zip", "slug"]
