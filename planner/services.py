"""Writes for designs. The engine does the sizing; this module validates, saves and announces.

A saved design is frozen: it keeps its typed result and the catalog snapshot (products, media
rules, prices) it was sized with (`SizingSnapshot`, stored once per content). Pages, exports,
cabling schedules and documents read those; only `design_resize` sizes a saved design against
today's catalog again, and it saves a new version instead of changing the old one.

The freeze is kept here, whoever calls: every write below refuses a saved design
(`DesignFrozen`), and re-deriving a saved design's engine design (cabling, racks, graph check)
refuses when the engine would no longer give the result that was saved (`DesignEngineChanged`)."""

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from decimal import Decimal
from functools import cached_property
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import ProtectedError
from django.utils import timezone
from django.utils.translation import gettext as _

from catalog.selectors import default_price_list
from core.errors import DomainError
from core.jobs import send_on_commit
from core.models import WebhookEvent
from core.retention import files_delete_on_commit
from core.selectors import user_team
from core.webhooks import webhook_emit
from customers.models import Customer
from customers.selectors import CustomerNotFound, customers_visible_to
from engine.cabling import CablingRow, iter_cabling
from engine.catalog import CatalogSnapshot
from engine.design import Design as EngineDesign
from engine.errors import DesignError
from engine.money import Money
from engine.request import DesignRequest, RequestError, parse_request, to_dict
from engine.result import (
    DesignResult,
    content_sha256,
    design_result,
    result_to_json,
    snapshot_from_json,
    snapshot_to_json,
)
from engine.search import alternatives
from engine.sizing import size
from engine.version import ENGINE_VERSION
from planner.i18n import translated
from planner.models import Design, Scenario, SizingSnapshot
from planner.selectors import DesignNotFound, current_catalog, designs_visible_to


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


class DesignIsDraft(DomainError):
    """Only a saved design has a frozen result to compare with today's catalog."""

    code = "design_is_draft"


class CatalogChangedSincePreview(DomainError):
    """The catalog changed between showing what a re-size would change and saving it."""

    code = "catalog_changed_since_preview"


class DesignFrozen(DomainError):
    """A saved design is never changed: quotes and their documents point at it. Re-sizing it
    saves a new version (`design_resize`); copying it makes a new draft."""

    http_status = 409
    code = "design_frozen"

    def __init__(self) -> None:
        super().__init__(
            _(
                "This design is saved, and a saved design never changes: its quotes and "
                "documents rely on it. Use “re-size with today's catalog” to save a new version, "
                "or copy it to change it."
            )
        )


class DesignEngineChanged(DomainError):
    """The engine would no longer give a saved design's stored result from its stored request
    and catalog, so what is derived from it (cabling, racks, labels, the graph check) would not
    be the design that was saved, or quoted."""

    http_status = 409
    code = "design_engine_changed"


class DesignNotYours(DomainError):
    """Only the design's author (or, to archive or delete, an administrator) changes it."""

    http_status = 403
    code = "design_not_yours"


@dataclass(frozen=True)
class SizedDesign:
    request: DesignRequest
    design: EngineDesign
    value: DesignResult
    catalog: CatalogSnapshot

    @cached_property
    def result(self) -> dict[str, Any]:
        """The result as JSON, through the one codec (what the API answers and storage keeps)."""
        return result_to_json(self.value)


def _sized(request_data: Mapping[str, object], catalog: CatalogSnapshot) -> SizedDesign:
    try:
        request = parse_request(request_data, catalog)
    except RequestError as exc:
        raise _invalid(exc) from exc
    try:
        # With the catalog's own prices: a choice the request leaves open (the leaf, the ratio,
        # the uplink speed) goes to the lowest priced cost, and a design of catalog parts beats
        # one with stand-ins (issue 26). The snapshot carries them, so a re-derivation agrees.
        design = size(request, catalog, catalog_prices(catalog))
    except DesignError as exc:
        raise DesignNotFeasible(translated(exc.text)) from exc
    return SizedDesign(request=request, design=design, value=design_result(design), catalog=catalog)


def design_size(*, request_data: Mapping[str, object]) -> SizedDesign:
    """Size a request against the current catalog without saving anything."""
    return _sized(request_data, current_catalog())


# --- sizing snapshots ------------------------------------------------------------------------

# Encoding and hashing a whole catalog costs milliseconds; the current catalog object is
# shared by every request of a process until the catalog changes, so one encoding serves all.
_encoded: dict[tuple[str, str], tuple[str, dict[str, Any]]] = {}
# Decoded snapshots by content address (immutable): a page of one design decodes once.
_decoded: dict[str, CatalogSnapshot] = {}
_CACHE_SIZE = 8


def _remember(cache: dict[Any, Any], key: Any, value: Any) -> None:
    if len(cache) >= _CACHE_SIZE:
        cache.pop(next(iter(cache)))
    cache[key] = value


def _current_currency() -> str:
    price_list = default_price_list()
    return price_list.currency if price_list else ""


def _snapshot_row(catalog: CatalogSnapshot) -> SizingSnapshot:
    """The stored row for `catalog` with today's default currency, created on first use."""
    currency = _current_currency()
    key = (catalog.version or str(id(catalog)), currency)
    encoded = _encoded.get(key)
    if encoded is None:
        data = snapshot_to_json(catalog)
        encoded = (content_sha256({"currency": currency, "catalog": data}), data)
        _remember(_encoded, key, encoded)
    sha, data = encoded
    row, _created = SizingSnapshot.objects.get_or_create(
        sha256=sha,
        defaults={"catalog_version": catalog.version, "currency": currency, "data": data},
    )
    return row


def sizing_snapshot_catalog(*, snapshot: SizingSnapshot) -> CatalogSnapshot:
    catalog = _decoded.get(snapshot.sha256)
    if catalog is None:
        catalog = snapshot_from_json(snapshot.data)
        _remember(_decoded, snapshot.sha256, catalog)
    return catalog


def design_catalog(*, design: Design) -> CatalogSnapshot:
    """The catalog a design was sized with. Designs saved before snapshots were kept have none:
    when today's catalog is still the one they were sized with, it is frozen with them now;
    otherwise today's is the only one left to read (and may differ from what was sized)."""
    if design.sizing_snapshot_id is not None:
        assert design.sizing_snapshot is not None
        return sizing_snapshot_catalog(snapshot=design.sizing_snapshot)
    catalog = current_catalog()
    if design.result is not None and design.catalog_version == catalog.version:
        row = _snapshot_row(catalog)
        # Only where none is stored yet (this is no re-size: the same catalog is written down),
        # and not `updated_at`: the page dates the sizing by it, and nothing was sized now.
        Design.objects.filter(pk=design.pk, sizing_snapshot__isnull=True).update(
            sizing_snapshot=row
        )
        design.sizing_snapshot = row
    return catalog


@dataclass(frozen=True)
class DesignPrices:
    """Unit prices a design was sized and priced with, by SKU, in one currency."""

    prices: Mapping[str, Decimal]
    currency: str

    def price(self, sku: str) -> Money | None:
        """The unit price of `sku` in this list's currency; None when it has none."""
        amount = self.prices.get(sku) if sku else None
        return None if amount is None else Money(amount, self.currency)


def design_prices(*, design: Design) -> DesignPrices:
    catalog = design_catalog(design=design)
    currency = (
        design.sizing_snapshot.currency
        if design.sizing_snapshot is not None
        else _current_currency()
    )
    return DesignPrices(prices=catalog_prices(catalog), currency=currency)


def catalog_prices(catalog: CatalogSnapshot) -> dict[str, Decimal]:
    return {sku: p.price for sku, p in catalog.by_sku().items() if p.price is not None}


def _engine_changed(stored: str | None) -> DesignEngineChanged:
    if stored is not None and stored != ENGINE_VERSION:
        message = _(
            "This design was sized by version %(stored)s of the planner's engine, and this "
            "planner runs version %(running)s, which may lay out its cables differently. Its "
            "cabling, racks and labels are not derived again; use “re-size with today's "
            "catalog” to save a new version."
        ) % {"stored": stored, "running": ENGINE_VERSION}
    else:
        message = _(
            "Sizing this design again no longer gives the result it was saved with (the "
            "planner's engine or its settings changed), so its cabling, racks and labels are "
            "not derived again; use “re-size with today's catalog” to save a new version."
        )
    return DesignEngineChanged(message)


def _checked(engine: EngineDesign, expected_result: Mapping[str, Any] | None) -> EngineDesign:
    """`engine` once it gives exactly `expected_result` (a stored result's JSON), by the same
    engine version: only then is what is derived from it (every cable, port and rack) the design
    that was saved. A result stored before versions were kept has none to compare: its content
    still must match. None: nothing stored to compare with (nothing is checked)."""
    if expected_result is None:
        return engine
    stored = expected_result.get("engine_version")
    if stored is not None and stored != ENGINE_VERSION:
        raise _engine_changed(str(stored))
    derived = result_to_json(design_result(engine))
    if stored is None:
        derived.pop("engine_version", None)
    # Compared as JSON values (what storage keeps): the codec writes lists, text and numbers
    # only, all of which read back equal from the database.
    if derived != dict(expected_result):
        raise _engine_changed(None if stored is None else str(stored))
    return engine


def sizing_snapshot_engine(
    *,
    snapshot: SizingSnapshot,
    request_data: Mapping[str, object],
    expected_result: Mapping[str, Any] | None = None,
) -> EngineDesign:
    """`request_data` sized against a stored snapshot: for a quote that pinned the snapshot its
    design was sized with (`FrozenDesign.sizing_snapshot`). `expected_result`: the result the
    quote froze (`FrozenDesign.result`); given, the engine design is refused
    (`DesignEngineChanged`) unless it still gives exactly that result, by the same engine."""
    engine = _sized(request_data, sizing_snapshot_catalog(snapshot=snapshot)).design
    return _checked(engine, expected_result)


def design_engine(
    *,
    design: Design,
    request_data: Mapping[str, object] | None = None,
    expected_result: Mapping[str, Any] | None = None,
) -> EngineDesign:
    """The engine's design of a saved design, re-derived from its request (or `request_data`,
    the request a quote froze) and the catalog it was sized with: the engine is pure, so the
    same inputs give the same network. This is what the cabling schedule and the graph check
    enumerate, without ever storing a million rows.

    It is checked against what was stored (`DesignEngineChanged` otherwise): in any case the
    engine version the design's result was sized by; then, once it has the catalog it was sized
    with, `expected_result` (the result a quote froze with `request_data`) when given, else,
    sizing its own request, the design's own result. A design saved before snapshots were kept
    whose catalog has changed since is sized against today's (`design_catalog`): no result was
    ever expected to come out of that again, so only the version is checked."""
    if design.result is None:
        raise DesignRequestInvalid(_("This draft does not size yet; fix its errors first."))
    stored = design.result.get("engine_version")
    if stored is not None and stored != ENGINE_VERSION:
        raise _engine_changed(str(stored))
    catalog = design_catalog(design=design)  # may freeze today's with it: read the id after
    expected = design.result if request_data is None else None
    if expected_result is not None:
        expected = expected_result
    if design.sizing_snapshot_id is None:
        expected = None
    request = design.request if request_data is None else request_data
    return _checked(_sized(request, catalog).design, expected)


def _check_customer(owner: User, customer: Customer | None) -> None:
    """A design is made for a customer of the owner's team only: views and the API pick from
    those, and a command, a task or a CRM hook calling the service is held to the same rule."""
    if customer is not None and not customers_visible_to(owner).filter(pk=customer.pk).exists():
        raise CustomerNotFound(customer.pk)


def _team_of(user: User) -> Any:
    team = user_team(user)
    if team is None:
        raise NoTeam(_("Your account belongs to no team; ask an administrator to add you to one."))
    return team


# Past this many servers a design's rack elevations take seconds to derive (0.4 s at 16,384
# servers, 3.9 s at a million GPUs' 125,000, this 2-core machine): its pages fetch them after
# loading (planner.handover.services), and its save queues their drawing for the first visit.
LARGE_DESIGN_SERVERS = 16_384
WARM_PAGES_TASK = "planner.tasks.warm_design_pages_task"


def _warm_not_sent() -> None:
    """A drawing not queued (the broker is down) is only a slower first visit: nothing to mark."""


@transaction.atomic
def design_create(
    *,
    owner: User,
    name: str,
    request_data: Mapping[str, object],
    scenario: str = Scenario.LLM_TRAINING,
    customer: Customer | None = None,
    copied_from: Design | None = None,
    version: int = 1,
) -> Design:
    """Size and save a complete design. Nothing is saved when the request is invalid, or when
    `customer` is not one the owner may see (another team's is not found, whoever calls)."""
    _check_customer(owner, customer)
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
        gpus=sized.design.gpus_total,
        catalog_version=sized.catalog.version,
        sizing_snapshot=_snapshot_row(sized.catalog),
        copied_from=copied_from,
        version=version,
    )
    webhook_emit(
        event=WebhookEvent.DESIGN_CREATED,
        data={"id": design.pk, "name": design.name, "gpus": design.gpus, "owner": owner.username},
        team=design.team,
    )
    if sized.design.servers > LARGE_DESIGN_SERVERS:
        send_on_commit(WARM_PAGES_TASK, design.pk, unsent=_warm_not_sent)
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
    A draft that sizes cleanly also stores its result. `owner`: who saves it; an existing
    `design` must be their own draft (another's is refused, a saved one is `DesignFrozen`)."""
    if design is not None:
        _own_draft(design=design, user=owner)
    _check_customer(owner, customer)
    try:
        sized: SizedDesign | None = design_size(request_data=request_data)
    except DomainError:
        sized = None
    new = design is None
    if design is None:
        design = Design(owner=owner, team=_team_of(owner))
    design.name = name or design.name or _("Untitled design")
    design.scenario = scenario
    design.customer = customer
    design.is_draft = True
    design.request = dict(request_data)
    design.result = sized.result if sized else None
    design.gpus = sized.design.gpus_total if sized else None
    design.catalog_version = sized.catalog.version if sized else ""
    design.sizing_snapshot = _snapshot_row(sized.catalog) if sized else None
    # An existing row gets the draft's columns only: whatever else the caller's copy holds
    # (archived, version, copied from) may be stale and is not the wizard's to write.
    design.save(update_fields=None if new else _DRAFT_FIELDS)
    return design


# What saving a draft writes: the columns a saved design freezes, and its name and customer.
_DRAFT_FIELDS = (
    "name", "scenario", "customer", "is_draft", "request", "result", "gpus", "catalog_version",
    "sizing_snapshot", "updated_at",
)  # fmt: skip


def _own_draft(*, design: Design, user: User | None) -> Design:
    """The design's row, locked, while it is still a draft (else `DesignFrozen`): the stored
    row decides, not the caller's copy of it. With `user`, it must also be their own: another
    team's is not found, a teammate's is not theirs to change (they copy it)."""
    if user is not None and not designs_visible_to(user).filter(pk=design.pk).exists():
        raise DesignNotFound(design.pk)
    locked = Design.objects.select_for_update().filter(pk=design.pk).first()
    if locked is None:
        raise DesignNotFound(design.pk)
    if user is not None and locked.owner_id != user.pk:
        raise DesignNotYours(_("Only the draft's author changes it; copy the design to change it."))
    if not locked.is_draft:
        raise DesignFrozen()
    return locked


@transaction.atomic
def design_finalize(*, design: Design) -> Design:
    """Turn a draft into a saved design; refused with the engine's reasons when it does not size,
    and `DesignFrozen` for a design already saved: saving it again would size it against today's
    catalog and overwrite what its quotes priced."""
    locked = _own_draft(design=design, user=None)
    sized = design_size(request_data=locked.request)
    design.is_draft = False
    design.request = to_dict(sized.request)
    design.result = sized.result
    design.gpus = sized.design.gpus_total
    design.catalog_version = sized.catalog.version
    design.sizing_snapshot = _snapshot_row(sized.catalog)
    design.save(update_fields=["is_draft", "request", "result", "gpus", "catalog_version",
                               "sizing_snapshot", "updated_at"])  # fmt: skip
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


def design_cabling(*, design: Design) -> Iterator[CablingRow]:
    """The cabling schedule, one row per cable, from the saved request and the catalog it was
    sized with (never today's: a retired product stays on the schedule that priced it)."""
    return iter_cabling(design_engine(design=design))


def design_alternatives(
    *,
    request_data: Mapping[str, object],
    prices: Mapping[str, Any] | None = None,
    catalog: CatalogSnapshot | None = None,
) -> tuple[SizedDesign, ...]:
    """The engine's alternatives (up to three, labelled lowest cost, most resilient, most
    growth) over the choices the request leaves open; what it fixes (fabric style, switches,
    planes) every alternative keeps, and its oversubscription stays a ceiling (issue 13,
    item 7). `catalog`: a stored snapshot (a frozen design's), else today's catalog."""
    catalog = catalog if catalog is not None else current_catalog()
    try:
        request = parse_request(request_data, catalog)
    except RequestError as exc:
        raise _invalid(exc) from exc
    try:
        designs = alternatives(request, catalog, prices)
    except DesignError as exc:
        raise DesignNotFeasible(translated(exc.text)) from exc
    return tuple(
        SizedDesign(
            request=design.request, design=design, value=design_result(design), catalog=catalog
        )
        for design in designs
    )


# --- re-sizing against today's catalog -------------------------------------------------------


class DesignInUse(DomainError):
    """A quote is built on the design: it stays as the quote's record, neither archived nor
    deleted."""

    http_status = 409
    code = "design_in_use"


def _own_unquoted(*, design: Design, user: User) -> Design:
    """The design row, locked, once `user` may change it and no quote uses it."""
    if not designs_visible_to(user).filter(pk=design.pk).exists():
        raise DesignNotFound(design.pk)
    locked = Design.objects.select_for_update().get(pk=design.pk)
    if locked.owner_id != user.pk and not user.is_superuser:
        raise DesignNotYours(_("Only the design's author can archive or delete it."))
    # `quotes` is the quotes app's reverse relation: read by name, the layers stay one-way.
    quoted = list(locked.quotes.values_list("number", flat=True)[:3])
    if quoted:
        raise DesignInUse(
            _("Quote %(numbers)s uses this design: it is kept as the quote's record.")
            % {"numbers": ", ".join(quoted)}
        )
    return locked


@transaction.atomic
def design_archive(*, design: Design, user: User, archived: bool = True) -> Design:
    """Hide a design from the lists (archived=False brings it back); refused once quoted."""
    locked = _own_unquoted(design=design, user=user)
    locked.archived_at = timezone.now() if archived else None
    locked.save(update_fields=["archived_at", "updated_at"])
    return locked


@transaction.atomic
def design_delete(*, design: Design, user: User) -> None:
    """Delete a design no quote uses: a draft or a saved design nobody quoted. Its as-built
    uploads and export files go with it, once the deletion commits."""
    locked = _own_unquoted(design=design, user=user)
    files = [
        *locked.asbuilt_checks.exclude(file="").values_list("file", flat=True),
        *locked.export_jobs.exclude(file="").values_list("file", flat=True),
    ]
    try:
        locked.delete()
    except ProtectedError as exc:  # a quote created meanwhile references it
        raise DesignInUse(_("A quote uses this design: it is kept as the quote's record.")) from exc
    files_delete_on_commit(names=files)
