"""The design page's "what it means for training" section: the job form and the figures, served
as an htmx fragment (a full page without JavaScript). The figures come from
`planner.meaning.read_model`."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from planner import selectors
from planner.meaning import read_model as meaning

# The form's fields, in the order shown; each is a job field of `engine.job`.
FORM_FIELDS = (
    "parameters",
    "gpus",
    "tensor_parallel",
    "pipeline_parallel",
    "data_parallel",
    "expert_parallel",
    "precision_bytes",
    "sharding",
    "compute_seconds_per_step",
    "rail_aligned",
    "hidden_size",
    "layers",
    "tokens_per_step",
    "expert_parameters",
)


def _labels() -> dict[str, str]:
    return {
        "parameters": _("Model parameters"),
        "gpus": _("GPUs"),
        "tensor_parallel": _("Tensor parallel"),
        "pipeline_parallel": _("Pipeline parallel"),
        "data_parallel": _("Data parallel"),
        "expert_parallel": _("Expert parallel"),
        "precision_bytes": _("Precision"),
        "sharding": _("Optimizer sharding"),
        "compute_seconds_per_step": _("Compute time per step (s)"),
        "rail_aligned": _("Rail-aligned placement"),
        "hidden_size": _("Hidden size"),
        "layers": _("Layers"),
        "tokens_per_step": _("Tokens per step"),
        "expert_parameters": _("Expert parameters"),
    }


def _help() -> dict[str, str]:
    return {
        "parameters": _("A number or with a suffix: 70B, 1.2T."),
        "data_parallel": _("Empty: the GPUs over tensor x pipeline."),
        "hidden_size": _("With layers and tokens per step: tensor, pipeline and expert traffic."),
        "expert_parameters": _("Of the parameters, those in experts (mixture of experts)."),
    }


def _choices() -> dict[str, list[tuple[str, str]]]:
    return {
        "precision_bytes": [
            ("2", _("BF16 / FP16 (2 bytes)")),
            ("1", _("FP8 (1 byte)")),
            ("4", _("FP32 (4 bytes)")),
        ],
        "sharding": [
            ("none", _("none: plain data parallel")),
            ("optimizer", _("optimizer state (ZeRO-1/2)")),
            ("full", _("everything (ZeRO-3 / FSDP)")),
        ],
        "rail_aligned": [("true", _("yes")), ("false", _("no"))],
    }


def _shown(name: str, value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if name == "parameters" and isinstance(value, int) and value and value % 10**9 == 0:
        return f"{value // 10**9}B"
    return str(value)


def _fields(values: dict[str, object], errors: dict[str, str]) -> list[dict[str, Any]]:
    labels, helps, choices = _labels(), _help(), _choices()
    return [
        {
            "name": name,
            "label": labels[name],
            "value": _shown(name, values.get(name)),
            "help": helps.get(name, ""),
            "choices": choices.get(name),
            "error": errors.get(name, ""),
        }
        for name in FORM_FIELDS
    ]


@login_required
@require_GET
def design_meaning(request: HttpRequest, pk: int) -> HttpResponse:
    design = get_object_or_404(selectors.designs_visible_to(request.user), pk=pk)
    submitted = {name: request.GET.get(name, "") for name in FORM_FIELDS if name in request.GET}
    values: dict[str, object] = dict(submitted) if submitted else {}
    if not values and design.gpus:
        values = meaning.reference_job_data(gpus=meaning.job_gpus(design))
    errors: dict[str, str] = {}
    context: dict[str, Any] = {"design": design}
    job = None
    if submitted:
        try:
            job = meaning.job_for_design(design=design, data=submitted)
        except meaning.JobInvalid as exc:
            errors = exc.errors or {"": exc.message}
    if design.typed_result is not None:
        try:
            found = meaning.design_meaning(design=design, job=job)
        except meaning.JobInvalid as exc:
            errors = exc.errors or {"": exc.message}
            found = meaning.design_meaning(design=design, job=None)
        context.update(
            meaning=found,
            chart=meaning.meaning_chart(found),
            what_if_chart=meaning.what_if_chart(found),
        )
    known = set(FORM_FIELDS)
    context.update(
        fields=_fields(values, errors),
        other_errors=[message for field, message in errors.items() if field not in known],
        submitted=bool(submitted),
    )
    template = (
        "planner/_meaning_result.html"
        if request.headers.get("HX-Request")
        else "planner/meaning_page.html"
    )
    return render(request, template, context)
