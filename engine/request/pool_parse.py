"""The `pools` field of a request (issue 28: heterogeneous pools): other kinds of servers on the
same compute fabric, each a mapping of POOL_FIELDS read with the same checks as the request's
own GPUs and NICs, errors named `pools.N.field`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from engine.catalog import CatalogSnapshot
from engine.request.fields import _int_range
from engine.request.model import MAX_POOLS, Fabric, PoolRequest
from engine.text import Text, gettext_noop, text

if TYPE_CHECKING:
    from engine.request.parse import _Reader

POOL_FIELDS = frozenset(
    {"gpus", "gpus_per_server", "rails", "nic", "nic_speed", "servers_per_rack"}
)


def parse_pools(
    reader: _Reader, catalog: CatalogSnapshot, fabric: Fabric | None, planes: int | None
) -> tuple[PoolRequest, ...]:
    raw = reader.data.get("pools")
    if raw in (None, "", [], ()):
        return ()
    if not isinstance(raw, list | tuple) or not all(isinstance(p, Mapping) for p in raw):
        reader.fail("pools", _shape_error())
        return ()
    if len(raw) > MAX_POOLS:
        reader.fail(
            "pools",
            text(
                gettext_noop("A compute fabric serves at most %(most)s pools besides its own "
                             "servers; got %(count)s."),
                most=MAX_POOLS,
                count=len(raw),
            ),
        )  # fmt: skip
        return ()
    if fabric not in (Fabric.RAIL, Fabric.TOR, None) or (planes or 1) > 1:
        reader.fail(
            "pools",
            text(
                gettext_noop(
                    "Pools share one rail-optimized or top-of-rack fabric's spines; a rail-plane "
                    "or multi-plane fabric cannot take them."
                )
            ),
        )
        return ()
    pools = [_parse_pool(reader, catalog, index, item) for index, item in enumerate(raw)]
    return tuple(pool for pool in pools if pool is not None)


def _shape_error() -> Text:
    return text(
        gettext_noop(
            "pools must be a list of mappings, e.g. [{'gpus': 512, 'gpus_per_server': 8, "
            "'rails': 8, 'nic_speed': 200}]."
        )
    )


def _parse_pool(
    parent: _Reader, catalog: CatalogSnapshot, index: int, item: Mapping[str, object]
) -> PoolRequest | None:
    # Imported here: `parse` reads this module's field at import.
    from engine.request.parse import _parse_gpus, _parse_nic, _Reader

    reader = _Reader(item, prefix=f"pools.{index}.")
    for key in sorted(set(item) - POOL_FIELDS):
        reader.fail(
            key, text(gettext_noop("%(field)s is not a pool option."), field=f"pools.{index}.{key}")
        )
    gpus, per_server = _parse_gpus(reader)
    nic, nic_speed = _parse_nic(reader, catalog)
    rails = reader.int_("rails", per_server, *_int_range("rails"))
    per_rack = reader.int_("servers_per_rack", 4, *_int_range("servers_per_rack"))
    parent.errors.update(reader.errors)
    if reader.errors or None in (gpus, per_server, nic_speed, rails, per_rack):
        return None
    assert gpus is not None
    assert per_server is not None
    assert nic_speed is not None
    assert rails is not None
    assert per_rack is not None
    return PoolRequest(
        name=f"pool{index + 2}",
        gpus=gpus,
        gpus_per_server=per_server,
        rails=rails,
        nic_speed_gbps=nic_speed,
        nic=nic,
        servers_per_rack=per_rack,
    )
