"""The design a quote revision froze, typed: one reader of `QuoteRevision.design_snapshot`
instead of its keys read by hand across the documents and services (issue 25, item 3).

Written once, when the quote is made from a saved design (`FrozenDesign.of`), and copied with
the revision ever after: the design's request, its typed result (read through the engine's
codec) and the catalog snapshot it was sized with, which documents re-derive the cabling from."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from engine.result import DesignResult, result_from_json
from planner.models import Design


@dataclass(frozen=True)
class FrozenDesign:
    design_id: int | None
    name: str
    catalog_version: str
    # The SHA-256 of the SizingSnapshot the design was sized with ("" for designs saved before
    # snapshots were kept): documents size against exactly it.
    sizing_snapshot_sha256: str
    request: Mapping[str, Any] = field(default_factory=dict)
    # The result as stored (JSON): what the typed `result` decodes, and what re-deriving the
    # design must give again (planner.services' `expected_result`).
    result_json: Mapping[str, Any] | None = None

    @classmethod
    def of(cls, design: Design) -> FrozenDesign:
        snapshot = design.sizing_snapshot
        return cls(
            design_id=design.pk,
            name=design.name,
            catalog_version=design.catalog_version,
            sizing_snapshot_sha256=snapshot.sha256 if snapshot is not None else "",
            request=dict(design.request),
            result_json=design.result,
        )

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> FrozenDesign:
        data = data or {}
        return cls(
            design_id=data.get("design_id"),
            name=str(data.get("name") or ""),
            catalog_version=str(data.get("catalog_version") or ""),
            sizing_snapshot_sha256=str(data.get("sizing_snapshot") or ""),
            request=dict(data.get("request") or {}),
            result_json=data.get("result") or None,
        )

    def to_json(self) -> dict[str, Any]:
        """The stored form (its keys are those quotes have always stored)."""
        return {
            "design_id": self.design_id,
            "name": self.name,
            "catalog_version": self.catalog_version,
            "sizing_snapshot": self.sizing_snapshot_sha256,
            "request": dict(self.request),
            "result": self.result_json,
        }

    @cached_property
    def result(self) -> DesignResult | None:
        """The typed result, decoded once per reader."""
        return result_from_json(self.result_json) if self.result_json else None
