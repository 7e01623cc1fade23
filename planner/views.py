"""Pages for sales engineers: the sizing wizard (live results over htmx), the design page with its
diagram, tables and exports, "copy and modify", and the list of designs."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required, permission_required
from django.contrib.auth.mixins import LoginRequiredMixin
from django.db.models import QuerySet
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseBase,
)
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST
from django_filters.views import FilterView

from catalog.selectors import default_price_list, price_map
from core.downloads import download
from core.view_errors import refused_as_message
from customers.models import Customer
from customers.selectors import customers_visible_to
from engine.money import per_unit
from engine.request import to_dict
from engine.result import DesignResult
from planner import i18n, presenters, resize, selectors, services
from planner.exports import files as exports
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
from planner.models import Design, Scenario
from planner.pool_rows import pool_rows
from planner.svg import lengths_svg, topology_svg

ADD = "planner.add_design"
CHANGE = "planner.change_design"
# Choices the engine may leave open; picking an alternative replaces them in the request.
OPEN_CHOICES = (
    "fabric", "leaf", "spine", "core", "oversubscription", "oversubscription_tolerance", "planes",
    "uplink_speed",
)  # fmt: skip


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
    return customers_visible_to(request.user)


def _form(step: Step, request: HttpRequest, data: Any = None, initial: Any = None) -> Any:
    return WizardStepForm(
        step,
        data=data,
        initial=initial,
        catalog=selectors.current_catalog(),
        request=request,
    )


def _initial(design: Design | None, scenario_data: Mapping[str, Any]) -> dict[str, object]:
    initial = WizardStepForm.initial_from(scenario_data)
    if design is not None:
        initial.update(name=design.name, customer=design.customer_id, scenario=design.scenario)
    return initial


def _currency() -> str:
    price_list = default_price_list()
    return price_list.currency if price_list else ""


def _summary(
    result: DesignResult,
    prices: Mapping[str, Decimal],
    names: Mapping[str, str] | None = None,
    currency: str | None = None,
) -> dict[str, Any]:
    """What the wizard's live panel and the design page show, from the engine's result."""
    priced = presenters.estimate(result, prices, names)
    total = priced.total
    return {
        "result": presenters.shown_result(result),
        "switches_total": result.switches_total,
        "media_mix": presenters.media_mix(result),
        "estimate": priced,
        "price_per_gpu": per_unit(total, result.gpus_total) if total else None,
        "pools": pool_rows(result),
        "currency": _currency() if currency is None else currency,
        "gap_lines": sum(1 for line in result.bom if line.catalog_gap),
        # What the estimate leaves out: generic parts by name, products without a price by SKU.
        "not_priced": list(
            dict.fromkeys(
                [row.description for row in priced.lines if row.catalog_gap] + list(priced.unpriced)
            )
        ),
    }


def _size(request_data: Mapping[str, Any]) -> tuple[DesignResult | None, dict[str, str], str]:
    """(result, field errors, not-feasible message) for a request."""
    try:
        sized = services.design_size(request_data=request_data)
    except services.DesignRequestInvalid as exc:
        return None, exc.errors or {"": exc.message}, ""
    except services.DesignNotFeasible as exc:
        return None, {}, exc.message
    return sized.value, {}, ""


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


def design_refusals(view: Callable[..., HttpResponseBase]) -> Callable[..., HttpResponseBase]:
    """Wraps a view of one design (`pk`) whose output is derived from it again (cabling, racks,
    labels): when the services refuse to derive it (the engine would no longer give the saved
    result), the design page says why, instead of a server error or a changed file."""

    @functools.wraps(view)
    def wrapped(request: HttpRequest, pk: int, *args: Any, **kwargs: Any) -> HttpResponseBase:
        try:
            return view(request, pk, *args, **kwargs)
        except (services.DesignEngineChanged, services.DesignFrozen) as exc:
            # Frozen: saved meanwhile (another tab finished the wizard); its page says so.
            messages.error(request, exc.message)
            return redirect("planner:design-detail", pk=pk)

    return wrapped


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
    request_data: dict[str, Any] = form.merge_into(design.request)
    name, customer, scenario = design.name, design.customer, design.scenario
    if "scenario" in form.fields:
        name = form.cleaned_data.get("name") or name
        customer = form.cleaned_data.get("customer")
        new_scenario = form.cleaned_data.get("scenario") or scenario
        if new_scenario != scenario:
            request_data = apply_scenario(request_data, new_scenario)
        scenario = new_scenario
    services.design_save_draft(
        owner=request.user,  # type: ignore[arg-type]  # login_required
        request_data=request_data,
        name=name,
        scenario=scenario,
        customer=customer,
        design=design,
    )
    return request_data


@design_refusals
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
        result = option.value
        key = json.dumps([result.fabric, dict(result.switches), result.power_w], sort_keys=True)
        if key in seen:
            continue
        seen.add(key)
        summary = _summary(result, prices)
        out.append(
            {
                "index": len(out),
                "choices": {k: v for k, v in to_dict(option.request).items() if k in OPEN_CHOICES},
                "notes": summary["result"].notes,
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


@design_refusals
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
        owner=request.user,  # type: ignore[arg-type]  # login_required
        request_data=request_data,
        name=design.name,
        scenario=design.scenario,
        customer=design.customer,
        design=design,
    )
    messages.success(request, _("Alternative applied to the draft."))
    return redirect("planner:wizard", pk=design.pk, step="review")


# --- design page and exports ------------------------------------------------------------------


@login_required
@require_GET
def design_detail(request: HttpRequest, pk: int) -> HttpResponse:
    design = _visible(request, pk)
    context: dict[str, Any] = {
        "design": design,
        "can_edit": design.is_draft and design.owner_id == request.user.pk,
        "can_copy": request.user.has_perm(ADD),
        **_lifecycle_actions(request, design),
    }
    result = design.typed_result
    if result is not None:
        plan, gantt = presenters.gantt(result, start=timezone.localdate())
        names = presenters.product_names(result)
        links = presenters.link_rows(result, names)
        # The prices it was sized with, not today's: a saved design is frozen.
        priced = services.design_prices(design=design)
        context.update(
            _summary(result, priced.prices, names, priced.currency),
            can_resize=not design.is_draft and request.user.has_perm(ADD),
            topology=topology_svg(result, presenters.topology_labels()),
            lengths=lengths_svg(
                result,
                {"title": _("Cable lengths"), "links": _("links"), **presenters.role_labels()},
            ),
            tier_rows=presenters.tier_rows(result),
            link_rows=links,
            link_gaps=any(row["catalog_gap"] for row in links),
            power_rows=presenters.power_rows(result),
            power_max_w=result.power_max_w,
            plan=plan,
            gantt=gantt,
            phase_labels=i18n.plan_labels(),
        )
    return render(request, "planner/design_detail.html", context)


def _lifecycle_actions(request: HttpRequest, design: Design) -> dict[str, Any]:
    """Which of "make a quote", archive and delete the page offers: only what the services
    would allow (they decide again on POST)."""
    mine = design.owner_id == request.user.pk or request.user.is_superuser
    quoted = mine and design.quotes.exists()
    quotable = not design.is_draft and design.archived_at is None and design.result is not None
    return {
        "quote_url": f"{reverse('quotes:quote-create')}?design={design.pk}"
        if quotable and request.user.has_perm("quotes.add_quote")
        else "",
        "can_archive": mine and not quoted,
        "can_delete": mine and not quoted,
    }


@login_required
@require_POST
def design_archive(request: HttpRequest, pk: int) -> HttpResponse:
    design = _visible(request, pk)
    archive = request.POST.get("archived", "1") == "1"
    with refused_as_message(request):
        services.design_archive(
            design=design,
            user=request.user,  # type: ignore[arg-type]  # login_required
            archived=archive,
        )
        if archive:
            messages.success(
                request, _("Design archived: the list shows it under “Show archived”.")
            )
        else:
            messages.success(request, _("Design restored to the lists."))
    return redirect("planner:design-detail", pk=design.pk)


@login_required
@require_POST
def design_delete(request: HttpRequest, pk: int) -> HttpResponse:
    design = _visible(request, pk)
    name = design.name
    with refused_as_message(request):
        services.design_delete(design=design, user=request.user)  # type: ignore[arg-type]
        messages.success(request, _("Design “%(name)s” deleted.") % {"name": name})
        return redirect("planner:design-list")
    return redirect("planner:design-detail", pk=design.pk)


def _sized(request: HttpRequest, pk: int) -> Design:
    """A design the user may see that has a stored result (a draft that does not size has
    none): its exports read that result and the prices it was saved with."""
    design = _visible(request, pk)
    if design.result is None:
        raise Http404(_("This draft does not size yet; fix its errors first."))
    return design


@login_required
@require_GET
def export_bom_csv(request: HttpRequest, pk: int) -> HttpResponse:
    design = _sized(request, pk)
    return download(
        exports.design_bom_csv(design=design, readable=True),
        filename=f"design-{pk}-bom.csv",
        content_type="text/csv",
    )


@login_required
@require_GET
def export_request_json(request: HttpRequest, pk: int) -> HttpResponse:
    design = _visible(request, pk)
    body = json.dumps(design.request, indent=2, ensure_ascii=False, sort_keys=True) + "\n"
    return download(
        body.encode(), filename=f"design-{design.pk}-request.json", content_type="application/json"
    )


@login_required
@permission_required(ADD, raise_exception=True)
@require_POST
def design_copy(request: HttpRequest, pk: int) -> HttpResponse:
    design = _visible(request, pk)
    copy = services.design_copy(design=design, owner=request.user)  # type: ignore[arg-type]
    messages.success(request, _("Copied; change what you need and save."))
    return redirect("planner:wizard", pk=copy.pk, step=STEPS[1].key)


def _change_label(kind: str) -> str:
    labels = {
        "added": _("Added"),
        "removed": _("Removed"),
        "quantity": _("Quantity changed"),
        "repriced": _("Re-priced"),
        "quantity_repriced": _("Quantity changed and re-priced"),
    }
    return labels.get(kind, kind)


@login_required
@permission_required(ADD, raise_exception=True)
def design_resize(request: HttpRequest, pk: int) -> HttpResponse:
    """Re-size a saved design against today's catalog: GET shows what would change, POST saves
    it as a new version (the old one stays as its quotes priced it)."""
    design = _visible(request, pk)
    try:
        if request.method == "POST":
            new = resize.design_resize(
                design=design,
                owner=request.user,  # type: ignore[arg-type]
                previewed_catalog_version=request.POST.get("catalog_version", ""),
            )
            messages.success(
                request,
                _("Saved as version %(n)s, sized against today's catalog.") % {"n": new.version},
            )
            return redirect("planner:design-detail", pk=new.pk)
        preview = resize.design_resize_preview(design=design)
    except services.CatalogChangedSincePreview as exc:
        messages.error(request, exc.message)
        return redirect("planner:design-resize", pk=design.pk)
    except (
        services.DesignIsDraft,
        services.DesignRequestInvalid,
        services.DesignNotFeasible,
    ) as exc:
        messages.error(request, exc.message)
        return redirect("planner:design-detail", pk=design.pk)
    changes = [
        {"change": change, "label": _change_label(change.kind)} for change in preview.changes
    ]
    return render(
        request,
        "planner/design_resize.html",
        {"design": design, "preview": preview, "changes": changes},
    )


# --- list -------------------------------------------------------------------------------------


class DesignListView(LoginRequiredMixin, FilterView):  # type: ignore[misc]  # untyped package
    filterset_class = DesignFilterSet
    template_name = "planner/design_list.html"
    context_object_name = "designs"
    paginate_by = 25
    strict = False

    def get_queryset(self) -> QuerySet[Design]:
        designs = selectors.designs_visible_to(self.request.user).order_by("-created_at", "-id")
        # Archived designs are out of the way unless asked for.
        if self.request.GET.get("archived") != "1":
            designs = designs.filter(archived_at__isnull=True)
        return designs

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
        context: dict[str, Any] = super().get_context_data(**kwargs)
        query = self.request.GET.copy()
        query.pop("page", None)
        context.update(
            querystring=query.urlencode(),
            filtered=any(v for k, v in self.request.GET.items() if k != "page"),
            show_archived=self.request.GET.get("archived") == "1",
            can_add=self.request.user.has_perm(ADD),
            meta_fields=META_FIELDS,
        )
        return context
