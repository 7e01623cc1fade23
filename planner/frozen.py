"""Frozen designs: what a quote freezes of a saved design (`frozen_design_of`), and the engine's
design re-derived from one (`frozen_engine`) for the documents' graph check, elevations and
cabling schedule, which the stored result does not hold cable by cable.

Re-deriving is pure: the frozen request sized against the catalog snapshot the design was
sized with gives the same network, and `planner.services` refuses (`DesignEngineChanged`) when
the engine would now size it otherwise, so a document never shows a silently different cabling.
Today's catalog is used only for a design saved before snapshots were kept and since deleted."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping

from django.utils.translation import gettext as _

from core.errors import DomainError
from engine.catalog import CatalogSnapshot
from engine.design import Design as EngineDesign
from engine.result import content_sha256
from planner import services
from planner.models import Design, FrozenDesign, frozen_json


class FrozenDesignHasNoResult(DomainError):
    """The frozen design holds no sized result (or its design is gone): nothing to derive the
    network from."""

    code = "frozen_design_has_no_result"


def frozen_design_of(*, design: Design) -> FrozenDesign:
    """The design as it stands, frozen: the row holding exactly this content, made once."""
    snapshot = design.sizing_snapshot
    data = frozen_json(
        design_id=design.pk,
        name=design.name,
        catalog_version=design.catalog_version,
        sizing_snapshot_sha256=snapshot.sha256 if snapshot is not None else "",
        request=design.request,
        result=design.result,
    )
    frozen, _created = FrozenDesign.objects.get_or_create(
        sha256=content_sha256(data),
        defaults={
            "source_design_id": design.pk,
            "name": design.name,
            "catalog_version": design.catalog_version,
            "sizing_snapshot": snapshot,
            "request": data["request"],
            "result": data["result"],
        },
    )
    return frozen


class SizedDesigns:
    """The engine designs one document render needs, each sized once. Re-sizing a frozen
    request on a stored catalog snapshot is pure, so the proposal's graph check, elevations and
    cabling and its "what the design means" chapter share one design when they ask for the same
    request on the same snapshot (its SHA-256 names the catalog's content). Lives for one
    render: nothing is kept between documents."""

    def __init__(self) -> None:
        self._designs: dict[tuple[str, str], EngineDesign] = {}

    def get(
        self,
        *,
        snapshot_sha256: str,
        request_data: Mapping[str, object],
        size: Callable[[], EngineDesign],
    ) -> EngineDesign:
        """The design `size()` gives for `request_data` on the snapshot `snapshot_sha256`,
        sized on the first ask; without a snapshot (a design saved before snapshots were kept)
        the catalog has no content address, so it is sized every time."""
        if not snapshot_sha256:
            return size()
        key = (snapshot_sha256, json.dumps(request_data, sort_keys=True, default=str))
        found = self._designs.get(key)
        if found is None:
            found = self._designs[key] = size()
        return found


def frozen_engine(
    *, frozen: FrozenDesign, design: Design | None, designs: SizedDesigns | None = None
) -> EngineDesign | None:
    """The engine's design behind a frozen design: its request sized against the snapshot it
    pinned, else the one its `design` (the quote's) was saved with; never today's catalog while
    either exists, so a retired product stays on it. None when nothing was requested."""
    request = dict(frozen.request)
    if not request:
        return None
    designs = designs or SizedDesigns()
    expected = frozen.result
    snapshot = frozen.sizing_snapshot
    if snapshot is not None:
        return designs.get(
            snapshot_sha256=snapshot.sha256,
            request_data=request,
            size=lambda: services.sizing_snapshot_engine(
                snapshot=snapshot, request_data=request, expected_result=expected
            ),
        )
    if design is not None and design.result is not None:
        own = design.sizing_snapshot.sha256 if design.sizing_snapshot is not None else ""
        return designs.get(
            snapshot_sha256=own,
            request_data=request,
            size=lambda: services.design_engine(
                design=design, request_data=request, expected_result=expected
            ),
        )
    # The design is gone: today's catalog is the only one left to size against.
    return services.design_size(request_data=request).design


def frozen_engine_and_catalog(
    *, frozen: FrozenDesign, design: Design | None
) -> tuple[EngineDesign, CatalogSnapshot]:
    """The engine's design and the catalog it was sized with, for deriving spares and growth
    from a quote: refused in words when the frozen design has no result or its design is gone."""
    request = dict(frozen.request)
    if not request or design is None or design.result is None:
        raise FrozenDesignHasNoResult(
            _("The quote's design has no sized result to derive this from.")
        )
    snapshot = frozen.sizing_snapshot
    if snapshot is not None:
        engine = services.sizing_snapshot_engine(
            snapshot=snapshot, request_data=request, expected_result=frozen.result
        )
        return engine, services.sizing_snapshot_catalog(snapshot=snapshot)
    engine = services.design_engine(
        design=design, request_data=request, expected_result=frozen.result
    )
    return engine, services.design_catalog(design=design)
