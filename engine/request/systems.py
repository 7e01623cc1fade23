"""Rack-scale systems (NVL72-class): a server is a compute tray of an NVLink domain that spans
its rack. The presets and the rack power arithmetic the parser checks a request against; the
design's rack parts are `engine.scale_up`'s.

Every figure has its public source beside it. Where no public figure was found (an NVLink
switch tray's own draw), the request's `tray_power_w` carries it: it is each active compute
tray's share of the rack's draw, NVLink switch trays and fans included."""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum

# DGX GB200 user guide, "Rack Configuration": 18 x 1RU compute trays of 2 Grace CPUs and
# 4 Blackwell GPUs, 9 x 1RU NVLink switch trays, 2 TOR switches for management, power shelves
# (https://docs.nvidia.com/dgx/dgxgb200-user-guide/hardware.html).
NVL72_TRAYS = 18
NVL72_GPUS_PER_TRAY = 4
NVL72_NVLINK_SWITCH_TRAYS = 9
MANAGEMENT_SWITCHES_PER_RACK = 2
# NVLink 5: each GPU has 18 links, one to each of the rack's 18 NVLink switch chips, for
# 1.8 TB/s per GPU, both directions together (DGX SuperPOD GB200 RA, "Network Fabrics",
# https://docs.nvidia.com/dgx-superpod/reference-architecture-scalable-infrastructure-gb200/
# latest/network-fabrics.html).
NVLINK5_GBYTES_PER_S = 1800.0
# Same page, "Compute Trays": 4 x ConnectX-7 single-port 400G OSFP NICs on the cluster network.
GB200_NICS_PER_TRAY = 4
GB200_NIC_GBPS = 400
# GB300 NVL72: each GPU has a dedicated ConnectX-8 SuperNIC, 800G (NVIDIA Enterprise RA,
# https://docs.nvidia.com/enterprise-reference-architectures/nvl72-ai-factory/latest/
# networking-physical-topologies.html).
GB300_NIC_GBPS = 800
# BCM power shelf integration: the GB200 reference rack has 8 power shelves of 6 PSUs, each PSU
# up to 5.5 kW, so a shelf is up to 33 kW; each shelf takes 1 RU
# (https://docs.nvidia.com/base-command-manager/product-manuals/nvidia-mission-control/powershelf.md).
POWER_SHELF_W = 33_000
POWER_SHELF_UNITS = 1
# Eight shelves of 33 kW feed a rack whose budget is half of that: the shelves are redundant
# N+N, so 132 kW is what the rack may draw with one side lost (4 x 33 kW).
POWER_REDUNDANCY = 2
DEFAULT_RACK_POWER_KW = 132.0
# "each compute tray consuming up to 5400W" (FiberMall, "In-depth analysis for NVIDIA GB200",
# https://www.fibermall.com/blog/in-depth-analysis-for-nvidia-gb200.htm; third party): the
# default share of an active tray, to be replaced by the vendor's figure for the project.
DEFAULT_TRAY_POWER_W = 5_400


class Cooling(StrEnum):
    """How the rack's heat leaves: NVL72 racks are liquid-cooled (cold plates on the CPUs and
    GPUs, air for the rest: DGX GB200 user guide, "Compute Trays")."""

    LIQUID = "liquid"
    AIR = "air"


class System(StrEnum):
    GB200_NVL72 = "gb200-nvl72"
    GB300_NVL72 = "gb300-nvl72"


@dataclass(frozen=True, kw_only=True)
class SystemPreset:
    """What naming a system fills in; every value can still be set in the request."""

    name: str  # the public system name, for the BOM's stand-in lines
    gpus_per_tray: int
    nics_per_tray: int
    nic_speed_gbps: int
    trays_per_rack: int = NVL72_TRAYS
    nvlink_switch_trays: int = NVL72_NVLINK_SWITCH_TRAYS
    nvlink_gbytes_per_s: float = NVLINK5_GBYTES_PER_S


PRESETS: dict[System, SystemPreset] = {
    System.GB200_NVL72: SystemPreset(
        name="NVIDIA GB200 NVL72",
        gpus_per_tray=NVL72_GPUS_PER_TRAY,
        nics_per_tray=GB200_NICS_PER_TRAY,
        nic_speed_gbps=GB200_NIC_GBPS,
    ),
    System.GB300_NVL72: SystemPreset(
        name="NVIDIA GB300 NVL72",
        gpus_per_tray=NVL72_GPUS_PER_TRAY,
        nics_per_tray=NVL72_GPUS_PER_TRAY,  # one ConnectX-8 per GPU (the RA above)
        nic_speed_gbps=GB300_NIC_GBPS,
    ),
}


def default_nvlink_switch_trays(trays_per_rack: int) -> int:
    """One NVLink switch tray per two compute trays, as in NVL72 (9 for 18)."""
    return math.ceil(trays_per_rack * NVL72_NVLINK_SWITCH_TRAYS / NVL72_TRAYS)


def power_shelves(rack_power_w: float) -> int:
    """Power shelves of one rack: enough 33 kW shelves for its budget, twice (N+N)."""
    return POWER_REDUNDANCY * max(1, math.ceil(rack_power_w / POWER_SHELF_W))


def most_active_trays(rack_power_w: float, tray_power_w: int, fixed_w: float) -> int:
    """Active trays a rack's budget feeds beside its fixed draw (management switches)."""
    return max(0, math.floor((rack_power_w - fixed_w) / tray_power_w))
