"""Pages for sales engineers: the sizing wizard (live results over htmx), the design page with its
diagram, tables and exports, "copy and modify", and the list of designs."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required, permission_required
from django.contrib.auth.mixins import LoginRequiredMixin
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET, require_POST
from django_filters.views import FilterView

from catalog.selectors import default_price_list, price_map
from core.selectors import user_team
from planner import exports, selectors, services
from planner.engine.generic import DEFAULT_FORM_FACTOR
from planner.engine.request import to_dict
from planner.engine.text import Text, from_dict
from planner.filters import DesignFilterSet
from planner.forms import (
    META_FIELDS,
    STEP_KEYS,
    STEPS,
    Step,
    WizardStepForm,
    apply_scenario,
    engine_key_to_field,
    scenario_request,
    step_by_key,
    step_of_field,
)
from planner.i18n import localized_result, translated
from planner.models import Design, Scenario
from planner.plan import build_plan
from planner.svg import gantt_svg, lengths_svg, topology_svg
from quotes.models import Customer

ADD = "planner.add_design"
CHANGE = "planner.change_design"
# Choices the engine may leave open; picking an alternative replaces them in the request.
OPEN_CHOICES = ("fabric", "leaf", "spine", "core", "oversubscription")


# --- helpers ----------------------------------------------------------------------------------


def _visible(request: HttpRequest, pk: int) -> Design:
    return get_object_or_404(selectors.designs_visible_to(request.user), pk=pk)


def _editable(request: HttpRequest, pk: int) -> Design:
    """A draft its author may still change; anyone else (or a saved design) is sent to copy."""
    design = _visible(request, pk)
    if design.owner_id != request.user.pk or not design.is_draft:
        raise Http404(_("Only the author edits a draft; copy the design to change it."))
    return design


def _customers(request: HttpRequest) -> QuerySet[Customer]:
    team = user_team(request.user)
    if getattr(request.user, "is_superuser", False):
        return Customer.objects.all()
    return Customer.objects.filter(team=team) if team else Customer.objects.none()


def _form(step: Step, request: HttpRequest, data: Any = None, initial: Any = None) -> Any:
    return WizardStepForm(
        step,
        data=data,
        initial=initial,
        catalog=selectors.current_catalog(),
        customers=_customers(request),
    )


def _initial(design: Design | None, scenario_data: Mapping[str, Any]) -> dict[str, object]:
    initial = WizardStepForm.initial_from(scenario_data)
    if design is not None:
        initial.update(name=design.name, customer=design.customer_id, scenario=design.scenario)
    return initial


def _currency() -> str:
    price_list = default_price_list()
    return price_list.currency if price_list else ""


def _media_mix(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    mix: dict[str, dict[str, int]] = defaultdict(lambda: {"links": 0, "cables": 0, "optics": 0})
    for link in result.get("links", []):
        entry = mix[link["media"]]
        entry["links"] += link["count"]
        entry["cables"] += link["cables"]
        entry["optics"] += link.get("transceivers", 0)
    total = sum(entry["links"] for entry in mix.values()) or 1
    return [
        {"media": media, **entry, "share": round(100 * entry["links"] / total)}
        for media, entry in sorted(mix.items(), key=lambda item: -item[1]["links"])
    ]


def gap_texts(result: Mapping[str, Any]) -> dict[str, Text]:
    """The generic parts of a design (catalog gaps), by the English name the engine gave them,
    with their translatable texts: links and cabling rows name a generic part in English only."""
    texts: dict[str, Text] = {}
    for line in result.get("bom") or []:
        text = line.get("description_text") if isinstance(line, Mapping) else None
        if line.get("catalog_gap") and isinstance(text, Mapping):
            texts.setdefault(str(line.get("description") or ""), from_dict(text))
    return texts


def part_name(sku: str | None, name: str, gaps: Mapping[str, Text]) -> str:
    """A part as the reader names it: its SKU, or a generic part's name in their language."""
    if sku:
        return sku
    text = gaps.get(name)
    return translated(text) if text is not None else name


def product_names(result: Mapping[str, Any]) -> dict[str, str]:
    """The catalog's names of a design's products in the reader's language (the result keeps
    the English names it was sized with); products since removed keep those."""
    from catalog.models import Product

    skus = {str(line.get("sku")) for line in result.get("bom") or [] if line.get("sku")}
    for link in result.get("links") or []:
        skus.update(str(line.get("sku")) for line in link.get("fibre") or [] if line.get("sku"))
    if not skus:
        return {}
    return {
        p.sku: p.name
        for p in Product.objects.filter(sku__in=skus).only("sku", "name_en", "name_zh")
        if p.name
    }


def localized_bom(
    bom: list[Mapping[str, Any]], names: Mapping[str, str] | None = None
) -> list[dict[str, Any]]:
    """BOM entries in the reader's language: a generic part's description from its text, a
    catalog product's from `names` (`product_names`)."""
    lines = []
    for line in bom:
        entry = dict(line)
        text = line.get("description_text")
        if line.get("catalog_gap") and isinstance(text, Mapping):
            entry["description"] = translated(from_dict(text))
        elif names and line.get("sku") in names:
            entry["description"] = names[str(line["sku"])]
        # Results stored before the engine kept maxima: the typical figure.
        entry.setdefault("power_max_w", entry.get("power_w", 0))
        entry["plane_label"] = plane_label(str(line.get("plane") or ""))
        entry["tier_label"] = tier_label(str(line.get("tier") or ""))
        lines.append(entry)
    return lines


def tier_label(tier: str) -> str:
    """A BOM line's tier ("leaf") or tier pair ("server-leaf") in words."""
    return "–".join(_role_label(role) for role in tier.split("-")) if tier else ""


def _role_label(role: str) -> str:
    labels = {
        "server": _("Server"),
        "endpoint": _("Endpoint"),
        "storage": _("Storage node"),
        "leaf": _("Leaf"),
        "spine": _("Spine"),
        "core": _("Core"),
    }
    return labels.get(role, role)


def role_labels() -> dict[str, str]:
    """Tier and plane names for the drawings (`planner.svg.lengths_svg`)."""
    roles = ("server", "endpoint", "storage", "leaf", "spine", "core")
    planes = ("compute", "storage", "frontend", "oob")
    return {
        **{f"role_{role}": _role_label(role) for role in roles},
        **{f"plane_{plane}": plane_label(plane) for plane in planes},
    }


def _labelled(result: dict[str, Any]) -> dict[str, Any]:
    """The result with its fabric, planes and tiers named in words for the pages."""
    result["fabric_label"] = fabric_label(str(result.get("fabric") or ""))
    planes = []
    for plane in result.get("planes", []):
        named = {**plane, "label": plane_label(str(plane.get("name") or ""))}
        named["tiers"] = [
            {**tier, "role_label": _role_label(str(tier.get("role") or ""))}
            for tier in plane.get("tiers", [])
        ]
        planes.append(named)
    result["planes"] = planes
    return result


def fabric_label(fabric: str) -> str:
    labels = {
        "rail": _("Rail-optimized"),
        "rail-plane": _("Rail planes"),
        "tor": _("Top of rack"),
        "packed": _("Packed"),
    }
    return labels.get(fabric, fabric)


def plane_label(plane: str) -> str:
    labels = {
        "compute": _("Compute fabric"),
        "storage": _("Storage"),
        "frontend": _("Frontend"),
        "oob": _("Out-of-band management"),
    }
    return labels.get(plane, plane)


def _end_row(end: Any, role: str, speed: int) -> dict[str, Any]:
    """One end of a link group: "Leaf · QSFP28 × 4 (4x25G)" = role, cage form factor, cages,
    and the links each cage carries when it is broken out."""
    if not isinstance(end, Mapping):  # a result stored before the engine described its ends
        return {"role": _role_label(role), "label": _role_label(role), "cages": None}
    form = end.get("form_factor") or _("NIC")
    cages = int(end.get("cages") or 0)
    per_cage = int(end.get("links_per_cage") or 1)
    role_label = _role_label(str(end.get("role") or role))
    label = f"{role_label} · {form} × {cages:,}"
    if per_cage > 1:
        label += f" ({per_cage}x{speed}G)"
    return {
        "role": role_label,
        "form_factor": form,
        "cages": cages,
        "links_per_cage": per_cage,
        "breakout": f"{per_cage}x{speed}G" if per_cage > 1 else "",
        "label": label,
    }


def _generic_module(
    link: Mapping[str, Any], end: Any, bom: list[Mapping[str, Any]], gaps: Mapping[str, Text]
) -> str:
    """The name of the generic module at one end: the link keeps no name for it, the BOM does
    (one line per generic module of the tier pair; the module's speed and cage tell them apart)."""
    pair = f"{link.get('a')}-{link.get('b')}"
    candidates = [
        str(line.get("description") or "")
        for line in bom
        if line.get("catalog_gap")
        and line.get("category") == "transceiver"
        and line.get("plane") == link.get("plane")
        and line.get("tier") == pair
    ]
    speed = int(link.get("speed_gbps") or 0)
    if isinstance(end, Mapping):
        speed *= int(end.get("links_per_cage") or 1)
        form = end.get("form_factor")
        default = DEFAULT_FORM_FACTOR.get(int(link.get("speed_gbps") or 0))
        form = form or (default.value if default else "")
        prefix = f"{speed:,}G {form} "
        fitting = [name for name in candidates if name.startswith(prefix)]
        candidates = fitting or candidates
    if candidates:
        return part_name("", candidates[0], gaps)
    return _("Generic module")


def link_rows(
    result: Mapping[str, Any], catalog_names: Mapping[str, str] | None = None
) -> list[dict[str, Any]]:
    """How each link group is built, for the design page and the proposal: both ends, the cable
    or assembly, the modules at each end and the passive fibre, generic parts marked."""
    bom = [line for line in result.get("bom") or [] if isinstance(line, Mapping)]
    gaps = gap_texts(result)
    names = {
        str(line["sku"]): str(line.get("description") or "") for line in bom if line.get("sku")
    }
    for link in result.get("links") or []:
        for line in link.get("fibre") or []:
            if line.get("sku"):
                names.setdefault(str(line["sku"]), str(line.get("description") or ""))
    names.update(catalog_names or {})
    rows = []
    for link in result.get("links") or []:
        speed = int(link.get("speed_gbps") or 0)
        ends = {
            side: _end_row(link.get(f"end_{side}"), str(link.get(side) or ""), speed)
            for side in ("a", "b")
        }
        modules = []
        for side in ("a", "b"):
            sku = link.get(f"transceiver_sku_{side}")
            count = int(link.get(f"transceivers_{side}") or 0)
            if sku is None or not count:
                continue
            end = link.get(f"end_{side}")
            modules.append(
                {
                    "end": ends[side]["role"],
                    "name": sku or _generic_module(link, end, bom, gaps),
                    "description": names.get(sku, "") if sku else "",
                    "quantity": count,
                    "generic": not sku,
                }
            )
        fibre = [
            {
                "kind": str(line.get("kind") or ""),
                "kind_label": _fibre_kind(str(line.get("kind") or "")),
                "name": part_name(line.get("sku"), str(line.get("description") or ""), gaps),
                "description": names.get(str(line.get("sku")), "") if line.get("sku") else "",
                "quantity": int(line.get("quantity") or 0),
                "note": _("%(n)s ports used") % {"n": f"{int(line['ports_used']):,}"}
                if line.get("ports_used")
                else "",
                "generic": not line.get("sku"),
            }
            for line in link.get("fibre") or []
        ]
        cable_sku = str(link.get("cable_sku") or "")
        cable_name = str(link.get("cable_description") or cable_sku)
        cable = {
            "name": part_name(cable_sku, cable_name, gaps),
            "description": names.get(cable_sku, cable_name) if cable_sku else "",
            "quantity": int(link.get("cables") or 0),
            "note": _links_per_cable(int(link.get("links_per_cable") or 1)),
            "generic": not cable_sku,
        }
        rows.append(
            {
                "plane": link.get("plane", ""),
                "plane_label": plane_label(str(link.get("plane") or "")),
                "a": _role_label(str(link.get("a") or "")),
                "b": _role_label(str(link.get("b") or "")),
                "speed_gbps": speed,
                "media": str(link.get("media") or ""),
                "length_m": link.get("length_m"),
                "count": int(link.get("count") or 0),
                "end_a": ends["a"],
                "end_b": ends["b"],
                # Optical links: the fibre lines say it all (the run's fibre is the first).
                "cable": None if fibre else cable,
                "fibre": fibre,
                "modules": modules,
                "catalog_gap": bool(link.get("catalog_gap")),
            }
        )
    return rows


def _links_per_cable(n: int) -> str:
    if n <= 1:
        return ""
    return ngettext("%(n)s link per cable", "%(n)s links per cable", n) % {"n": n}


def _fibre_kind(kind: str) -> str:
    labels = {"patch_cord": _("Patch cord"), "trunk": _("Trunk"), "patch_panel": _("Patch panel")}
    return labels.get(kind, kind)


def _summary(
    result: Mapping[str, Any], prices: Mapping[str, Any], names: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """What the wizard's live panel and the design page show, from the engine's result."""
    estimate = selectors.bom_estimate(result.get("bom", []), dict(prices))
    # Generic parts (catalog gaps) have no SKU: named in the reader's language, to be priced.
    estimate["lines"] = localized_bom(estimate["lines"], names)  # type: ignore[arg-type]
    estimate["unpriced"] = [sku for sku in estimate["unpriced"] if sku]  # type: ignore[attr-defined]
    gpus = result.get("gpus") or 1
    total: Decimal = estimate["total"]  # type: ignore[assignment]
    return {
        "result": _labelled(localized_result(result)),
        "switches_total": sum(result.get("switches", {}).values()),
        "media_mix": _media_mix(result),
        "estimate": estimate,
        "price_per_gpu": (total / gpus).quantize(Decimal("0.01")) if total else None,
        "currency": _currency(),
        "gap_lines": sum(1 for line in result.get("bom", []) if line.get("catalog_gap")),
        # What the estimate leaves out: generic parts by name, products without a price by SKU.
        "not_priced": list(
            dict.fromkeys(
                [line["description"] for line in estimate["lines"] if line.get("catalog_gap")]  # type: ignore[attr-defined]
                + estimate["unpriced"]  # type: ignore[operator]
            )
        ),
    }


def _size(request_data: Mapping[str, Any]) -> tuple[dict[str, Any] | None, dict[str, str], str]:
    """(result, field errors, not-feasible message) for a request."""
    try:
        sized = services.design_size(request_data=request_data)
    except services.DesignRequestInvalid as exc:
        return None, exc.errors or {"": exc.message}, ""
    except services.DesignNotFeasible as exc:
        return None, {}, exc.message
    return sized.result, {}, ""


def _elsewhere(errors: Mapping[str, str], step: Step) -> list[dict[str, str]]:
    """Errors about fields of other steps, with the step to fix them in."""
    out = []
    for key, message in errors.items():
        field = engine_key_to_field(key)
        if field in step.fields:
            continue
        where = step_of_field(field)
        out.append(
            {
                "field": key,
                "message": message,
                "step": where.key if where else "",
                "step_title": str(where.title) if where else "",
            }
        )
    return out


def _panel_context(request_data: Mapping[str, Any], step: Step, form: Any) -> dict[str, Any]:
    result, errors, infeasible = _size(request_data)
    form.add_engine_errors(errors)
    context: dict[str, Any] = {
        "other_errors": _elsewhere(errors, step),
        "infeasible": infeasible,
        "form": form,
        "step": step,
    }
    if result is not None:
        context.update(_summary(result, price_map()))
    return context


def _step_nav(step: Step) -> dict[str, Any]:
    index = STEP_KEYS.index(step.key)
    return {
        "steps": STEPS,
        "step_index": index + 1,
        "previous_step": STEPS[index - 1] if index else None,
        "next_step": STEPS[index + 1] if index + 1 < len(STEPS) else None,
    }


# --- the wizard -------------------------------------------------------------------------------


@login_required
@permission_required(ADD, raise_exception=True)
def design_new(request: HttpRequest) -> HttpResponse:
    """Step one for a new design; posting it creates the draft."""
    step = STEPS[0]
    if request.method == "POST":
        form = _form(step, request, data=request.POST)
        form.is_valid()
        scenario = form.cleaned_data.get("scenario") or Scenario.LLM_TRAINING
        design = services.design_save_draft(
            owner=request.user,  # type: ignore[arg-type]
            request_data=scenario_request(scenario),
            name=form.cleaned_data.get("name", ""),
            scenario=scenario,
            customer=form.cleaned_data.get("customer"),
        )
        return redirect("planner:wizard", pk=design.pk, step=STEPS[1].key)
    scenario = request.GET.get("scenario") or Scenario.LLM_TRAINING
    request_data = scenario_request(scenario)
    form = _form(step, request, initial=_initial(None, request_data) | {"scenario": scenario})
    context = {
        "design": None,
        "form": form,
        "preview_url": reverse("planner:design-new-preview"),
        **_step_nav(step),
        **_panel_context(request_data, step, form),
    }
    return render(request, "planner/wizard.html", context)


@login_required
@permission_required(ADD, raise_exception=True)
@require_POST
def design_new_preview(request: HttpRequest) -> HttpResponse:
    step = STEPS[0]
    form = _form(step, request, data=request.POST)
    form.is_valid()
    request_data = scenario_request(request.POST.get("scenario") or Scenario.LLM_TRAINING)
    return render(request, "planner/_live.html", _panel_context(request_data, step, form))


def _save_step(request: HttpRequest, design: Design, step: Step, form: Any) -> dict[str, Any]:
    """Merge the posted step into the draft's request and save it; returns the merged request."""
    form.is_valid()
    request_data = form.merge_into(design.request)
    name, customer, scenario = design.name, design.customer, design.scenario
    if "scenario" in form.fields:
        name = form.cleaned_data.get("name") or name
        customer = form.cleaned_data.get("customer")
        new_scenario = form.cleaned_data.get("scenario") or scenario
        if new_scenario != scenario:
            request_data = apply_scenario(request_data, new_scenario)
        scenario = new_scenario
    services.design_save_draft(
        owner=design.owner,
        request_data=request_data,
        name=name,
        scenario=scenario,
        customer=customer,
        design=design,
    )
    return request_data


@login_required
@permission_required(CHANGE, raise_exception=True)
def wizard(request: HttpRequest, pk: int, step: str) -> HttpResponse:
    design = _editable(request, pk)
    current = step_by_key(step)
    if current is None:
        raise Http404
    if current.key == "review":
        return _review(request, design, current)
    if request.method == "POST":
        form = _form(current, request, data=request.POST)
        request_data = _save_step(request, design, current, form)
        action = request.POST.get("action", "next")
        context = _panel_context(request_data, current, form)
        nav = _step_nav(current)
        if action == "back" and nav["previous_step"]:
            return redirect("planner:wizard", pk=design.pk, step=nav["previous_step"].key)
        if action == "next" and not form.errors:
            messages.success(request, _("Draft saved."))
            return redirect("planner:wizard", pk=design.pk, step=nav["next_step"].key)
        if action == "save" and not form.errors:
            messages.success(request, _("Draft saved."))
    else:
        form = _form(current, request, initial=_initial(design, design.request))
        if current.key != STEPS[0].key:
            # Bound to the draft's values, so what is wrong shows next to each field at once.
            form = _form(current, request, data=_as_post(form))
            form.is_valid()
        context = _panel_context(design.request, current, form)
    context.update(
        design=design,
        form=form,
        preview_url=reverse("planner:wizard-preview", args=[design.pk, current.key]),
        **_step_nav(current),
    )
    return render(request, "planner/wizard.html", context)


def _as_post(form: Any) -> dict[str, Any]:
    """An unbound form's initial values as the POST data that would submit them unchanged."""
    data: dict[str, Any] = {}
    for name, field in form.fields.items():
        value = form.initial.get(name, field.initial)
        if value is None or value is False:
            continue
        data[name] = "on" if value is True else value
    return data


@login_required
@permission_required(CHANGE, raise_exception=True)
@require_POST
def wizard_preview(request: HttpRequest, pk: int, step: str) -> HttpResponse:
    """The live results panel (and the field errors, out of band) for what the step holds now.
    The draft is saved too, so that leaving the page loses nothing."""
    design = _editable(request, pk)
    current = step_by_key(step)
    if current is None or current.key == "review":
        raise Http404
    form = _form(current, request, data=request.POST)
    request_data = _save_step(request, design, current, form)
    return render(request, "planner/_live.html", _panel_context(request_data, current, form))


def _alternatives(request_data: Mapping[str, Any]) -> tuple[list[dict[str, Any]], str]:
    prices = price_map()
    try:
        options = services.design_alternatives(request_data=request_data, prices=prices)
    except (services.DesignRequestInvalid, services.DesignNotFeasible) as exc:
        return [], exc.message
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for option in options:
        # Different open choices can build the same network (a one-tier fabric has no
        # oversubscription to choose); offer it once.
        result = option.result
        key = json.dumps([result["fabric"], result["switches"], result["power_w"]], sort_keys=True)
        if key in seen:
            continue
        seen.add(key)
        summary = _summary(result, prices)
        out.append(
            {
                "index": len(out),
                "choices": {k: v for k, v in to_dict(option.request).items() if k in OPEN_CHOICES},
                "notes": summary["result"].get("notes", []),
                **summary,
            }
        )
    return out, ""


def _review(request: HttpRequest, design: Design, step: Step) -> HttpResponse:
    form = _form(step, request)
    if request.method == "POST":
        try:
            services.design_finalize(design=design)
        except services.DesignRequestInvalid as exc:
            messages.error(request, _("The design does not size yet; fix the fields below."))
            context = _panel_context(design.request, step, form)
            context["other_errors"] = _elsewhere(exc.errors, step)
        except services.DesignNotFeasible as exc:
            messages.error(request, exc.message)
            context = _panel_context(design.request, step, form)
        else:
            messages.success(request, _("Design saved."))
            return redirect("planner:design-detail", pk=design.pk)
    else:
        context = _panel_context(design.request, step, form)
    alternatives, alternatives_error = (
        _alternatives(design.request) if context.get("result") else ([], "")
    )
    context.update(
        design=design,
        alternatives=alternatives,
        alternatives_error=alternatives_error,
        **_step_nav(step),
    )
    return render(request, "planner/review.html", context)


@login_required
@permission_required(CHANGE, raise_exception=True)
@require_POST
def wizard_pick(request: HttpRequest, pk: int) -> HttpResponse:
    """Take one of the engine's alternatives: its choices replace the request's open ones."""
    design = _editable(request, pk)
    options, _error = _alternatives(design.request)
    try:
        chosen = options[int(request.POST.get("index", ""))]
    except (ValueError, IndexError):
        messages.error(request, _("That alternative is no longer offered; pick again."))
        return redirect("planner:wizard", pk=design.pk, step="review")
    request_data = {k: v for k, v in design.request.items() if k not in OPEN_CHOICES}
    request_data.update(chosen["choices"])
    services.design_save_draft(
        owner=design.owner,
        request_data=request_data,
        name=design.name,
        scenario=design.scenario,
        customer=design.customer,
        design=design,
    )
    messages.success(request, _("Alternative applied to the draft."))
    return redirect("planner:wizard", pk=design.pk, step="review")


# --- design page and exports ------------------------------------------------------------------


def topology_labels() -> dict[str, str]:
    return {
        "title": _("Network topology"),
        "server": _("Servers"),
        "storage": _("Storage nodes"),
        "leaf": _("Leaf"),
        "spine": _("Spine"),
        "core": _("Core"),
        "compute": _("Compute plane"),
        "frontend": _("Frontend plane"),
        "oob": _("Out-of-band plane"),
        "storage_plane": _("Storage plane"),
        "links": _("links"),
        "switches": _("switches"),
        "servers": _("servers"),
        "one_server": _("server"),
        "endpoint": _("Endpoints"),
        "group": _("SU"),
        "pod": _("pod"),
        "more": _("more"),
        "planes": _("identical planes"),
        "per_server": _("GPUs each"),
        "ports_used": _("ports used"),
    }


PHASE_LABELS = {
    "requirements": "Requirements",
    "design": "Design",
    "poc": "Proof of concept",
    "pilot": "Pilot",
    "full": "Full deployment",
    "operations": "Operations",
}


def _gantt(result: Mapping[str, Any]) -> tuple[Any, str]:
    compute = (result.get("planes") or [{}])[0]
    plan = build_plan(
        servers=max(1, int(result.get("servers", 1))),
        su_servers=int(compute.get("group_servers") or result.get("servers", 1)),
        cables=int(result.get("cables_total", 0)),
        switches=sum(result.get("switches", {}).values()),
        bom=result.get("bom", []),
        start=timezone.localdate(),
    )
    labels = {key: _(label) for key, label in PHASE_LABELS.items()}
    labels["title"] = _("Implementation plan")
    return plan, gantt_svg(plan, labels)


def _tier_rows(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for plane in result.get("planes", []):
        for tier in plane["tiers"]:
            down = tier["downlinks"] * tier["downlink_speed_gbps"]
            up = tier["uplinks"] * tier["uplink_speed_gbps"]
            rows.append(
                {
                    "plane": plane["name"],
                    **tier,
                    "plane_label": plane_label(plane["name"]),
                    "role_label": _role_label(tier["role"]),
                    "down_gbps": down,
                    "up_gbps": up,
                }
            )
    return rows


def _power_rows(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    groups: dict[tuple[str, str], dict[str, int]] = defaultdict(
        lambda: {"quantity": 0, "power_w": 0, "power_max_w": 0, "rack_units": 0}
    )
    for line in result.get("bom", []):
        entry = groups[(line.get("plane", ""), line.get("category", ""))]
        entry["quantity"] += int(line.get("quantity", 0))
        entry["power_w"] += int(line.get("power_w", 0))
        # Results stored before the engine kept maxima: the typical figure.
        entry["power_max_w"] += int(line.get("power_max_w", line.get("power_w", 0)))
        entry["rack_units"] += int(line.get("rack_units", 0))
    return [
        {"plane": p, "plane_label": plane_label(p), "category": c,
         "category_label": _category_label(c), **v}
        for (p, c), v in sorted(groups.items())
    ]  # fmt: skip


def _category_label(category: str) -> str:
    labels = {
        "nic": _("NICs"),
        "switch": _("Switches"),
        "transceiver": _("Transceivers"),
        "cable": _("Cables and fibre"),
        "patch_panel": _("Patch panels"),
    }
    return labels.get(category, category)


@login_required
@require_GET
def design_detail(request: HttpRequest, pk: int) -> HttpResponse:
    design = _visible(request, pk)
    context: dict[str, Any] = {
        "design": design,
        "can_edit": design.is_draft and design.owner_id == request.user.pk,
        "can_copy": request.user.has_perm(ADD),
    }
    result = design.result
    if result:
        plan, gantt = _gantt(result)
        names = product_names(result)
        links = link_rows(result, names)
        context.update(
            _summary(result, price_map(), names),
            topology=topology_svg(result, topology_labels()),
            lengths=lengths_svg(
                result, {"title": _("Cable lengths"), "links": _("links"), **role_labels()}
            ),
            tier_rows=_tier_rows(result),
            link_rows=links,
            link_gaps=any(row["catalog_gap"] for row in links),
            power_rows=_power_rows(result),
            power_max_w=result.get("power_max_w", result.get("power_w", 0)),
            plan=plan,
            gantt=gantt,
            phase_labels={key: _(label) for key, label in PHASE_LABELS.items()},
        )
    return render(request, "planner/design_detail.html", context)


def _download(content: bytes, content_type: str, filename: str) -> HttpResponse:
    response = HttpResponse(content, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def _sized(request: HttpRequest, pk: int) -> Design:
    design = _visible(request, pk)
    if not design.result:
        raise Http404(_("This draft does not size yet; fix its errors first."))
    return design


@login_required
@require_GET
def export_bom_csv(request: HttpRequest, pk: int) -> HttpResponse:
    design = _sized(request, pk)
    return _download(
        exports.bom_csv(design.result or {}), "text/csv", f"design-{design.pk}-bom.csv"
    )


@login_required
@require_GET
def export_bom_xlsx(request: HttpRequest, pk: int) -> HttpResponse:
    design = _sized(request, pk)
    return _download(
        exports.bom_xlsx(design.result or {}, title=design.name),
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        f"design-{design.pk}-bom.xlsx",
    )


@login_required
@require_GET
def export_cabling_csv(request: HttpRequest, pk: int) -> StreamingHttpResponse:
    design = _sized(request, pk)
    rows = services.design_cabling(design=design)
    response = StreamingHttpResponse(exports.cabling_csv_chunks(rows), content_type="text/csv")
    response["Content-Disposition"] = f'attachment; filename="design-{design.pk}-cabling.csv"'
    return response


@login_required
@require_GET
def export_request_json(request: HttpRequest, pk: int) -> HttpResponse:
    design = _visible(request, pk)
    body = json.dumps(design.request, indent=2, ensure_ascii=False, sort_keys=True) + "\n"
    return _download(body.encode(), "application/json", f"design-{design.pk}-request.json")


@login_required
@permission_required(ADD, raise_exception=True)
@require_POST
def design_copy(request: HttpRequest, pk: int) -> HttpResponse:
    design = _visible(request, pk)
    copy = services.design_copy(design=design, owner=request.user)  # type: ignore[arg-type]
    messages.success(request, _("Copied; change what you need and save."))
    return redirect("planner:wizard", pk=copy.pk, step=STEPS[1].key)


# --- list -------------------------------------------------------------------------------------


class DesignListView(LoginRequiredMixin, FilterView):
    filterset_class = DesignFilterSet
    template_name = "planner/design_list.html"
    context_object_name = "designs"
    paginate_by = 25
    strict = False

    def get_queryset(self) -> QuerySet[Design]:
        return selectors.designs_visible_to(self.request.user).order_by("-created_at", "-id")

    def get_filterset(self, filterset_class: Any) -> Any:
        filterset = super().get_filterset(filterset_class)
        fields = filterset.form.fields
        # Only what this engineer may see: their team's customers and colleagues.
        fields["customer"].queryset = _customers(self.request)
        visible = selectors.designs_visible_to(self.request.user)
        author_model = fields["author"].queryset.model
        fields["author"].queryset = author_model.objects.filter(
            pk__in=visible.values("owner")
        ).order_by("username")
        for name in ("created_after", "created_before"):
            fields[name].widget.input_type = "date"
        for name in ("gpus_min", "gpus_max"):
            fields[name].widget.attrs.update(min=0, inputmode="numeric")
        return filterset

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        query = self.request.GET.copy()
        query.pop("page", None)
        context.update(
            querystring=query.urlencode(),
            filtered=any(v for k, v in self.request.GET.items() if k != "page"),
            can_add=self.request.user.has_perm(ADD),
            meta_fields=META_FIELDS,
        )
        return context
