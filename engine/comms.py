"""What a design does to training: network communication time per step for a described job.

A first-principles bandwidth estimate, not a simulation. Each collective's time is the bytes
each GPU moves, times the collective's bus factor, over the bus bandwidth the fabric gives it:

- Bus bandwidth and bus factors follow nccl-tests' PERFORMANCE.md (github.com/NVIDIA/nccl-tests,
  doc/PERFORMANCE.md): AllReduce moves 2(n-1)/n of the buffer through each rank's link,
  ReduceScatter and AllGather (n-1)/n each, AllToAll (n-1)/n; a collective's time is
  buffer x factor / bus bandwidth, whatever the rank count.
- A rank's link to other servers is its NICs at NIC_EFFICIENCY of line rate. NCCL maintainers
  report 46-48 GB/s bus bandwidth per 400G NIC (50 GB/s line rate) and 192 GB/s for 8 x 200G
  (8 x 25 GB/s) in nccl-tests across nodes: 0.92-0.96 of line rate; 0.95 meets both within 1 %.
- A group with k members in each server crosses servers on those k members' NICs at once (the
  ring leaves every server once per channel, one channel per NIC): k x NIC bus bandwidth.
- Above the leaves, two figures (issue 26: a bound was shown as the estimate). The estimate: a
  ring in cabling order (a scheduler packs the job) leaves a unit on one hop only, so its
  bandwidth is the NICs' whatever the leaf ratio; only a ring that is not rail-aligned on a
  rail fabric climbs to the spines at every hop, and shares the leaf uplinks. The bound: every
  member shares the uplinks, the bandwidth divided by the oversubscription of every tier the
  traffic climbs through (leaf uplinks, then spine uplinks) - what a long job comes to, as it
  does not keep that order (Llama 3 saw 419 interruptions in 54 days on 16,384 GPUs, each one
  replacing servers from wherever they are free) and NCCL's trees and every other group's
  rings climb at the same time. AllToAll's pattern does not depend on order: the share of
  each GPU's data addressed outside its server, unit or pod is exact, estimate and bound alike.
- Rail-optimized fabrics carry a rail-aligned job's traffic between servers on one rail (NCCL
  keeps a ring on NIC i of every server; PXN moves AllToAll data over NVLink to the GPU on the
  destination's rail first), so within a unit it never leaves the rail's leaf. Rail-only
  designs (Wang et al., "Rail-only: a low-cost high-performance network for training LLMs with
  trillion parameters", arXiv 2307.12169) and DeepSeek's multi-plane fat-tree (Zhao et al.,
  "Insights into DeepSeek-V3: Scaling Challenges and Reflections on Hardware for AI
  Architectures", arXiv 2505.09343, section 5: eight planes, each GPU-NIC pair in its own
  plane, cross-plane traffic forwarded inside the node) have no path between rails or planes
  at all: cross-rail traffic goes over NVLink in the server, so a rail-aligned job never meets
  a switch shared by two rails (a rail plane of two tiers has spines of its own, which its
  rail's traffic between units crosses).
- Tensor-parallel traffic inside a server runs over NVLink and is not counted; pipeline traffic
  is point to point (bandwidth alone); the collectives are summed as if none overlapped
  computation, the time a step would wait if the framework hid nothing.

Ranks sit on the design's servers in cabling order from the first server (a scheduler packs
the job), laid out as `job` describes: tensor parallel fastest, then data, then pipeline.

Issue 28: the bandwidth above is what the fabric gives; the time is NCCL's own cost model
(`engine.nccl`): the algorithm and protocol NCCL would pick for each call's size (ring, tree,
NVLS, NVLS tree, PAT, CollNet with in-network reduction), its latency growing with ranks and
nodes, its bandwidth at the calibrated link efficiencies, and a low-high range of the
calibration's error. Gradients go out in Megatron-LM's buckets (max(40 M, 1 M x data-parallel
size) parameters: megatron/core/distributed/distributed_data_parallel.py, github.com/NVIDIA/
Megatron-LM), tensor-parallel activations one call per AllReduce per layer. `bandwidth_seconds`
keeps the bandwidth-only figure the estimate used to be (issue 17)."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from decimal import Decimal

from engine.design import Design
from engine.job import Job, JobError, Sharding
from engine.nccl import CALIBRATION_ERROR, Coll, Group, Platform, choose
from engine.text import Text, gettext_noop, text

NIC_EFFICIENCY = 0.95
TIERS = ("nvlink", "leaf", "spine", "core")  # the highest tier a collective's traffic reaches


@dataclass(frozen=True, kw_only=True)
class CollectiveTime:
    name: str  # data_parallel, expert_data_parallel, tensor_parallel, pipeline, expert_all_to_all
    collective: str  # allreduce, reduce_scatter+all_gather, all_gather x2+reduce_scatter, ...
    group_size: int
    members_per_server: int
    bytes_per_gpu: int  # the buffer each rank contributes per step
    bus_factor: float
    tier: str  # one of TIERS
    oversubscription: float  # the product of the tiers it climbs through (1 below the spines)
    bus_gbytes_per_s: float  # 0 when it stays inside the server
    seconds: float  # the estimate: a ring in cabling order (see the module's docstring)
    counted: bool = True  # False: inside the server (NVLink) or not estimable
    note: Text | None = None
    bound_seconds: float | None = None  # every member sharing the uplinks; None: as `seconds`
    algorithm: str = ""  # NCCL's pick per call, "+" between the parts of a composite
    protocol: str = ""
    calls: int = 0  # NCCL calls per step (buckets, layers)
    latency_seconds: float = 0.0  # the latency term of `seconds`
    bandwidth_seconds: float | None = None  # bytes x factor / bus alone; None: as `seconds`
    bandwidth_bound_seconds: float | None = None  # the same at the bound's bus; None: `bound`
    low_seconds: float | None = None  # the calibration's range around `seconds`
    high_seconds: float | None = None

    @property
    def bound(self) -> float:
        return self.seconds if self.bound_seconds is None else self.bound_seconds

    @property
    def bandwidth(self) -> float:
        return self.seconds if self.bandwidth_seconds is None else self.bandwidth_seconds

    @property
    def bandwidth_bound(self) -> float:
        return self.bound if self.bandwidth_bound_seconds is None else self.bandwidth_bound_seconds

    @property
    def low(self) -> float:
        return self.seconds if self.low_seconds is None else self.low_seconds

    @property
    def high(self) -> float:
        return self.seconds if self.high_seconds is None else self.high_seconds

    @property
    def crosses_spines(self) -> bool:
        return self.tier in ("spine", "core")

    def to_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "collective": self.collective,
            "group_size": self.group_size,
            "members_per_server": self.members_per_server,
            "bytes_per_gpu": self.bytes_per_gpu,
            "bus_factor": round(self.bus_factor, 6),
            "tier": self.tier,
            "oversubscription": round(self.oversubscription, 4),
            "bus_gbytes_per_s": round(self.bus_gbytes_per_s, 3),
            "seconds": round(self.seconds, 6),
            "bound_seconds": round(self.bound, 6),
            "low_seconds": round(self.low, 6),
            "high_seconds": round(self.high, 6),
            "bandwidth_seconds": round(self.bandwidth, 6),
            "bandwidth_bound_seconds": round(self.bandwidth_bound, 6),
            "latency_seconds": round(self.latency_seconds, 6),
            "algorithm": self.algorithm,
            "protocol": self.protocol,
            "calls": self.calls,
            "counted": self.counted,
            "crosses_spines": self.crosses_spines,
            "note": self.note.as_dict() if self.note else None,
        }


@dataclass(frozen=True, kw_only=True)
class CommsEstimate:
    gpus: int
    design_gpus: int
    nic_gbps_per_gpu: float
    efficiency: float
    gbytes_per_s_per_gpu: float  # NIC line rate x efficiency, in GB/s
    leaf_oversubscription: float
    spine_oversubscription: float
    collectives: tuple[CollectiveTime, ...]
    seconds_per_step: float
    compute_seconds_per_step: float | None
    bottleneck: str  # the collective taking longest, "" when none leaves the servers
    bottleneck_tier: str  # its tier, "" likewise
    notes: tuple[Text, ...] = ()

    @property
    def share_of_compute(self) -> float | None:
        """Communication time over the stated compute time (0.25: a quarter as long)."""
        if not self.compute_seconds_per_step:
            return None
        return self.seconds_per_step / self.compute_seconds_per_step

    @property
    def crosses_spines(self) -> bool:
        return any(c.crosses_spines and c.counted for c in self.collectives)

    @property
    def bound_seconds_per_step(self) -> float:
        """The step's communication when every member shares the uplinks (the bound)."""
        return sum(c.bound for c in self.collectives if c.counted)

    @property
    def low_seconds_per_step(self) -> float:
        return sum(c.low for c in self.collectives if c.counted)

    @property
    def high_seconds_per_step(self) -> float:
        return sum(c.high for c in self.collectives if c.counted)

    @property
    def bandwidth_seconds_per_step(self) -> float:
        """The bandwidth-only figure (issue 17's estimate), without latency or algorithm."""
        return sum(c.bandwidth for c in self.collectives if c.counted)

    @property
    def bandwidth_bound_seconds_per_step(self) -> float:
        return sum(c.bandwidth_bound for c in self.collectives if c.counted)

    @property
    def calibration_percent(self) -> int:
        """The range's half-width in percent, as the page states it."""
        return round(CALIBRATION_ERROR * 100)

    def collective(self, name: str) -> CollectiveTime | None:
        return next((c for c in self.collectives if c.name == name), None)

    def to_json(self) -> dict[str, object]:
        share = self.share_of_compute
        return {
            "gpus": self.gpus,
            "design_gpus": self.design_gpus,
            "nic_gbps_per_gpu": self.nic_gbps_per_gpu,
            "efficiency": self.efficiency,
            "gbytes_per_s_per_gpu": round(self.gbytes_per_s_per_gpu, 3),
            "leaf_oversubscription": self.leaf_oversubscription,
            "spine_oversubscription": self.spine_oversubscription,
            "collectives": [c.to_json() for c in self.collectives],
            "seconds_per_step": round(self.seconds_per_step, 6),
            "bound_seconds_per_step": round(self.bound_seconds_per_step, 6),
            "low_seconds_per_step": round(self.low_seconds_per_step, 6),
            "high_seconds_per_step": round(self.high_seconds_per_step, 6),
            "bandwidth_seconds_per_step": round(self.bandwidth_seconds_per_step, 6),
            "bandwidth_bound_seconds_per_step": round(self.bandwidth_bound_seconds_per_step, 6),
            "calibration_error": CALIBRATION_ERROR,
            "compute_seconds_per_step": self.compute_seconds_per_step,
            "share_of_compute": None if share is None else round(share, 4),
            "bottleneck": self.bottleneck,
            "bottleneck_tier": self.bottleneck_tier,
            "crosses_spines": self.crosses_spines,
            "notes": [note.as_dict() for note in self.notes],
        }


@dataclass(frozen=True, kw_only=True)
class _Fabric:
    """What the estimate reads from a design: block sizes in ranks and the tiers' ratios."""

    nvlink_gpus: int  # GPUs one NVLink domain joins: a server, or a rack-scale rack
    unit_ranks: int  # 0: one tier, no unit boundary
    pod_ranks: int  # 0: fewer than three tiers
    gbytes_per_s: float  # per GPU, efficiency applied
    leaf_over: float
    spine_over: float
    rail: bool  # rails that meet only at the spines
    rail_only: bool  # rails or planes that never meet (rail planes, several planes)
    platform: Platform


def _fabric(design: Design) -> _Fabric:
    plane = design.compute
    shape = plane.shape
    g = design.gpus_per_server
    # Tensor and expert parallel groups meet over NVLink across the whole scale-up domain: a
    # rack-scale design's NVLink switch trays join every active tray in the rack (72 GPUs in a
    # full GB200 NVL72), not just the four GPUs of one tray.
    nvlink = design.scale_up_gpus
    leaf = plane.tier("leaf")
    spine = plane.tier("spine")
    leaf_over = max(1.0, leaf.oversubscription or 1.0) if leaf and shape.tiers >= 2 else 1.0
    spine_over = max(1.0, spine.oversubscription or 1.0) if spine and shape.tiers == 3 else 1.0
    unit = shape.group_servers * g if shape.tiers >= 2 else 0
    pod = shape.groups_per_pod * unit if shape.tiers == 3 else 0
    # Rails of one fabric plane meet only at its spines (a rail fabric, or a rail plane of
    # several rails); rails of different planes never meet outside the servers.
    rails_meet = (
        shape.style in ("rail", "rail-plane") and shape.tiers >= 2 and shape.ports_per_server > 1
    )
    return _Fabric(
        nvlink_gpus=nvlink,
        unit_ranks=unit,
        pod_ranks=pod,
        gbytes_per_s=plane.bandwidth_per_gpu_gbps / 8 * NIC_EFFICIENCY,
        leaf_over=leaf_over,
        spine_over=spine_over,
        rail=rails_meet,
        rail_only=shape.style == "rail-plane" or shape.fabric_planes > 1,
        platform=_platform(design),
    )


def _platform(design: Design) -> Platform:
    """The design names no GPU: a rack-scale design (NVL72 class) or a server of more than 8
    GPUs is Blackwell on NVLink switches; 4 to 8 GPUs share an NVSwitch as in HGX H100
    (Hopper); fewer have none."""
    g = design.gpus_per_server
    if design.scale_up is not None or g > 8:
        return Platform(generation="blackwell")
    return Platform(generation="hopper", nvswitch=g >= 4)


def _crosses(stride: int, size: int, block: int, ranks: int) -> bool:
    """Whether some group of `size` ranks `stride` apart (the groups of one kind partition the
    job's ranks; a group starts at each rank whose coordinate (rank // stride) % size is 0)
    spans a multiple of `block` ranks. A boundary x is crossed when a group starts in
    [x - extent, x - 1]; the starts repeat every stride x size ranks, so only boundaries up to
    one common period of the two need checking."""
    extent = (size - 1) * stride
    if extent == 0 or block <= 0 or ranks <= block:
        return False
    if extent >= block:
        return True
    period = stride * size
    last = min(ranks, block + period * block // math.gcd(block, period))
    for boundary in range(block, last, block):
        low = max(0, boundary - extent) // stride
        high = (boundary - 1) // stride
        if -(-low // size) * size <= high:
            return True
    return False


def _per_block(stride: int, size: int, block: int) -> int:
    """Members of one group in a block of `block` ranks (GPUs of a server, of a unit)."""
    if stride >= block:
        return 1
    return max(1, min(size, block // stride))


def _tier(fabric: _Fabric, stride: int, size: int, ranks: int, aligned: bool) -> str:
    if not _crosses(stride, size, fabric.nvlink_gpus, ranks):
        return "nvlink"
    if fabric.pod_ranks and _crosses(stride, size, fabric.pod_ranks, ranks):
        return "core"
    if fabric.unit_ranks and _crosses(stride, size, fabric.unit_ranks, ranks):
        return "spine"
    if fabric.rail and not aligned:
        return "spine"  # another rail's leaf is reached only through the spines
    return "leaf"


def _over(fabric: _Fabric, tier: str) -> float:
    if tier == "spine":
        return fabric.leaf_over
    if tier == "core":
        return fabric.leaf_over * fabric.spine_over
    return 1.0


def _nccl(
    fabric: _Fabric,
    kinds: tuple[Coll, ...],
    *,
    size: int,
    k: int,
    buffer: float,
    calls: int,
    net_bus: float,
    sharp: bool,
) -> tuple[float, float, str, str]:
    """NCCL's time for the calls of each kind in turn: seconds, the latency share of them,
    and the algorithms and protocols it picks ("+" between the kinds' when they differ)."""
    platform = replace(fabric.platform, sharp=sharp)
    group = Group(ranks=size, nodes=max(1, size // k), net_bus_gbytes_per_s=net_bus)
    seconds = latency = 0.0
    algos: list[str] = []
    protos: list[str] = []
    for kind in kinds:
        pick = choose(kind, buffer / calls, group, platform, calls=calls)
        seconds += pick.seconds
        latency += pick.latency_us * calls / 1e6
        algos.append(pick.algorithm)
        protos.append(pick.protocol)
    return seconds, latency, "+".join(dict.fromkeys(algos)), "+".join(dict.fromkeys(protos))


def _ring(
    fabric: _Fabric,
    job: Job,
    *,
    name: str,
    collective: str,
    stride: int,
    size: int,
    buffer: float,
    factor: float,
    span: int = 0,
    kinds: tuple[Coll, ...] = (),
    calls: int = 1,
) -> CollectiveTime:
    """A collective of `kinds` (NCCL's model, `calls` calls a step), or, with `span`, the hops
    between neighbours of a chain of `span` ranks, whose slowest hop crosses the highest tier
    the chain spans (point to point: bandwidth alone)."""
    tier = _tier(fabric, stride, span or size, job.gpus, job.rail_aligned)
    k = _per_block(stride, size, fabric.nvlink_gpus)
    if tier == "nvlink":
        return CollectiveTime(
            name=name, collective=collective, group_size=size, members_per_server=k,
            bytes_per_gpu=round(buffer), bus_factor=factor, tier=tier, oversubscription=1.0,
            bus_gbytes_per_s=0.0, seconds=0.0, counted=False,
            note=text(gettext_noop("Stays inside the server (NVLink); not counted.")),
        )  # fmt: skip
    over = _over(fabric, tier)
    # In cabling order a ring leaves its unit (pod) on one hop only, unless it is not
    # rail-aligned on a rail fabric: then every hop reaches another rail's leaf via the spines.
    in_order = fabric.leaf_over if fabric.rail and not job.rail_aligned else 1.0
    bus = k * fabric.gbytes_per_s / min(over, in_order)
    bound_bus = k * fabric.gbytes_per_s / over
    bandwidth = buffer * factor / (bus * 1e9)
    if not kinds:
        seconds, bound, latency, algorithm, protocol = (
            bandwidth,
            buffer * factor / (bound_bus * 1e9),
            0.0,
            "p2p",
            "Simple",
        )
    else:
        sharp = collective == "allreduce (in-network)"
        seconds, latency, algorithm, protocol = _nccl(
            fabric, kinds, size=size, k=k, buffer=buffer, calls=calls, net_bus=bus, sharp=sharp
        )
        bound = _nccl(
            fabric, kinds, size=size, k=k, buffer=buffer, calls=calls, net_bus=bound_bus,
            sharp=sharp,
        )[0]  # fmt: skip
    return CollectiveTime(
        name=name, collective=collective, group_size=size, members_per_server=k,
        bytes_per_gpu=round(buffer), bus_factor=factor, tier=tier, oversubscription=over,
        bus_gbytes_per_s=bus, seconds=seconds, bound_seconds=bound, algorithm=algorithm,
        protocol=protocol, calls=calls, latency_seconds=latency, bandwidth_seconds=bandwidth,
        bandwidth_bound_seconds=buffer * factor / (bound_bus * 1e9),
        low_seconds=seconds * (1 - CALIBRATION_ERROR),
        high_seconds=seconds * (1 + CALIBRATION_ERROR),
    )  # fmt: skip


def _bucket_calls(job: Job, buffer: float, data_parallel: int) -> int:
    """Megatron-LM's gradient buckets: max(40 M, 1 M x data-parallel size) parameters each
    (megatron/core/distributed/distributed_data_parallel.py, github.com/NVIDIA/Megatron-LM)."""
    bucket = max(40_000_000, 1_000_000 * data_parallel) * job.precision_bytes
    return max(1, math.ceil(buffer / bucket))


def _gradient_factor(job: Job, size: int) -> tuple[str, float, tuple[Coll, ...]]:
    ring = (size - 1) / size
    gather, scatter = Coll.ALL_GATHER, Coll.REDUCE_SCATTER
    if job.sharding == Sharding.FULL:
        return "all_gather x2+reduce_scatter", 3 * ring, (gather, gather, scatter)
    if job.sharding == Sharding.OPTIMIZER:
        return "reduce_scatter+all_gather", 2 * ring, (scatter, gather)
    if job.in_network_reduction:
        # The switches add the buffers: each rank sends its buffer up once and receives the sum
        # once (NVIDIA SHARP), where a ring sends it through 2(n-1)/n times.
        return "allreduce (in-network)", 1.0, (Coll.ALL_REDUCE,)
    return "allreduce", 2 * ring, (Coll.ALL_REDUCE,)


def _all_to_all(fabric: _Fabric, job: Job, buffer: float) -> CollectiveTime:
    """Expert AllToAll: of each GPU's buffer, the share addressed to group members outside its
    server leaves on its NIC, outside its unit through the leaf uplinks, outside its pod
    through the spine uplinks; the slowest of the three sets the time."""
    stride, size = job.tensor_parallel, job.expert_parallel
    tier = _tier(fabric, stride, size, job.gpus, job.rail_aligned)
    k = _per_block(stride, size, fabric.nvlink_gpus)
    factor = (size - 1) / size
    if tier == "nvlink":
        return CollectiveTime(
            name="expert_all_to_all", collective="all_to_all", group_size=size,
            members_per_server=k, bytes_per_gpu=round(buffer), bus_factor=factor, tier=tier,
            oversubscription=1.0, bus_gbytes_per_s=0.0, seconds=0.0, counted=False,
            note=text(gettext_noop("Stays inside the server (NVLink); not counted.")),
        )  # fmt: skip
    shares = [((size - k) / size, 1.0)]
    if tier in ("spine", "core"):
        if fabric.rail and not job.rail_aligned:
            shares.append(((size - k) / size, fabric.leaf_over))
        else:
            in_unit = _per_block(stride, size, fabric.unit_ranks)
            shares.append(((size - in_unit) / size, fabric.leaf_over))
    if tier == "core":
        in_pod = _per_block(stride, size, fabric.pod_ranks)
        shares.append(((size - in_pod) / size, fabric.leaf_over * fabric.spine_over))
    seconds = max(buffer * share / (fabric.gbytes_per_s / over * 1e9) for share, over in shares)
    worst = max(shares, key=lambda s: s[0] * s[1])
    return CollectiveTime(
        name="expert_all_to_all", collective="all_to_all", group_size=size,
        members_per_server=k, bytes_per_gpu=round(buffer), bus_factor=factor, tier=tier,
        oversubscription=worst[1], bus_gbytes_per_s=fabric.gbytes_per_s / worst[1],
        seconds=seconds, algorithm="p2p", protocol="Simple", calls=4,
        low_seconds=seconds * (1 - CALIBRATION_ERROR),
        high_seconds=seconds * (1 + CALIBRATION_ERROR),
    )  # fmt: skip


def _gradient_collectives(fabric: _Fabric, job: Job) -> list[CollectiveTime]:
    """The dense gradients over data parallel, the experts' over expert data parallel."""
    tp, pp, dp, ep = (job.tensor_parallel, job.pipeline_parallel, job.data_parallel,
                      job.expert_parallel)  # fmt: skip
    width = job.precision_bytes
    out: list[CollectiveTime] = []
    if dp > 1 and job.dense_parameters:
        collective, factor, kinds = _gradient_factor(job, dp)
        buffer = job.dense_parameters / (tp * pp) * width
        out.append(
            _ring(fabric, job, name="data_parallel", collective=collective, stride=tp, size=dp,
                  buffer=buffer, factor=factor, kinds=kinds,
                  calls=_bucket_calls(job, buffer, dp))
        )  # fmt: skip
    expert_dp = dp // ep
    if job.expert_parameters and expert_dp > 1:
        collective, factor, kinds = _gradient_factor(job, expert_dp)
        buffer = job.expert_parameters / (tp * pp * ep) * width
        out.append(
            _ring(fabric, job, name="expert_data_parallel", collective=collective,
                  stride=tp * ep, size=expert_dp, buffer=buffer, factor=factor, kinds=kinds,
                  calls=_bucket_calls(job, buffer, expert_dp))
        )  # fmt: skip
    return out


def _activation_collectives(fabric: _Fabric, job: Job) -> tuple[list[CollectiveTime], list[Text]]:
    """Tensor, pipeline and expert traffic, which the model's shape sets; a note instead when
    the job leaves the shape out."""
    tp, pp, dp, ep = (job.tensor_parallel, job.pipeline_parallel, job.data_parallel,
                      job.expert_parallel)  # fmt: skip
    width = job.precision_bytes
    out: list[CollectiveTime] = []
    notes: list[Text] = []
    hidden, layers, tokens = job.hidden_size, job.layers, job.tokens_per_step
    if hidden is None or layers is None or tokens is None:
        if tp > 1 or pp > 1 or ep > 1:
            notes.append(
                text(
                    gettext_noop(
                        "Tensor, pipeline and expert traffic need hidden_size, layers and "
                        "tokens_per_step; only the gradient traffic is estimated."
                    )
                )
            )
    else:
        replica_tokens = tokens / dp
        if tp > 1:
            # Megatron-LM: two AllReduces of the layer's activations forward and two backward
            # per transformer layer (Shoeybi et al. 2019; Narayanan et al. 2021).
            out.append(
                _ring(fabric, job, name="tensor_parallel", collective="allreduce", stride=1,
                      size=tp, buffer=4 * layers / pp * replica_tokens * hidden * width,
                      factor=2 * (tp - 1) / tp, kinds=(Coll.ALL_REDUCE,),
                      calls=max(1, 4 * layers // pp))
            )  # fmt: skip
        if pp > 1:
            # Activations forward and their gradients backward across each stage boundary,
            # split over the tensor-parallel ranks (Narayanan et al. 2021, scatter/gather).
            out.append(
                _ring(fabric, job, name="pipeline", collective="send_recv", stride=tp * dp,
                      size=2, buffer=2 * replica_tokens * hidden * width / tp, factor=1.0,
                      span=pp)
            )  # fmt: skip
        if ep > 1:
            moe = job.moe_layers or layers
            # Dispatch and combine, forward and backward: four AllToAlls per MoE layer; each
            # token's hidden state goes to top_k experts; sequence parallel splits a
            # replica's tokens over its tensor-parallel ranks.
            buffer = 4 * moe / pp * replica_tokens / tp * job.top_k * hidden * width
            out.append(_all_to_all(fabric, job, buffer))
    return out, notes


def estimate(job: Job, design: Design) -> CommsEstimate:
    """Communication time per training step of `job` on `design`'s compute fabric."""
    if job.gpus > design.gpus:
        raise JobError(
            {
                "gpus": text(
                    gettext_noop("The job's %(job)s GPUs do not fit the design's %(design)s."),
                    job=job.gpus,
                    design=design.gpus,
                )
            }
        )
    fabric = _fabric(design)
    out = _gradient_collectives(fabric, job)
    activations, notes = _activation_collectives(fabric, job)
    out += activations
    if fabric.rail_only and not job.rail_aligned:
        notes.append(
            text(
                gettext_noop(
                    "Rails (or planes) meet only inside the servers: traffic between rails "
                    "goes over NVLink to the GPU on the destination's rail first."
                )
            )
        )
    counted = [c for c in out if c.counted]
    worst = max(counted, key=lambda c: c.seconds, default=None)
    return CommsEstimate(
        gpus=job.gpus,
        design_gpus=design.gpus,
        nic_gbps_per_gpu=design.compute.bandwidth_per_gpu_gbps,
        efficiency=NIC_EFFICIENCY,
        gbytes_per_s_per_gpu=fabric.gbytes_per_s,
        leaf_oversubscription=fabric.leaf_over,
        spine_oversubscription=fabric.spine_over,
        collectives=tuple(out),
        seconds_per_step=sum(c.seconds for c in counted),
        compute_seconds_per_step=job.compute_seconds_per_step,
        bottleneck=worst.name if worst else "",
        bottleneck_tier=worst.tier if worst else "",
        notes=tuple(notes),
    )


@dataclass(frozen=True, kw_only=True)
class Comparison:
    """Design `other` against `base` for one job: what it saves and what it adds per step."""

    label: str
    saving: Decimal | None  # base cost - other cost; negative when `other` costs more
    seconds_added: float  # other - base, per step; negative when `other` is faster
    share_added: float | None  # of the stated compute time
    text: Text
    bound_seconds_added: float = 0.0  # the same, by the bound (every member on the uplinks)
    bound_text: Text | None = None  # said when the bound differs from the estimate

    def to_json(self) -> dict[str, object]:
        return {
            "label": self.label,
            "saving": None if self.saving is None else str(self.saving),
            "seconds_added": round(self.seconds_added, 6),
            "share_added": None if self.share_added is None else round(self.share_added, 4),
            "bound_seconds_added": round(self.bound_seconds_added, 6),
            "text": self.text.as_dict(),
            "bound_text": self.bound_text.as_dict() if self.bound_text else None,
        }


def compare(
    base: CommsEstimate,
    other: CommsEstimate,
    *,
    label: str,
    base_cost: Decimal | None = None,
    other_cost: Decimal | None = None,
    currency: str = "",
) -> Comparison:
    """ "The 2:1 option saves 1.2 M CNY and adds 0.3 s per step", for `other` against `base`."""
    added = other.seconds_per_step - base.seconds_per_step
    seconds = f"{abs(added):.3g}"
    saving = None
    if base_cost is not None and other_cost is not None:
        saving = base_cost - other_cost
        amount = f"{abs(saving):,.2f}" + (f" {currency}" if currency else "")
        template = {
            (True, True): gettext_noop(
                "The %(label)s option saves %(amount)s and adds %(seconds)s s per step."
            ),
            (True, False): gettext_noop(
                "The %(label)s option saves %(amount)s and %(seconds)s s per step."
            ),
            (False, True): gettext_noop(
                "The %(label)s option costs %(amount)s more and adds %(seconds)s s per step."
            ),
            (False, False): gettext_noop(
                "The %(label)s option costs %(amount)s more and saves %(seconds)s s per step."
            ),
        }[(saving >= 0, added >= 0)]
        message = text(template, label=label, amount=amount, seconds=seconds)
    elif added >= 0:
        message = text(
            gettext_noop("The %(label)s option adds %(seconds)s s per step."),
            label=label,
            seconds=seconds,
        )
    else:
        message = text(
            gettext_noop("The %(label)s option saves %(seconds)s s per step."),
            label=label,
            seconds=seconds,
        )
    compute = base.compute_seconds_per_step
    bound_added = other.bound_seconds_per_step - base.bound_seconds_per_step
    bound_text = None
    if abs(bound_added - added) >= 5e-4:  # what the figures show to three places
        bound_text = text(
            gettext_noop(
                "With every member of a group sharing the uplinks (a job no longer placed in "
                "cabling order), %(seconds)s s per step more."
            )
            if bound_added >= 0
            else gettext_noop(
                "With every member of a group sharing the uplinks (a job no longer placed in "
                "cabling order), %(seconds)s s per step less."
            ),
            seconds=f"{abs(bound_added):.3g}",
        )
    return Comparison(
        label=label,
        saving=saving,
        seconds_added=added,
        share_added=added / compute if compute else None,
        text=message,
        bound_seconds_added=bound_added,
        bound_text=bound_text,
    )


__all__ = [
    "CALIBRATION_ERROR",
    "NIC_EFFICIENCY",
    "CollectiveTime",
    "CommsEstimate",
    "Comparison",
    "compare",
    "estimate",
]
