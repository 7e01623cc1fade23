"""What a saved design means for the customer's training: communication time per step for a job
the sales engineer describes, against the engine's alternatives; expected failures and what each
single failure does; spares; growth steps with the cost per added GPU.

Everything is read from the design as it was saved: its request sized again against the catalog
snapshot it was sized with (`services.design_engine`), priced with that snapshot's prices, and
its alternatives searched in the same snapshot. Today's catalog is never consulted, so the
figures a customer saw do not move when a product is retired or re-priced.

The engine does the arithmetic (`engine.comms`, `failures`, `growth_steps`); this module
parses the job, gathers the figures, puts the engine's texts into the reader's language and
shapes them for the page, the API, the CLI and the proposal."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any

from django.utils.translation import gettext as _

from core import vocabulary
from core.errors import DomainError
from engine.bom import bom_cost
from engine.catalog import CatalogSnapshot
from engine.comms import CommsEstimate, Comparison, compare, estimate
from engine.design import Design as EngineDesign
from engine.errors import DesignError
from engine.failures import FailureReport, failure_report
from engine.growth_steps import GrowthPlan, growth_steps
from engine.job import Job, JobError, Sharding, job_to_dict, parse_job
from engine.money import per_unit
from engine.result import DesignResult
from engine.search import alternatives
from planner import services
from planner.frozen import SizedDesigns
from planner.i18n import translated
from planner.meaning.labels import nccl_label
from planner.meaning.svg import ChartRow, meaning_chart_svg
from planner.meaning.what_if import WhatIfRow, what_if
from planner.models import Design

# A reference job for documents and the form's first values: a Llama-3-70B-shaped model (Llama
# Team, "The Llama 3 Herd of Models", arXiv 2407.21783, table 3: hidden 8,192, 80 layers) with
# 4 Mi tokens a step, 8-way tensor parallel inside each server. A design too small for its model
# state falls back to the 8B shape (hidden 4,096, 32 layers).
REFERENCE_MODELS: tuple[tuple[int, int, int], ...] = (
    (70 * 10**9, 8192, 80),
    (8 * 10**9, 4096, 32),
)
REFERENCE_TOKENS_PER_STEP = 4 * 2**20
# Compute time of a step from first principles: 6 FLOP per parameter per token forward and
# backward (Kaplan et al., "Scaling Laws for Neural Language Models", arXiv 2001.08361), at 40 %
# of an H100's 989 TFLOPS dense BF16 (Llama 3 reports 38-43 % MFU, table 4).
FLOPS_PER_GPU = 989e12
MODEL_FLOPS_UTILIZATION = 0.40


class JobInvalid(DomainError):
    """The job's fields disagree (sizes that do not multiply to the GPUs, a model that does not
    fit the GPUs' memory, negative sizes); `errors` names each field and the numbers."""

    code = "invalid_job"


class DesignHasNoResult(DomainError):
    code = "design_has_no_result"


def _job_invalid(exc: JobError) -> JobInvalid:
    errors = {field: translated(message) for field, message in exc.texts.items()}
    return JobInvalid(
        "; ".join(f"{field}: {message}" for field, message in errors.items()), errors=errors
    )


def compute_seconds(*, parameters: int, tokens_per_step: int, gpus: int) -> float:
    """6 N D FLOP over the GPUs at the stated utilization."""
    return 6 * parameters * tokens_per_step / (gpus * FLOPS_PER_GPU * MODEL_FLOPS_UTILIZATION)


def reference_job_data(*, gpus: int, gpus_per_server: int = 8) -> dict[str, object]:
    """The first job that fits: the 70B shape, else 8B; tensor parallel over a server's GPUs;
    pipeline parallel only as far as the model state needs it."""
    tp = max(1, min(8, gpus_per_server))
    fallback: dict[str, object] = {}
    for parameters, hidden, layers in REFERENCE_MODELS:
        for pp in (1, 2, 4, 8):
            if gpus % (tp * pp) or layers % pp:
                continue
            data: dict[str, object] = {
                "parameters": parameters,
                "gpus": gpus,
                "tensor_parallel": tp,
                "pipeline_parallel": pp,
                "precision_bytes": 2,
                "sharding": Sharding.OPTIMIZER.value,
                "hidden_size": hidden,
                "layers": layers,
                "tokens_per_step": REFERENCE_TOKENS_PER_STEP,
                "compute_seconds_per_step": round(
                    compute_seconds(
                        parameters=parameters, tokens_per_step=REFERENCE_TOKENS_PER_STEP, gpus=gpus
                    ),
                    3,
                ),
                "rail_aligned": True,
            }
            fallback = fallback or data
            try:
                parse_job(data)
            except JobError:
                continue
            return data
    return fallback


def job_gpus(design: Design) -> int:
    """The GPUs a job runs on by default: the first pool's (its request's `gpus`), whose
    fabric the estimate reads; `design.gpus` counts every pool (engine.pools)."""
    asked = design.request.get("gpus") if isinstance(design.request, dict) else None
    return int(asked) if isinstance(asked, int) else int(design.gpus or 0)


def job_parse(*, data: Mapping[str, object], design: Design | None = None) -> Job:
    """A job from a form, the API or a file; GPUs default to the design's."""
    values = {key: value for key, value in data.items() if value not in (None, "")}
    if design is not None and "gpus" not in values and job_gpus(design):
        values["gpus"] = job_gpus(design)
    try:
        return parse_job(values)
    except JobError as exc:
        raise _job_invalid(exc) from exc


@dataclass(frozen=True)
class CollectiveRow:
    name: str
    label: str
    collective: str
    tier: str
    tier_label: str
    group_size: int
    members_per_server: int
    gbytes_per_gpu: float
    bus_gbytes_per_s: float
    oversubscription: float
    seconds: float
    counted: bool
    note: str
    bound_seconds: float = 0.0  # every member sharing the uplinks (engine.comms)
    algorithm: str = ""  # NCCL's pick (engine.nccl), as the engine names it
    protocol: str = ""
    algorithm_label: str = ""  # the same in the reader's language
    low_seconds: float = 0.0  # the calibration's range
    high_seconds: float = 0.0


@dataclass(frozen=True)
class Option:
    """The design itself (`is_design`) or one of its alternatives, for one job."""

    key: str  # "design" or the engine's label: lowest_cost, most_resilient, most_growth
    label: str  # in the reader's language: "Rail-optimized 2:1"
    pick: str  # what the engine picked it for: "lowest cost" (among the alternatives)
    is_design: bool
    gpus: int
    cost: Decimal | None
    cost_per_gpu: Decimal | None
    unpriced_lines: int
    leaf_oversubscription: float
    estimate: CommsEstimate | None
    comparison: Comparison | None
    comparison_text: str


@dataclass(frozen=True)
class DesignMeaning:
    design: Design
    currency: str
    job: Job | None
    estimate: CommsEstimate | None
    collectives: tuple[CollectiveRow, ...]
    notes: tuple[str, ...]
    options: tuple[Option, ...]
    alternatives_error: str
    failures: FailureReport
    effects: tuple[dict[str, Any], ...]
    growth: GrowthPlan
    growth_rows: tuple[dict[str, Any], ...]
    growth_notes: tuple[str, ...]
    what_if: tuple[WhatIfRow, ...] = ()  # hypothetical variants of the design (issue 28)

    @property
    def bottleneck_label(self) -> str:
        return collective_label(self.estimate.bottleneck) if self.estimate else ""

    @property
    def bottleneck_tier_label(self) -> str:
        return tier_label(self.estimate.bottleneck_tier) if self.estimate else ""


def collective_label(name: str) -> str:
    labels = {
        "data_parallel": _("Data-parallel gradients"),
        "expert_data_parallel": _("Expert data-parallel gradients"),
        "tensor_parallel": _("Tensor-parallel activations"),
        "pipeline": _("Pipeline activations"),
        "expert_all_to_all": _("Expert AllToAll"),
    }
    return labels.get(name, name)


def tier_label(tier: str) -> str:
    labels = {
        "nvlink": _("inside the server (NVLink)"),
        "leaf": _("leaf"),
        "spine": _("spine"),
        "core": _("core"),
    }
    return labels.get(tier, tier)


def _cost(
    design: EngineDesign, catalog: CatalogSnapshot, prices: Mapping[str, Decimal]
) -> tuple[Decimal | None, int]:
    """The design's list price and how many lines have none, priced as the search ranks
    alternatives (inline switch specs estimated from the catalog's switches of their class)."""
    if not prices:
        return None, 0
    total, _estimated, unpriced = bom_cost(design.planes, design.bom, catalog, prices)
    return total, unpriced


def _ratio(value: float) -> str:
    return f"{value:.3g}:1"


def _short(design: EngineDesign) -> str:
    style = design.compute.shape.style
    leaf = design.compute.tier("leaf")
    ratio = (leaf.oversubscription or 1.0) if leaf and design.compute.shape.tiers >= 2 else 1.0
    return f"{vocabulary.fabric_label(style)} {_ratio(max(1.0, ratio))}"


def _bom_key(design: EngineDesign) -> tuple[tuple[str, str, int], ...]:
    return tuple(sorted((line.sku, line.description, line.quantity) for line in design.bom))


def _alternatives(
    engine: EngineDesign, catalog: CatalogSnapshot, prices: Mapping[str, Decimal]
) -> tuple[tuple[EngineDesign, ...], str]:
    """The engine's alternatives over the saved request's open choices, in the design's own
    catalog snapshot; as on the review page, a request with nothing open opens fabric and
    switches (its oversubscription stays a ceiling). The design itself is left out."""
    request = engine.request
    if not request.open_choices:
        request = replace(request, fabric=None, leaf=None, spine=None, core=None)
    try:
        found = alternatives(request, catalog, prices or None)
    except DesignError as exc:
        return (), translated(exc.text)
    own = _bom_key(engine)
    return tuple(design for design in found if _bom_key(design) != own), ""


def _comparison_text(comparison: Comparison | None) -> str:
    if comparison is None:
        return ""
    said = translated(comparison.text)
    return f"{said} {translated(comparison.bound_text)}" if comparison.bound_text else said


def _collective_rows(found: CommsEstimate) -> tuple[CollectiveRow, ...]:
    return tuple(
        CollectiveRow(
            name=c.name,
            label=collective_label(c.name),
            collective=c.collective,
            tier=c.tier,
            tier_label=tier_label(c.tier),
            group_size=c.group_size,
            members_per_server=c.members_per_server,
            gbytes_per_gpu=c.bytes_per_gpu / 1e9,
            bus_gbytes_per_s=c.bus_gbytes_per_s,
            oversubscription=c.oversubscription,
            seconds=c.seconds,
            counted=c.counted,
            note=translated(c.note) if c.note else "",
            bound_seconds=c.bound,
            algorithm=c.algorithm,
            protocol=c.protocol,
            algorithm_label=nccl_label(c.algorithm, c.protocol),
            low_seconds=c.low,
            high_seconds=c.high,
        )
        for c in found.collectives
    )


def _design_engine(design: Design, designs: SizedDesigns | None) -> EngineDesign:
    if designs is None or design.sizing_snapshot_id is None:
        return services.design_engine(design=design)
    assert design.sizing_snapshot is not None
    return designs.get(
        snapshot_sha256=design.sizing_snapshot.sha256,
        request_data=design.request,
        size=lambda: services.design_engine(design=design),
    )


def _estimate(job: Job | None, design: EngineDesign) -> CommsEstimate | None:
    if job is None or job.gpus > design.gpus:
        return None
    return estimate(job, design)


def _alternative_option(
    other: EngineDesign,
    *,
    job: Job | None,
    base: CommsEstimate | None,
    base_cost: Decimal | None,
    catalog: CatalogSnapshot,
    prices: Mapping[str, Decimal],
    currency: str,
) -> Option:
    """One alternative as the design's section lists it: its cost, and its estimate compared
    with the design's when both run the job."""
    other_cost, other_unpriced = _cost(other, catalog, prices)
    other_estimate = _estimate(job, other)
    comparison = None
    if base is not None and other_estimate is not None:
        comparison = compare(
            base, other_estimate, label=_short(other), base_cost=base_cost,
            other_cost=other_cost, currency=currency,
        )  # fmt: skip
    return Option(
        key=other.label,
        label=_short(other), is_design=False,
        pick=vocabulary.alternative_labels(other.labels, other.label),
        gpus=other.gpus, cost=other_cost,
        cost_per_gpu=per_unit(other_cost, other.gpus),
        unpriced_lines=other_unpriced,
        leaf_oversubscription=(
            other_estimate.leaf_oversubscription if other_estimate else 1.0
        ),
        estimate=other_estimate, comparison=comparison,
        comparison_text=_comparison_text(comparison),
    )  # fmt: skip


def _effect_rows(report: FailureReport) -> tuple[dict[str, Any], ...]:
    return tuple(
        {
            "component": effect.component,
            "label": component_label(effect.component),
            "servers_cut_off": effect.servers_cut_off,
            "servers_degraded": effect.servers_degraded,
            "capacity_lost_gbps": effect.capacity_lost_gbps,
            "share_lost": effect.share_lost,
            "effect": translated(effect.effect),
        }
        for effect in report.effects
    )


def _growth_rows(growth: GrowthPlan) -> tuple[dict[str, Any], ...]:
    return tuple(
        {
            "index": index,
            "kind": step.kind,
            "gpus_before": step.gpus_before,
            "gpus_after": step.gpus_after,
            "gpus_added": step.gpus_added,
            "repeat": step.repeat,
            "cables_moved": step.cables_moved,
            "cost": step.cost,
            "cost_per_added_gpu": step.cost_per_added_gpu,
            "unpriced_lines": step.unpriced_lines,
            "description": translated(step.description),
            "parts": step.parts,
        }
        for index, step in enumerate(growth.steps)
    )


def design_meaning(
    *,
    design: Design,
    job: Job | None,
    with_alternatives: bool = True,
    designs: SizedDesigns | None = None,
    with_what_if: bool = True,
) -> DesignMeaning:
    """The figures of the design page's "what it means" section, the API's `meaning` and the
    proposal's chapter; `job` None leaves out the communication estimate. `designs`: the
    engine designs the caller has already sized (a document render), so none is sized twice."""
    # The stored result's presence is all that is asked here: no need to decode it.
    if design.result is None:
        raise DesignHasNoResult(_("This draft does not size yet; fix its errors first."))
    engine = _design_engine(design, designs)
    catalog = services.design_catalog(design=design)
    priced = services.design_prices(design=design)
    prices = dict(priced.prices)
    if job is not None and job.gpus > engine.gpus:
        raise JobInvalid(
            _("The job's %(job)s GPUs do not fit the design's %(design)s.")
            % {"job": f"{job.gpus:,}", "design": f"{engine.gpus:,}"},
            field="gpus",
        )
    base = _estimate(job, engine)
    cost, unpriced = _cost(engine, catalog, prices)
    options = [
        Option(
            key="design", label=_short(engine), pick=_("this design"), is_design=True,
            gpus=engine.gpus, cost=cost,
            cost_per_gpu=per_unit(cost, engine.gpus),
            unpriced_lines=unpriced,
            leaf_oversubscription=base.leaf_oversubscription if base else 1.0,
            estimate=base, comparison=None, comparison_text="",
        )
    ]  # fmt: skip
    error = ""
    if with_alternatives:
        found, error = _alternatives(engine, catalog, prices)
        options.extend(
            _alternative_option(
                other, job=job, base=base, base_cost=cost, catalog=catalog, prices=prices,
                currency=priced.currency,
            )
            for other in found
        )  # fmt: skip
    report = failure_report(engine, prices)
    growth = growth_steps(engine, catalog, prices)
    variants = (
        what_if(engine, job=job, catalog=catalog, prices=prices, label=_short(engine))
        if with_what_if
        else ()
    )
    return DesignMeaning(
        design=design,
        currency=priced.currency,
        job=job,
        estimate=base,
        collectives=_collective_rows(base) if base else (),
        notes=tuple(translated(note) for note in base.notes) if base else (),
        options=tuple(options),
        alternatives_error=error,
        failures=report,
        effects=_effect_rows(report),
        growth=growth,
        growth_rows=_growth_rows(growth),
        growth_notes=tuple(translated(note) for note in growth.notes),
        what_if=variants,
    )


def component_label(component: str) -> str:
    labels = {
        "server-leaf link": _("a server-leaf link"),
        "leaf": _("a leaf switch"),
        "leaf-spine link": _("a leaf-spine link"),
        "spine": _("a spine switch"),
        "spine-core link": _("a spine-core link"),
        "core": _("a core switch"),
        "plane": _("a whole plane"),
    }
    return labels.get(component, component)


def meaning_to_json(meaning: DesignMeaning) -> dict[str, object]:
    """The API's and the CLI's answer: the engine's JSON, with its texts in the reader's
    language next to their templates."""
    return {
        "design": meaning.design.pk,
        "currency": meaning.currency,
        "job": job_to_dict(meaning.job) if meaning.job else None,
        "comms": estimate_to_json(meaning.estimate) if meaning.estimate else None,
        "options": [
            {
                "key": option.key,
                "label": option.label,
                "pick": option.pick,
                "is_design": option.is_design,
                "gpus": option.gpus,
                "cost": None if option.cost is None else str(option.cost),
                "cost_per_gpu": None if option.cost_per_gpu is None else str(option.cost_per_gpu),
                "unpriced_lines": option.unpriced_lines,
                "seconds_per_step": (
                    round(option.estimate.seconds_per_step, 6) if option.estimate else None
                ),
                **_range_json(option.estimate),
                "comparison": option.comparison.to_json() if option.comparison else None,
                "comparison_text": option.comparison_text,
            }
            for option in meaning.options
        ],
        "alternatives_error": meaning.alternatives_error,
        "what_if": [row.to_json() for row in meaning.what_if],
        "failures": {
            **meaning.failures.to_json(),
            "effects_text": [row["effect"] for row in meaning.effects],
        },
        "growth": {
            **meaning.growth.to_json(),
            "steps_text": [row["description"] for row in meaning.growth_rows],
            "notes_text": [translated(note) for note in meaning.growth.notes],
        },
    }


def _range_json(found: CommsEstimate | None) -> dict[str, float | None]:
    """An option's bound and calibration range beside its estimate (issue 28)."""
    if found is None:
        return dict.fromkeys(
            ("bound_seconds_per_step", "low_seconds_per_step", "high_seconds_per_step")
        )
    return {
        "bound_seconds_per_step": round(found.bound_seconds_per_step, 6),
        "low_seconds_per_step": round(found.low_seconds_per_step, 6),
        "high_seconds_per_step": round(found.high_seconds_per_step, 6),
    }


def estimate_to_json(found: CommsEstimate) -> dict[str, object]:
    return {
        **found.to_json(),
        "notes_text": [translated(note) for note in found.notes],
    }


def job_for_design(*, design: Design, data: object, ignore: tuple[str, ...] = ()) -> Job | None:
    """The job a form, query or JSON body names (`ignore`: keys that are not the job's, such as
    the API's `format`), or None when it names none (no field given at all)."""
    if data is None:
        return None
    if not isinstance(data, Mapping):
        raise JobInvalid(_("The job is a JSON object of job fields."))
    values = {str(key): value for key, value in data.items() if key not in ignore}
    if not any(value not in (None, "") for value in values.values()):
        return None
    return job_parse(data=values, design=design)


def _chart_words(meaning: DesignMeaning) -> dict[str, str]:
    return {
        "seconds": _("Communication per step"),
        "cost": _("Network cost per GPU"),
        "currency": meaning.currency,
        "unit_seconds": _("s"),
        "none": _("no job stated"),
        "bound": _("at most"),
    }


def meaning_chart(meaning: DesignMeaning) -> str:
    """The design and its alternatives: communication per step and network cost per GPU."""
    rows = [
        ChartRow(
            label=option.label if not option.is_design else f"{option.label} ({option.pick})",
            seconds=option.estimate.seconds_per_step if option.estimate else None,
            cost_per_gpu=option.cost_per_gpu,
            highlight=option.is_design,
            bound_seconds=option.estimate.bound_seconds_per_step if option.estimate else None,
        )
        for option in meaning.options
    ]
    return meaning_chart_svg(rows, _chart_words(meaning))


def what_if_chart(meaning: DesignMeaning) -> str:
    """The what-if variants: step time (with its bound) and cost per GPU, design first."""
    rows = [
        ChartRow(
            label=row.label if row.is_design else f"{row.label} *",
            seconds=row.seconds,
            cost_per_gpu=row.cost_per_gpu,
            highlight=row.is_design,
            bound_seconds=row.bound_seconds,
        )
        for row in meaning.what_if
        if not row.error
    ]
    return meaning_chart_svg(rows, _chart_words(meaning))


def proposal_meaning(
    design: Design | None,
    *,
    result: DesignResult | None = None,
    designs: SizedDesigns | None = None,
) -> dict[str, Any] | None:
    """The proposal's chapter: the reference job on the quoted design and its alternatives,
    failures, spares and growth; None for a quote without a saved, sized design. `result`: the
    design's stored result when the caller has already decoded it; `designs`: the engine
    designs the render has already sized."""
    if design is None or design.result is None or not design.gpus:
        return None
    typed = result if result is not None else design.typed_result
    assert typed is not None  # a stored result always decodes to one
    # Tensor parallel over the NVLink domain: a server's GPUs, or a rack-scale rack's.
    data = reference_job_data(gpus=job_gpus(design), gpus_per_server=typed.scale_up_gpus)
    try:
        job = job_parse(data=data, design=design)
    except JobInvalid:
        job = None
    found = design_meaning(design=design, job=job, designs=designs)
    parameters = int(str(data["parameters"]))
    return {
        "meaning": found,
        "chart": meaning_chart(found),
        "job": data,
        # "70B": how model sizes are written in either language.
        "parameters_label": f"{parameters / 1e9:g}B",
    }


def engine_estimate(*, design: EngineDesign, data: Mapping[str, object]) -> CommsEstimate:
    """The estimate of a job on a design just sized (the CLI's `size --job`); GPUs default to
    the design's."""
    values = {key: value for key, value in data.items() if value not in (None, "")}
    values.setdefault("gpus", design.gpus)
    try:
        job = parse_job(values)
        return estimate(job, design)
    except JobError as exc:
        raise _job_invalid(exc) from exc


def estimate_text(found: CommsEstimate) -> str:
    """The estimate as the CLI prints it, one collective a line."""
    lines = [
        _(
            "Communication per step: %(seconds)s s in cabling order, at most %(bound)s s with "
            "every member sharing the uplinks (NIC %(gbps)s Gbps per GPU at %(eff)s of line "
            "rate: %(gb)s GB/s)"
        )
        % {
            "seconds": f"{found.seconds_per_step:.4f}",
            "bound": f"{found.bound_seconds_per_step:.4f}",
            "gbps": f"{found.nic_gbps_per_gpu:g}",
            "eff": f"{found.efficiency:g}",
            "gb": f"{found.gbytes_per_s_per_gpu:.2f}",
        }
    ]
    share = found.share_of_compute
    if share is not None:
        lines.append(_("Share of compute time: %(share)s %%") % {"share": f"{share * 100:.1f}"})
    if found.bottleneck:
        lines.append(
            _("Bottleneck: %(what)s, up to the %(tier)s tier")
            % {
                "what": collective_label(found.bottleneck),
                "tier": tier_label(found.bottleneck_tier),
            }
        )
    for c in found.collectives:
        seconds = (
            f"{c.seconds:.4f} s [{c.low:.4f}-{c.high:.4f}] (<= {c.bound:.4f} s)"
            f"{', NCCL ' + c.algorithm + '/' + c.protocol if c.algorithm else ''}"
            if c.counted
            else (translated(c.note) if c.note else "-")
        )
        lines.append(
            f"  {c.name}: {c.collective}, {c.group_size} ranks, {c.bytes_per_gpu / 1e9:.3f} GB, "
            f"{c.tier} {c.oversubscription:g}:1, {seconds}"
        )
    lines.extend(translated(note) for note in found.notes)
    return "\n".join(lines)


__all__ = [
    "DesignHasNoResult",
    "DesignMeaning",
    "JobInvalid",
    "Option",
    "SizedDesigns",
    "compute_seconds",
    "design_meaning",
    "engine_estimate",
    "estimate_text",
    "job_for_design",
    "job_parse",
    "meaning_chart",
    "meaning_to_json",
    "nccl_label",
    "proposal_meaning",
    "reference_job_data",
    "what_if_chart",
]
