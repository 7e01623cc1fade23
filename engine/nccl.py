"""NCCL's own cost model: which algorithm and protocol NCCL picks for a collective of a given
size, and how long it takes, as a latency term plus a bandwidth term.

The structure follows NCCL's tuner, src/graph/tuning.cc in github.com/NVIDIA/nccl (read at
commit 5067397c2676d5aed50042fc39e5c8ee96eb0027, June 2026; line numbers below are that
file's): for every (algorithm, protocol) it keeps a latency and a bus bandwidth
(`ncclTopoTuneModel`, lines 243-437) and picks the pair with the least
`latency x calls + bytes / bandwidth` (`ncclTopoGetAlgoTime`, lines 618-643). The latency
constants are NCCL's, quoted beside each table. NCCL's bandwidths come from the topology it
detects at run time; here they come from the design (NIC line rate per GPU, members of the
group per server, the fabric's oversubscription), each link class at an efficiency calibrated
to published nccl-tests results (CALIBRATION below, each source beside its figure), and the
spread of those fits is the range every estimate carries.

Times are in microseconds inside this module (as NCCL's), seconds in `Choice`."""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum


class Algo(StrEnum):
    RING = "ring"
    TREE = "tree"
    COLLNET_DIRECT = "collnet_direct"
    COLLNET_CHAIN = "collnet_chain"
    NVLS = "nvls"
    NVLS_TREE = "nvls_tree"
    PAT = "pat"


class Proto(StrEnum):
    LL = "LL"
    LL128 = "LL128"
    SIMPLE = "Simple"


class Coll(StrEnum):
    ALL_REDUCE = "allreduce"
    REDUCE_SCATTER = "reduce_scatter"
    ALL_GATHER = "all_gather"


_P = (Proto.LL, Proto.LL128, Proto.SIMPLE)

# tuning.cc lines 149-154, baseLatencies (us), per protocol LL / LL128 / Simple.
BASE_LATENCY_US: dict[Algo, tuple[float, float, float]] = {
    Algo.TREE: (6.8, 14.0, 8.4),
    Algo.RING: (6.6, 14.0, 8.4),
    Algo.COLLNET_DIRECT: (0.0, 0.0, 0.0),
    Algo.COLLNET_CHAIN: (0.0, 0.0, 0.0),
    Algo.NVLS: (0.0, 0.0, 0.0),
    Algo.NVLS_TREE: (0.0, 0.0, 0.0),
    Algo.PAT: (8.0, 8.0, 8.0),
}
# tuning.cc lines 156-169, hwLatencies (us) of one hop over NVLink, per protocol.
NVLINK_LATENCY_US: dict[Algo, tuple[float, float, float]] = {
    Algo.TREE: (0.6, 1.25, 4.0),
    Algo.RING: (0.6, 1.9, 3.4),
    Algo.COLLNET_DIRECT: (0.0, 0.0, 3.7),
    Algo.COLLNET_CHAIN: (0.0, 0.0, 2.8),
    Algo.NVLS: (0.0, 0.0, 25.0),
    Algo.NVLS_TREE: (0.0, 0.0, 25.0),
    Algo.PAT: (0.0, 0.0, 4.0),
}
# tuning.cc lines 170-176, hwLatencies (us) of one hop over the network, per protocol.
NET_LATENCY_US: dict[Algo, tuple[float, float, float]] = {
    Algo.TREE: (5.0, 8.5, 14.0),
    Algo.RING: (2.7, 4.0, 14.0),
    Algo.COLLNET_DIRECT: (0.0, 0.0, 31.0),
    Algo.COLLNET_CHAIN: (0.0, 0.0, 30.0),
    Algo.NVLS: (0.0, 0.0, 18.0),
    Algo.NVLS_TREE: (0.0, 0.0, 20.9),
    Algo.PAT: (0.0, 0.0, 14.0),
}
# tuning.cc lines 228-233: a network post costs 1 us on Intel hosts, three times that with the
# Simple protocol (line 406), and a ring can go no faster per step.
NET_OVERHEAD_US = 1.0
# tuning.cc lines 637-640: a multi-node Simple ring AllReduce whose chunks are past 64 B per
# channel and rank pays 1.4 x its latency on sm80 and later ("plateau effect of ring").
RING_PLATEAU = 1.4
# tuning.cc lines 178-183, llMaxBws (GB/s): the LL protocol's ceiling on Hopper inside one node,
# and on Intel hosts across two nodes or more (the row NCCL uses for multi-node LL).
LL_MAX_BW = {"hopper": 141.0, "blackwell": 2 * 141.0, "net2": 39.0, "net4": 20.4}
# tuning.cc lines 607-612, treeCorrectionFactor: a tree's bandwidth at 64 B x 2^i, per protocol.
TREE_CORRECTION: dict[Proto, tuple[float, ...]] = {
    Proto.LL: (1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9,
               1.0, 1.0, 1.0, 1.0, 1.0),
    Proto.LL128: (1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9,
                  .9, .9, .9, 1.0, 1.0, 1.0),
    Proto.SIMPLE: (.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7,
                   .7, .8, .9, .9, .9),
}  # fmt: skip
# tuning.cc lines 139-144, nvlsEfficiency: NVLink SHARP's share of NVLink per generation.
NVLS_EFFICIENCY = {"hopper": 0.85, "blackwell": 0.74}
# src/graph/topo.h lines 22 and 24 (same commit): NCCL's GB/s per NVLink link, SM90 and SM100;
# eighteen links per GPU on H100 and B200/GB200 (NVIDIA H100 and GB200 datasheets).
NVLINK_GBYTES_PER_S = {"hopper": 20.6 * 18, "blackwell": 40.1 * 18}

# The calibrated efficiencies of each link class (fitted to CALIBRATION below):
# - a NIC carries 0.95 of its line rate as nccl-tests bus bandwidth (NCCL maintainers:
#   46-48 GB/s per 400G NIC, github.com/NVIDIA/nccl-tests/issues/290; 24 GB/s per 200G NIC,
#   github.com/NVIDIA/nccl-tests/issues/119);
NET_EFFICIENCY = 0.95
# - NVLink SHARP inside a node reaches 0.805 of NCCL's own NVLS model (NVLink x nvlsEfficiency
#   x 2 pipelined operations, tuning.cc lines 311-317): fitted to H100's 476 GB/s
#   (nccl-tests/issues/290), checked against GB200 NVL72's 834.57 GB/s (CoreWeave,
#   github.com/coreweave/nccl-tests/pull/43);
NVLS_CALIBRATION = 0.805
# - a ring over NVLink alone reaches NCCL's NVLink figure (topo.h) as it is. Many racks need
#   no factor of their own: the tree's latency, growing with log2 of the nodes, and the loss of
#   the two-node tree's doubling bring 248 servers to the published 350 GB/s (CALIBRATION).
# NCCL scales a tree AllReduce's bandwidth by 0.92 (tuning.cc line 331) and LL by 1/3.8 (line
# 332), a ring's LL by 0.5 and its LL128 by 0.92 (lines 328-329), a tree's LL128 by 120/128
# across nodes (line 335); CollNet Direct on sm90 by 0.85 (line 356).
TREE_BW = 0.92
PROTO_RING = {Proto.LL: 0.5, Proto.LL128: 0.92, Proto.SIMPLE: 1.0}
PROTO_TREE = {Proto.LL: 1 / 3.8, Proto.LL128: 120 / 128, Proto.SIMPLE: 1.0}
COLLNET_BW = 0.85


@dataclass(frozen=True, kw_only=True)
class Platform:
    """What NCCL sees of the hardware: the GPU generation, GPUs sharing one NVLink domain (8 in
    an HGX server, 72 in a GB200 NVL72 rack), whether an NVSwitch joins them (NVLS), and
    whether the network reduces in the switches (SHARP, NCCL's CollNet)."""

    generation: str = "hopper"  # "hopper" or "blackwell"
    nvswitch: bool = True
    sharp: bool = False


@dataclass(frozen=True, kw_only=True)
class Group:
    """One communicator: its ranks, the nodes (NVLink domains) they span, and the bus
    bandwidth the network gives one rank (the members in a node times each one's NIC share,
    efficiency and oversubscription applied; 0 inside a node)."""

    ranks: int
    nodes: int
    net_bus_gbytes_per_s: float = 0.0

    @property
    def per_node(self) -> int:
        return max(1, self.ranks // max(1, self.nodes))


@dataclass(frozen=True, kw_only=True)
class Choice:
    algorithm: str
    protocol: str
    latency_us: float  # one call's
    bus_gbytes_per_s: float  # as nccl-tests reports it (the ring's bus factor)
    seconds: float  # all calls
    calls: int
    low_seconds: float
    high_seconds: float


def _log2i(n: int) -> int:
    return max(0, n.bit_length() - 1)


def _nvls_bus(platform: Platform) -> float:
    """NVLink SHARP's AllReduce bus bandwidth inside a domain (tuning.cc lines 311-317, with
    NCCL's (nChannels - 1) / nChannels at 16 channels, times the calibration)."""
    g = platform.generation
    return NVLINK_GBYTES_PER_S[g] * NVLS_EFFICIENCY[g] * 2 * 15 / 16 * NVLS_CALIBRATION


def _link_bus(coll: Coll, algo: Algo, group: Group, platform: Platform) -> float:
    """The Simple protocol's bus bandwidth of `algo` (nccl-tests' definition: the ring's bus
    factor applied to every algorithm, so times compare); 0 when NCCL would not run it."""
    nodes = group.nodes
    nvlink = NVLINK_GBYTES_PER_S[platform.generation]
    net = group.net_bus_gbytes_per_s
    if algo == Algo.RING:
        return nvlink if nodes == 1 else min(nvlink, net)
    if algo == Algo.TREE:
        if coll != Coll.ALL_REDUCE or nodes == 1:
            return 0.0
        # Line 304: up to two nodes NCCL rates every algorithm at the intra-node bandwidth; a
        # two-node tree carries each byte once each way over the network, twice a ring's rate.
        return min(nvlink, net * (2 if nodes == 2 else 1)) * TREE_BW
    if algo == Algo.PAT:
        ok = coll != Coll.ALL_REDUCE and group.per_node == 1 and nodes > 1
        return net * 0.75 if ok else 0.0  # tuning.cc line 339
    if algo in (Algo.NVLS, Algo.NVLS_TREE):
        if not platform.nvswitch or group.per_node < 2:
            return 0.0
        nvls = _nvls_bus(platform)
        if coll != Coll.ALL_REDUCE:
            # tuning.cc lines 314-316 and 342-366: (ppn-1)/ppn of NVLS, inside one node only
            # unless the network reduces too.
            return nvls / 2 * (group.per_node - 1) / group.per_node if nodes == 1 else 0.0
        if algo == Algo.NVLS:
            if nodes == 1:
                return nvls
            # NVLS across nodes needs CollNet (line 523): the switches reduce, so the NIC
            # carries each byte once where a ring carries it 2(n-1)/n times.
            return min(nvls, net * 2 * (1 - 1 / group.ranks)) if platform.sharp else 0.0
        if nodes == 1:
            return 0.0  # line 520: no NVLS tree on one node
        # Line 319: two nodes' NVLS tree reaches twice the network's bandwidth.
        return min(nvls, net * (2 if nodes <= 2 else 1))
    # CollNet (SHARP): AllReduce only here, each byte once over the NIC (lines 351-358).
    if not platform.sharp or coll != Coll.ALL_REDUCE or nodes == 1:
        return 0.0
    if algo == Algo.COLLNET_DIRECT and not platform.nvswitch:
        return 0.0
    return min(nvlink, net * 2 * (1 - 1 / group.ranks)) * COLLNET_BW


def _proto_bus(coll: Coll, algo: Algo, proto: Proto, group: Group, platform: Platform) -> float:
    bus = _link_bus(coll, algo, group, platform)
    if algo in (Algo.NVLS, Algo.NVLS_TREE, Algo.COLLNET_DIRECT, Algo.COLLNET_CHAIN, Algo.PAT):
        return bus if proto == Proto.SIMPLE else 0.0  # lines 301, 340-341, 352
    if algo == Algo.RING:
        bus *= PROTO_RING[proto]
    else:
        bus *= PROTO_TREE[proto] if group.nodes > 1 or proto != Proto.LL128 else 7 / 9
    if proto == Proto.LL:
        ceiling = (
            LL_MAX_BW[platform.generation] if group.nodes == 1
            else LL_MAX_BW["net2" if group.nodes <= 2 else "net4"]
        )  # fmt: skip
        bus = min(bus, ceiling)
    return bus


def _latency(coll: Coll, algo: Algo, proto: Proto, group: Group) -> float:
    """One call's latency in us (tuning.cc lines 384-431)."""
    p = _P.index(proto)
    n, nodes, ppn = group.ranks, group.nodes, group.per_node
    base = BASE_LATENCY_US[algo][p]
    intra = NVLINK_LATENCY_US[algo][p]
    # With one rank per node the network latency is the tree's (line 387).
    inter = NET_LATENCY_US[Algo.TREE if ppn == 1 else algo][p]
    if algo == Algo.RING:
        steps = 2 * (n - 1) if coll == Coll.ALL_REDUCE else n - 1
        inter_steps = 0 if nodes == 1 else (2 if coll == Coll.ALL_REDUCE else 1) * (nodes - 1)
        if nodes > 1:
            intra = max(intra, NET_OVERHEAD_US * (3 if proto == Proto.SIMPLE else 1))
        return base + (steps - inter_steps) * intra + inter_steps * inter
    if algo == Algo.TREE:
        return base + 2 * ((ppn - 1) * intra + _log2i(nodes) * inter)
    if algo == Algo.COLLNET_DIRECT:
        return base + 2 * (min(1, ppn - 1) * intra + (ppn - 1) * 0.4) + inter
    if algo == Algo.COLLNET_CHAIN:
        return base + 2 * (ppn - 1) * intra + inter
    if algo == Algo.NVLS:
        return intra + (inter if nodes > 1 else 0.0)
    if algo == Algo.NVLS_TREE:
        return base + intra + 2 * _log2i(nodes) * inter
    return base + _log2i(nodes) * inter / 3.5 + n * 2.8  # PAT


def _factor(coll: Coll, ranks: int) -> float:
    """nccl-tests' bus factor (doc/PERFORMANCE.md): bytes x factor / bus bandwidth = time."""
    ring = (ranks - 1) / ranks
    return 2 * ring if coll == Coll.ALL_REDUCE else ring


def call_us(
    coll: Coll, algo: Algo, proto: Proto, nbytes: float, group: Group, platform: Platform
) -> float | None:
    """One call of `nbytes` (the whole buffer, as nccl-tests' size column), in us; None when
    NCCL would not run this pair."""
    bus = _proto_bus(coll, algo, proto, group, platform)
    if bus <= 0 or group.ranks < 2:
        return None
    lat = _latency(coll, algo, proto, group)
    size_index = _log2i(int(nbytes) >> 6)
    if algo == Algo.TREE and 0 <= size_index < 23 and int(nbytes) >> 6:
        bus *= TREE_CORRECTION[proto][size_index]
    if (
        algo == Algo.RING and proto == Proto.SIMPLE and group.nodes > 1
        and coll == Coll.ALL_REDUCE and nbytes / (16 * group.ranks) >= 64
    ):  # fmt: skip
        lat *= RING_PLATEAU
    return lat + nbytes * _factor(coll, group.ranks) / (bus * 1e3)


def candidates(
    coll: Coll, nbytes: float, group: Group, platform: Platform
) -> dict[tuple[Algo, Proto], float]:
    """Every (algorithm, protocol) NCCL would consider, with one call's time in us."""
    out: dict[tuple[Algo, Proto], float] = {}
    for algo in Algo:
        for proto in Proto:
            us = call_us(coll, algo, proto, nbytes, group, platform)
            if us is not None:
                out[(algo, proto)] = us
    return out


def choose(
    coll: Coll, nbytes: float, group: Group, platform: Platform, *, calls: int = 1
) -> Choice:
    """NCCL's pick for `calls` calls of `nbytes` each: the least time (tuning.cc's
    `ncclTopoGetAlgoTime`). Every call pays its latency: a framework's buckets are separate
    calls, not one aggregated launch. The range is the calibration's error."""
    times = candidates(coll, nbytes, group, platform)
    if not times:
        raise ValueError("no algorithm runs a group of fewer than two ranks")
    (algo, proto), us = min(times.items(), key=lambda item: item[1])
    lat = _latency(coll, algo, proto, group)
    bus = _proto_bus(coll, algo, proto, group, platform)
    seconds = us * calls / 1e6
    error = CALIBRATION_ERROR
    return Choice(
        algorithm=algo.value, protocol=proto.value, latency_us=lat,
        bus_gbytes_per_s=bus, seconds=seconds, calls=calls,
        low_seconds=seconds * (1 - error), high_seconds=seconds * (1 + error),
    )  # fmt: skip


@dataclass(frozen=True, kw_only=True)
class Measured:
    """A published nccl-tests AllReduce bus bandwidth at its largest size."""

    source: str
    platform: Platform
    group: Group
    gbytes_per_s: float
    nbytes: float = 8 * 2**30


def _net(nics_gbps: float, per_node: int) -> float:
    return nics_gbps / 8 * NET_EFFICIENCY * per_node


H100 = Platform(generation="hopper")
GB200 = Platform(generation="blackwell")
CALIBRATION: tuple[Measured, ...] = (
    Measured(
        source="NCCL maintainer (AddyLaddy), github.com/NVIDIA/nccl-tests/issues/290: one H100 "
        "server with NVLink SHARP, 476 GB/s",
        platform=H100,
        group=Group(ranks=8, nodes=1),
        gbytes_per_s=476.0,
    ),
    Measured(
        source="CoreWeave, github.com/coreweave/nccl-tests/pull/43: one GB200 NVL72 rack, "
        "72 GPUs, 834.57 GB/s at 8 GiB",
        platform=GB200,
        group=Group(ranks=72, nodes=1),
        gbytes_per_s=834.57,
    ),
    Measured(
        source="NCCL maintainer (sjeaugey), github.com/NVIDIA/nccl-tests/issues/119: 24 GB/s "
        "per 200G NIC, one GPU per node",
        platform=H100,
        group=Group(ranks=4, nodes=4, net_bus_gbytes_per_s=_net(200, 1)),
        gbytes_per_s=24.0,
    ),
    Measured(
        source="NCCL maintainer (AddyLaddy), github.com/NVIDIA/nccl-tests/issues/290: 46-48 "
        "GB/s per NDR 400G NIC (midpoint 47)",
        platform=H100,
        group=Group(ranks=4, nodes=4, net_bus_gbytes_per_s=_net(400, 1)),
        gbytes_per_s=47.0,
    ),
    Measured(
        source="NCCL maintainer (AddyLaddy), github.com/NVIDIA/nccl/issues/812: DGX A100, "
        "8 x 200G, 192 GB/s ring across nodes",
        # Ampere, but only the NICs bind a ring across nodes: NVLink and NVLS are kept out.
        platform=Platform(generation="hopper", nvswitch=False),
        group=Group(ranks=32, nodes=4, net_bus_gbytes_per_s=_net(200, 8)),
        gbytes_per_s=192.0,
    ),
    Measured(
        source="github.com/NVIDIA/nccl-tests/issues/309: two H100 servers, 8 x 400G, 470 GB/s",
        platform=H100,
        group=Group(ranks=16, nodes=2, net_bus_gbytes_per_s=_net(400, 8)),
        gbytes_per_s=470.0,
    ),
    Measured(
        source="CoreWeave, github.com/coreweave/nccl-tests/pull/92: two H100 servers, 8 x 400G, "
        "440.58 GB/s at 8 GiB",
        platform=H100,
        group=Group(ranks=16, nodes=2, net_bus_gbytes_per_s=_net(400, 8)),
        gbytes_per_s=440.58,
    ),
    Measured(
        source="github.com/NVIDIA/nccl-tests/issues/309: four H100 servers, 8 x 400G, 365.84 GB/s",
        platform=H100,
        group=Group(ranks=32, nodes=4, net_bus_gbytes_per_s=_net(400, 8)),
        gbytes_per_s=365.84,
    ),
    Measured(
        source="github.com/NVIDIA/nccl-tests/issues/283: 248 H200 servers (1,984 GPUs), "
        "8 x 400G, about 350 GB/s at 512 MiB",
        platform=H100,
        group=Group(ranks=1984, nodes=248, net_bus_gbytes_per_s=_net(400, 8)),
        gbytes_per_s=350.0,
        nbytes=512 * 2**20,
    ),
)


def modelled_bus(point: Measured) -> float:
    """The bus bandwidth nccl-tests would print for the model's pick at the point's size."""
    times = candidates(Coll.ALL_REDUCE, point.nbytes, point.group, point.platform)
    us = min(times.values())
    return point.nbytes * _factor(Coll.ALL_REDUCE, point.group.ranks) / (us * 1e3)


def _calibration_error() -> float:
    errors = [abs(modelled_bus(p) / p.gbytes_per_s - 1) for p in CALIBRATION]
    return math.ceil(max(errors) * 100) / 100


CALIBRATION_ERROR = 0.0  # replaced just below, once the model can run
CALIBRATION_ERROR = _calibration_error()


__all__ = ["CALIBRATION", "CALIBRATION_ERROR", "Algo", "Choice", "Coll", "Group", "Measured",
           "Platform", "Proto", "call_us", "candidates", "choose", "modelled_bus"]  # fmt: skip
