"""The cabling schedule as JSON, with each cable's id and both ends' racks, for other tools.

Streamed in pieces: a design's schedule may hold a million cables. The document is one object:
`{"schema": 1, "design": {...}, "cables": [ {...}, ... ]}`."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping

from planner.handover.cable_ids import Cable

SCHEMA = 1


def cable_dict(cable: Cable) -> dict[str, object]:
    row = cable.row
    return {
        "id": cable.id,
        "label": row.label,
        "plane": row.plane,
        "a": {"rack": cable.a_rack, "device": row.a_device, "port": row.a_port,
              "form_factor": row.a_form_factor, "plug": row.a_plug},
        "b": {"rack": cable.b_rack, "device": row.b_device, "port": row.b_port,
              "form_factor": row.b_form_factor, "plug": row.b_plug},
        "media": row.media.value,
        "speed_gbps": row.speed_gbps,
        "links": row.links,
        "length_m": row.length_m,
        "cable": row.cable,
        "catalog_gap": not row.cable_sku,
    }  # fmt: skip


def schedule_json_chunks(cables: Iterable[Cable], *, design: Mapping[str, object]) -> Iterator[str]:
    yield f'{{"schema": {SCHEMA}, "design": {json.dumps(dict(design))}, "cables": ['
    separator = "\n"
    for cable in cables:
        yield separator + json.dumps(cable_dict(cable), ensure_ascii=False)
        separator = ",\n"
    yield "\n]}\n"


__all__ = ["SCHEMA", "cable_dict", "schedule_json_chunks"]
