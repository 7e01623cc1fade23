"""The server pools of a design (engine.pools) as the design page and the proposal list them."""

from __future__ import annotations

from dataclasses import dataclass

from core.vocabulary import plane_label
from engine.result import DesignResult


@dataclass(frozen=True)
class PoolRow:
    label: str
    gpus: int
    servers: int
    gpus_per_server: int
    nics: int
    nic_speed_gbps: int
    racks: int


def pool_rows(result: DesignResult) -> list[PoolRow]:
    """Each kind of server on the compute fabric (engine.pools), the first one first; empty
    for a fabric of one kind."""
    if not result.pools:
        return []
    request = result.request
    first = PoolRow(
        label=plane_label("compute"),
        gpus=result.gpus,
        servers=result.servers,
        gpus_per_server=result.gpus_per_server,
        nics=int(request.get("rails") or 0),
        nic_speed_gbps=int(request.get("nic_speed") or 0),
        racks=result.racks,
    )
    return [first] + [
        PoolRow(
            label=plane_label(pool.name),
            gpus=pool.gpus,
            servers=pool.servers,
            gpus_per_server=pool.gpus_per_server,
            nics=pool.rails,
            nic_speed_gbps=pool.nic_speed_gbps,
            racks=pool.racks,
        )
        for pool in result.pools
    ]
