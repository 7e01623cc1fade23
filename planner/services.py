"""Writes for designs. The engine does the sizing; this module validates, saves and announces."""

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.utils.translation import gettext as _

from core.errors import DomainError
from core.models import WebhookEvent
from core.selectors import user_team
from core.webhooks import webhook_emit
from planner.engine.design import Design as EngineDesign
from planner.engine.errors import DesignError
from planner.engine.request import DesignRequest, RequestError, parse_request, to_dict
from planner.engine.serialize import design_to_dict
from planner.engine.sizing import size
from planner.i18n import translated
from planner.models import Design, Scenario
from planner.selectors import current_catalog
from quotes.models import Customer


class DesignRequestInvalid(DomainError):
    """The request names fields the engine cannot accept; `errors` says which and why."""

    code = "invalid_design_request"


class DesignNotFeasible(DomainError):
    """The request is well-formed but no network satisfies it (e.g. media out of reach)."""

    code = "design_not_feasible"


class NoTeam(DomainError):
    code = "no_team"


def _invalid(exc: RequestError) -> DesignRequestInvalid:
    """The engine's field errors in the reader's language, for the form and the API alike."""
    errors = {field: translated(message) for field, message in exc.texts.items()}
    return DesignRequestInvalid(
        "; ".join(f"{field}: {message}" for field, message in errors.items()), errors=errors
    )


@dataclass(frozen=True)
class SizedDesign:
    request: DesignRequest
    design: EngineDesign
    result: dict[str, Any]


def design_size(*, request_data: Mapping[str, object]) -> SizedDesign:
    """Size a request against the current catalog without saving anything."""
    catalog = current_catalog()
    try:
        request = parse_request(request_data, catalog)
    except RequestError as exc:
        raise _invalid(exc) from exc
    try:
        design = size(request, catalog)
    except DesignError as exc:
        raise DesignNotFeasible(translated(exc.text)) from exc
    return SizedDesign(request=request, design=design, result=design_to_dict(design))


def _team_of(user: User) -> Any:
    team = user_team(user)
    if team is None:
        raise NoTeam(_("Your account belongs to no team; ask an administrator to add you to one."))
    return team


@transaction.atomic
def design_create(
    *,
    owner: User,
    name: str,
    request_data: Mapping[str, object],
    scenario: str = Scenario.LLM_TRAINING,
    customer: Customer | None = None,
    copied_from: Design | None = None,
) -> Design:
    """Size and save a complete design. Nothing is saved when the request is invalid."""
    sized = design_size(request_data=request_data)
    design = Design.objects.create(
        name=name,
        owner=owner,
        team=_team_of(owner),
        customer=customer,
        scenario=scenario,
        is_draft=False,
        request=to_dict(sized.request),
        result=sized.result,
        gpus=sized.request.gpus,
        catalog_version=current_catalog().version,
        copied_from=copied_from,
    )
    webhook_emit(
        event=WebhookEvent.DESIGN_CREATED,
        data={"id": design.pk, "name": design.name, "gpus": design.gpus, "owner": owner.username},
        team=design.team,
    )
    return design


@transaction.atomic
def design_save_draft(
    *,
    owner: User,
    request_data: Mapping[str, object],
    name: str = "",
    scenario: str = Scenario.LLM_TRAINING,
    customer: Customer | None = None,
    design: Design | None = None,
) -> Design:
    """Keep whatever the engineer typed, valid or not, so that leaving the wizard loses nothing.
    A draft that sizes cleanly also stores its result."""
    try:
        sized: SizedDesign | None = design_size(request_data=request_data)
    except DomainError:
        sized = None
    if design is None:
        design = Design(owner=owner, team=_team_of(owner))
    design.name = name or design.name or _("Untitled design")
    design.scenario = scenario
    design.customer = customer
    design.is_draft = True
    design.request = dict(request_data)
    design.result = sized.result if sized else None
    design.gpus = sized.request.gpus if sized else None
    design.save()
    return design


@transaction.atomic
def design_finalize(*, design: Design) -> Design:
    """Turn a draft into a saved design; refused with the engine's reasons when it does not size."""
    sized = design_size(request_data=design.request)
    design.is_draft = False
    design.request = to_dict(sized.request)
    design.result = sized.result
    design.gpus = sized.request.gpus
    design.catalog_version = current_catalog().version
    design.save()
    return design


def design_copy(*, design: Design, owner: User) -> Design:
    """ "Copy and modify": a new draft with the same request, owned by whoever copies it."""
    copy = design_save_draft(
        owner=owner,
        request_data=design.request,
        name=_("Copy of %(name)s") % {"name": design.name},
        scenario=design.scenario,
        customer=design.customer,
    )
    copy.copied_from = design
    copy.save(update_fields=["copied_from"])
    return copy


def design_cabling(*, design: Design) -> Iterator[Any]:
    """The cabling schedule, one row per cable, re-derived from the saved request (the engine
    generates it lazily; a million rows are never held in memory)."""
    if design.result is None:
        raise DesignRequestInvalid(_("This draft does not size yet; fix its errors first."))
    from planner.engine.cabling import iter_cabling

    sized = design_size(request_data=design.request)
    return iter_cabling(sized.design)


def design_alternatives(
    *, request_data: Mapping[str, object], prices: Mapping[str, Any] | None = None
) -> tuple[SizedDesign, ...]:
    """The engine's alternatives (up to three, labelled lowest cost, most resilient, most
    growth) over the request's open choices. When the request leaves nothing open, fabric and
    switches are opened for the comparison; the oversubscription stays a ceiling."""
    from dataclasses import replace

    from planner.engine.sizing import alternatives

    catalog = current_catalog()
    try:
        request = parse_request(request_data, catalog)
    except RequestError as exc:
        raise _invalid(exc) from exc
    if not request.open_choices:
        # Fabric and switches are opened for the comparison; the oversubscription stays a
        # ceiling (a 1:1 training request is never offered 2:1).
        request = replace(request, fabric=None, leaf=None, spine=None, core=None)
    try:
        designs = alternatives(request, catalog, prices)
    except DesignError as exc:
        raise DesignNotFeasible(translated(exc.text)) from exc
    return tuple(
        SizedDesign(request=design.request, design=design, result=design_to_dict(design))
        for design in designs
    )
