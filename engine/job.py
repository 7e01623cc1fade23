"""A training job as a sales engineer describes it, validated: the input of `comms.estimate`.

`parse_job` takes the same mapping from the CLI (`size --job job.json`), the API or a form and
returns a `Job`, or raises `JobError` with one sentence per offending field, every error
collected, each naming the numbers that disagree.

Ranks are laid out as Megatron-LM lays them out by default: tensor parallel fastest, then data
parallel, then pipeline parallel; expert-parallel groups are consecutive data-parallel ranks
(Megatron-LM and DeepSpeed-MoE carve them out of the data-parallel group)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

from engine.request import RequestError
from engine.request.parse import _Reader
from engine.text import gettext_noop, text

MAX_JOB_GPUS = 1_000_000
MAX_PARAMETERS = 100 * 10**12  # 100 T: beyond any model trained or announced
PRECISION_BYTES = (1, 2, 4)  # FP8, BF16/FP16, FP32
# Model state per parameter in mixed-precision Adam (Rajbhandari et al., ZeRO, 2020, section
# 3.1): 2 bytes of 16-bit weights, 2 of 16-bit gradients and 12 of FP32 optimizer state (master
# weights, momentum, variance). The memory check counts model state only; activations need more.
STATE_BYTES_PER_PARAMETER = 16
GPU_MEMORY_GB = 80  # H100/H200-class 80 GB; GB = 10^9 bytes, which errs on the safe side
DEFAULT_TOP_K = 2  # experts each token visits (GShard, Mixtral); DeepSeek-V3 uses 8
_SUFFIXES = {"k": 10**3, "m": 10**6, "b": 10**9, "g": 10**9, "t": 10**12}

JOB_FIELDS = frozenset(
    {
        "parameters", "expert_parameters", "gpus", "tensor_parallel", "pipeline_parallel",
        "data_parallel", "expert_parallel", "precision_bytes", "sharding", "gpu_memory_gb",
        "state_bytes_per_parameter", "compute_seconds_per_step", "rail_aligned",
        "in_network_reduction", "hidden_size", "layers", "moe_layers", "tokens_per_step",
        "top_k",
    }
)  # fmt: skip


class Sharding(StrEnum):
    """How model state is split over the data-parallel ranks, which sets the collectives."""

    NONE = "none"  # plain data parallel: gradients AllReduced, full state on every rank
    OPTIMIZER = "optimizer"  # ZeRO-1/2, Megatron distributed optimizer: ReduceScatter + AllGather
    FULL = "full"  # ZeRO-3 / FSDP: weights gathered for forward and backward, gradients scattered


class JobError(RequestError):
    """Invalid job description. `errors` maps each offending field to one sentence."""


@dataclass(frozen=True, kw_only=True)
class Job:
    parameters: int
    expert_parameters: int = 0  # of `parameters`, those in experts (split over expert parallel)
    gpus: int
    tensor_parallel: int = 1
    pipeline_parallel: int = 1
    data_parallel: int
    expert_parallel: int = 1
    precision_bytes: int = 2
    sharding: Sharding = Sharding.NONE
    gpu_memory_gb: float = GPU_MEMORY_GB
    state_bytes_per_parameter: float = STATE_BYTES_PER_PARAMETER
    compute_seconds_per_step: float | None = None
    rail_aligned: bool = True
    in_network_reduction: bool = False
    # Activation traffic (tensor, pipeline and expert parallel) needs the model's shape; without
    # it only the gradient traffic is estimated.
    hidden_size: int | None = None
    layers: int | None = None
    moe_layers: int | None = None
    tokens_per_step: int | None = None  # global batch in tokens
    top_k: int = DEFAULT_TOP_K

    @property
    def dense_parameters(self) -> int:
        return self.parameters - self.expert_parameters


def state_bytes_per_gpu(job: Job) -> float:
    """Model state one GPU holds: dense parameters split over tensor x pipeline, expert
    parameters also over expert parallel; with sharding, the optimizer state (or everything)
    also over the data-parallel ranks that share it."""
    split = job.tensor_parallel * job.pipeline_parallel
    dense = job.dense_parameters / split
    expert = job.expert_parameters / (split * job.expert_parallel)
    expert_dp = job.data_parallel // job.expert_parallel
    per = job.state_bytes_per_parameter
    if job.sharding == Sharding.NONE:
        return (dense + expert) * per
    if job.sharding == Sharding.FULL:
        return dense * per / job.data_parallel + expert * per / expert_dp
    working = 2 * job.precision_bytes  # weights and gradients stay whole
    optimizer = max(per - working, 0.0)
    return dense * (working + optimizer / job.data_parallel) + expert * (
        working + optimizer / expert_dp
    )


def _parameters(reader: _Reader, name: str, default: int | None) -> int | None:
    """A parameter count as a number or with a suffix: 70e9, "70B", "1.2T", "7,000,000,000"."""
    raw = reader.data.get(name)
    if isinstance(raw, str):
        word = raw.strip().lower().replace(",", "").replace("_", "")
        scale = _SUFFIXES.get(word[-1:], 1) if word else 1
        number = word[:-1] if scale > 1 else word
        try:
            value = float(number) * scale
        except ValueError:
            value = -1.0
        if value >= 0 and value == int(value):
            reader.data = {**reader.data, name: int(value)}
    return reader.int_(name, default, 0 if default == 0 else 1, MAX_PARAMETERS)


def parse_job(data: Mapping[str, object]) -> Job:
    reader = _Reader(dict(data))
    for key in sorted(set(data) - JOB_FIELDS):
        reader.fail(key, text(gettext_noop("%(field)s is not a job field."), field=key))

    parameters = _parameters(reader, "parameters", None)
    expert = _parameters(reader, "expert_parameters", 0) or 0
    gpus = reader.int_("gpus", None, 1, MAX_JOB_GPUS)
    tp = reader.int_("tensor_parallel", 1, 1, MAX_JOB_GPUS)
    pp = reader.int_("pipeline_parallel", 1, 1, MAX_JOB_GPUS)
    ep = reader.int_("expert_parallel", 1, 1, MAX_JOB_GPUS)
    dp_given = reader.data.get("data_parallel") not in (None, "")
    dp = reader.int_("data_parallel", 0, 1, MAX_JOB_GPUS) if dp_given else None
    precision = _precision(reader)
    sharding = reader.choice("sharding", Sharding, Sharding.NONE)
    memory = reader.float_("gpu_memory_gb", float(GPU_MEMORY_GB), 1.0, 10_000.0)
    per_param = reader.float_(
        "state_bytes_per_parameter", float(STATE_BYTES_PER_PARAMETER), 0.5, 64.0
    )
    compute = reader.float_("compute_seconds_per_step", None, 1e-6, 1e6)
    rail_aligned = reader.bool_("rail_aligned", True)
    in_network = reader.bool_("in_network_reduction", False)
    hidden = reader.int_("hidden_size", 0, 1, 1_000_000) or None
    layers = reader.int_("layers", 0, 1, 100_000) or None
    moe_layers = reader.int_("moe_layers", 0, 0, 100_000)
    tokens = reader.int_("tokens_per_step", 0, 1, 10**12) or None
    top_k = reader.int_("top_k", DEFAULT_TOP_K, 1, 1024) or DEFAULT_TOP_K

    if parameters is not None and expert >= parameters and expert:
        _fail_experts(reader, expert, parameters)
    if gpus is not None and tp is not None and pp is not None:
        dp = _data_parallel(reader, gpus, tp, pp, dp, dp_given)
    _check_divisions(reader, dp, ep, layers, pp)

    if reader.errors:
        raise JobError(reader.errors)
    assert parameters is not None
    assert gpus is not None
    assert dp is not None
    assert tp is not None
    assert pp is not None
    assert ep is not None
    assert precision is not None
    job = Job(
        parameters=parameters,
        expert_parameters=expert,
        gpus=gpus,
        tensor_parallel=tp,
        pipeline_parallel=pp,
        data_parallel=dp,
        expert_parallel=ep,
        precision_bytes=precision,
        sharding=sharding,
        gpu_memory_gb=memory or float(GPU_MEMORY_GB),
        state_bytes_per_parameter=per_param or float(STATE_BYTES_PER_PARAMETER),
        compute_seconds_per_step=compute,
        rail_aligned=rail_aligned,
        in_network_reduction=in_network,
        hidden_size=hidden,
        layers=layers,
        moe_layers=moe_layers or None,
        tokens_per_step=tokens,
        top_k=top_k,
    )
    _check_memory(job)
    return job


def _precision(reader: _Reader) -> int | None:
    precision = reader.int_("precision_bytes", 2, 1, 4)
    if precision is not None and precision not in PRECISION_BYTES:
        reader.fail(
            "precision_bytes",
            text(
                gettext_noop(
                    "precision_bytes is 1 (FP8), 2 (BF16 or FP16) or 4 (FP32); got %(value)s."
                ),
                value=precision,
            ),
        )
    return precision


def _fail_experts(reader: _Reader, expert: int, parameters: int) -> None:
    reader.fail(
        "expert_parameters",
        text(
            gettext_noop(
                "expert_parameters (%(expert)s) must be fewer than parameters (%(total)s): "
                "attention and embeddings are not experts."
            ),
            expert=expert,
            total=parameters,
        ),
    )


def _data_parallel(
    reader: _Reader, gpus: int, tp: int, pp: int, dp: int | None, dp_given: bool
) -> int | None:
    """The data-parallel size: as given, when tensor x pipeline x data makes the GPUs, else
    what is left of the GPUs after tensor and pipeline parallelism."""
    if dp_given:
        if dp is not None and tp * pp * dp != gpus:
            reader.fail(
                "data_parallel",
                text(
                    gettext_noop(
                        "tensor_parallel x pipeline_parallel x data_parallel = %(tp)s x %(pp)s x "
                        "%(dp)s = %(product)s, not the %(gpus)s GPUs."
                    ),
                    tp=tp,
                    pp=pp,
                    dp=dp,
                    product=tp * pp * dp,
                    gpus=gpus,
                ),
            )
        return dp
    if gpus % (tp * pp):
        reader.fail(
            "data_parallel",
            text(
                gettext_noop(
                    "tensor_parallel x pipeline_parallel = %(tp)s x %(pp)s = %(product)s "
                    "does not divide the %(gpus)s GPUs."
                ),
                tp=tp,
                pp=pp,
                product=tp * pp,
                gpus=gpus,
            ),
        )
        return None
    return gpus // (tp * pp)


def _check_divisions(
    reader: _Reader, dp: int | None, ep: int | None, layers: int | None, pp: int | None
) -> None:
    if dp is not None and ep is not None and dp % ep:
        reader.fail(
            "expert_parallel",
            text(
                gettext_noop(
                    "expert_parallel (%(ep)s) must divide data_parallel (%(dp)s): expert groups "
                    "are carved out of the data-parallel ranks."
                ),
                ep=ep,
                dp=dp,
            ),
        )
    if layers is not None and pp is not None and layers % pp:
        reader.fail(
            "layers",
            text(
                gettext_noop(
                    "layers (%(layers)s) must divide evenly over pipeline_parallel (%(pp)s)."
                ),
                layers=layers,
                pp=pp,
            ),
        )


def _check_memory(job: Job) -> None:
    need = state_bytes_per_gpu(job)
    if need > job.gpu_memory_gb * 1e9:
        raise JobError(
            {
                "parameters": text(
                    gettext_noop(
                        "%(parameters)s parameters need %(need)s GB of model state per GPU at "
                        "tensor %(tp)s x pipeline %(pp)s x expert %(ep)s, sharding %(sharding)s "
                        "(%(per)s bytes a parameter: weights, gradients and Adam state in mixed "
                        "precision), more than the %(memory)s GB of each GPU; raise tensor or "
                        "pipeline parallelism, or shard the optimizer."
                    ),
                    parameters=job.parameters,
                    need=round(need / 1e9, 1),
                    tp=job.tensor_parallel,
                    pp=job.pipeline_parallel,
                    ep=job.expert_parallel,
                    sharding=job.sharding.value,
                    per=job.state_bytes_per_parameter,
                    memory=job.gpu_memory_gb,
                )
            }
        )


def job_to_dict(job: Job) -> dict[str, object]:
    """The job as plain JSON-ready data that `parse_job` accepts back unchanged."""
    out: dict[str, object] = {
        "parameters": job.parameters,
        "gpus": job.gpus,
        "tensor_parallel": job.tensor_parallel,
        "pipeline_parallel": job.pipeline_parallel,
        "data_parallel": job.data_parallel,
        "expert_parallel": job.expert_parallel,
        "precision_bytes": job.precision_bytes,
        "sharding": job.sharding.value,
        "gpu_memory_gb": job.gpu_memory_gb,
        "state_bytes_per_parameter": job.state_bytes_per_parameter,
        "rail_aligned": job.rail_aligned,
        "in_network_reduction": job.in_network_reduction,
        "top_k": job.top_k,
    }
    if job.expert_parameters:
        out["expert_parameters"] = job.expert_parameters
    for name in ("compute_seconds_per_step", "hidden_size", "layers", "moe_layers",
                 "tokens_per_step"):  # fmt: skip
        value = getattr(job, name)
        if value is not None:
            out[name] = value
    return out


__all__ = ["Job", "JobError", "Sharding", "job_to_dict", "parse_job", "state_bytes_per_gpu"]
