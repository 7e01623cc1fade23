"""What the design page shows of the handover: the rack elevations of its first racks, drawn by
`planner.handover.rack_svg` from the design as saved. The whole drawing of a large design (a
16,384-GPU design has some 600 racks, an SVG of several megabytes) stays on the handover page;
the design page shows the first `DESIGN_PAGE_RACKS` and links there."""

from __future__ import annotations

import pickle
import zlib
from dataclasses import dataclass, replace
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.core.paginator import Page, Paginator
from django.utils.translation import get_language, override
from django.utils.translation import gettext as _

from engine.text import Text
from engine.version import ENGINE_VERSION
from planner import services
from planner.exports import jobs as export_jobs
from planner.handover.elevations import Elevations, Rack
from planner.handover.rack_svg import RACKS_PER_LINE, elevations_svg
from planner.i18n import translated
from planner.models import Design

# Two lines of the drawing (12 racks a line): a row's first racks with their network rack on a
# 1,024-GPU design, and an SVG of tens of kilobytes on any design.
DESIGN_PAGE_RACKS = 2 * RACKS_PER_LINE
# The handover page draws this many racks a page (4 lines, some 150 kB of SVG); the downloads
# carry every rack.
HANDOVER_RACKS_PER_PAGE = 4 * RACKS_PER_LINE
ELEVATIONS_CACHE_SECONDS = 24 * 3600  # a day: the entry is right for as long as it is kept


def svg_labels() -> dict[str, str]:
    """The drawing's words in the reader's language (the handover page's own)."""
    return {
        "power": _("Typical"),
        "max": _("max"),
        "over": _("over its height"),
        "cable_manager": _("1U cable manager"),
    }


def design_page_elevations(
    *, design: Design, limit: int = DESIGN_PAGE_RACKS, lazy: bool = False
) -> dict[str, Any]:
    """The elevations section of the design page: the SVG of the first `limit` racks in hall
    order, how many racks there are, and the rack warnings (for every rack, not only those
    drawn). Empty for a draft that does not size. `lazy`: a design past LARGE_DESIGN_SERVERS
    (planner.services) whose section is not kept yet gets `{"later": True}`, and the page
    fetches the section once it has loaded."""
    if design.result is None:
        return {}
    # A saved design's racks never change (a draft's revision is its `updated_at`), and sizing
    # it again for the drawing costs about a second at 131,072 GPUs: kept per revision and
    # language (the drawing's words are translated).
    key = _design_key(design, limit)
    section: dict[str, Any] | None = cache.get(key)
    large = design.result.get("servers", 0) > services.LARGE_DESIGN_SERVERS
    if section is None and lazy and large:
        return {"design": design, "later": True}
    if section is None:
        try:
            engine = services.design_engine(design=design)
        except services.DesignEngineChanged:
            # The racks are not drawn from what the engine would now derive; the design page
            # still shows the saved result, and the handover page says why there are none.
            return {}
        elevations = export_jobs.design_handover_elevations(design=design, engine=engine)
        section = _design_section(key, elevations, limit)
    return {"design": design, **section}


def _design_key(design: Design, limit: int) -> str:
    return (
        f"design-elevations:{design.pk}:{design.updated_at.isoformat()}:"
        f"{get_language() or ''}:{limit}"
    )


def _design_section(key: str, elevations: Elevations, limit: int) -> dict[str, Any]:
    """The design page's section, drawn in the active language, and kept under `key`."""
    shown = replace(elevations, racks=elevations.racks[:limit])
    section = {
        "svg": elevations_svg(shown, svg_labels()),
        "racks_total": len(elevations.racks),
        "racks_shown": len(shown.racks),
        "warnings": [str(translated(warning)) for warning in elevations.warnings],
    }
    cache.set(key, section, ELEVATIONS_CACHE_SECONDS)
    return section


def handover_page(*, design: Design, page: str | None = None) -> dict[str, Any]:
    """The handover page's racks: their count and warnings, and one page of the drawing
    (`page` as the query string gives it). The elevations of 1,000,000 GPUs take seconds to
    derive for any page, so one derivation keeps, per revision, every page's racks (1.9 MB
    compressed for 756 pages at 1,000,000 GPUs), and per language the count, the warnings and
    each page drawn: any page after the first costs a cache read and a drawing of 48 racks
    (milliseconds), in either language."""
    base = _handover_key(design)
    summary: dict[str, Any] | None = cache.get(base)
    if summary is not None:
        racks: Page[Any] = Paginator(range(summary["racks"]), HANDOVER_RACKS_PER_PAGE).get_page(
            page
        )
        svg: str | None = cache.get(f"{base}:{racks.number}")
        if svg is not None:
            return {**summary, "racks_page": racks, "svg": svg}
    kept = _kept_racks(design, page)
    if kept is not None:
        return _handover_entries(base, kept, page)
    engine = services.design_engine(design=design)
    elevations = export_jobs.design_handover_elevations(design=design, engine=engine)
    _keep_racks(design, elevations)
    return _handover_entries(base, _PageRacks.of(elevations, page), page)


def _handover_key(design: Design) -> str:
    return f"handover-page:{design.pk}:{design.updated_at.isoformat()}:{get_language() or ''}"


# What a page's racks are kept as changes with the engine and with Rack's fields: a new
# format simply misses the old entries.
_RACKS_FORMAT = f"{ENGINE_VERSION}.1"


def _racks_key(design: Design) -> str:
    return f"handover-racks:{_RACKS_FORMAT}:{design.pk}:{design.updated_at.isoformat()}"


@dataclass(frozen=True)
class _PageRacks:
    """One page's racks and what the summary says of all of them (language-free)."""

    racks_page: Page[Any]
    elevations: Elevations  # the page's racks only
    racks_total: int
    warnings: tuple[Text, ...]

    @classmethod
    def of(cls, elevations: Elevations, page: str | None) -> _PageRacks:
        racks = Paginator(elevations.racks, HANDOVER_RACKS_PER_PAGE).get_page(page)
        return cls(
            racks_page=racks,
            elevations=replace(elevations, racks=tuple(racks), device_rack={}),
            racks_total=len(elevations.racks),
            warnings=elevations.warnings,
        )


@dataclass(frozen=True)
class _KeptRacks:
    """Every page's racks of one revision, each page packed on its own (`pack_racks`), with
    what the pages share (the elevations without their racks)."""

    frame: Elevations
    racks_total: int
    pages: tuple[bytes, ...]


def _keep_racks(design: Design, elevations: Elevations) -> None:
    """Every page's racks under the revision, in one entry: rack after rack repeats the same
    few devices, so 24 MB of pickle is 1.9 MB at 1,000,000 GPUs (756 pages); one entry keeps
    a per-process cache's entry limit from evicting the pages one by one."""
    pages = Paginator(elevations.racks, HANDOVER_RACKS_PER_PAGE)
    kept = _KeptRacks(
        frame=replace(elevations, racks=(), device_rack={}),
        racks_total=pages.count,
        pages=tuple(pack_racks(tuple(pages.page(number))) for number in pages.page_range),
    )
    cache.set(_racks_key(design), kept, ELEVATIONS_CACHE_SECONDS)


def pack_racks(racks: tuple[Rack, ...]) -> bytes:
    return zlib.compress(pickle.dumps(racks, protocol=5), 1)


def unpack_racks(packed: bytes) -> tuple[Rack, ...] | None:
    """What `pack_racks` packed; None for an entry this code cannot read back."""
    try:
        # Only `_keep_racks` writes these, into the site's own cache (as Django pickles).
        racks = pickle.loads(zlib.decompress(packed))
    except (zlib.error, pickle.UnpicklingError, AttributeError, TypeError, EOFError):
        return None
    return racks if isinstance(racks, tuple) else None


def _kept_racks(design: Design, page: str | None) -> _PageRacks | None:
    """A page's racks as `_keep_racks` kept them; None when they are not kept."""
    try:
        kept = cache.get(_racks_key(design))
    except (pickle.UnpicklingError, AttributeError, TypeError):  # kept by another version
        return None
    if not isinstance(kept, _KeptRacks):
        return None
    numbers: Page[Any] = Paginator(range(kept.racks_total), HANDOVER_RACKS_PER_PAGE).get_page(page)
    if not 0 < numbers.number <= len(kept.pages):
        return None
    racks = unpack_racks(kept.pages[numbers.number - 1])
    if racks is None:
        return None
    return _PageRacks(
        racks_page=numbers,
        elevations=replace(kept.frame, racks=racks),
        racks_total=kept.racks_total,
        warnings=kept.frame.warnings,
    )


def _handover_entries(base: str, page_racks: _PageRacks, page: str | None) -> dict[str, Any]:
    """One handover page drawn in the active language, its summary and drawing kept under
    `base`."""
    elevations = page_racks.elevations
    summary = {
        "racks": page_racks.racks_total,
        "warnings": [str(translated(warning)) for warning in page_racks.warnings],
        "server_units": elevations.server_units,
        "server_power_stated": elevations.server_power_stated,
    }
    svg = elevations_svg(elevations, svg_labels())
    cache.set(base, summary, ELEVATIONS_CACHE_SECONDS)
    cache.set(f"{base}:{page_racks.racks_page.number}", svg, ELEVATIONS_CACHE_SECONDS)
    return {**summary, "racks_page": page_racks.racks_page, "svg": svg}


def design_pages_warm(*, design_id: int) -> list[str]:
    """Draw what a very large design's pages show first (the design page's racks and the
    handover page's first page, in every language) into the cache, from one derivation of its
    elevations: the task a save of such a design queues, so that the engineer's first visit is
    a cache read instead of seconds (3.9 s for the elevations of 1,000,000 GPUs). Returns the
    languages drawn; nothing for a design that is gone, a draft without a result, a design of
    no more than LARGE_DESIGN_SERVERS (planner.services) servers, or one the engine no longer
    derives."""
    design = Design.objects.filter(pk=design_id).first()
    if design is None or design.result is None:
        return []
    if design.result.get("servers", 0) <= services.LARGE_DESIGN_SERVERS:
        return []
    try:
        engine = services.design_engine(design=design)
    except services.DesignEngineChanged:
        return []
    elevations = export_jobs.design_handover_elevations(design=design, engine=engine)
    drawn = []
    for language, _name in settings.LANGUAGES:
        with override(language):
            _design_section(_design_key(design, DESIGN_PAGE_RACKS), elevations, DESIGN_PAGE_RACKS)
            _handover_entries(_handover_key(design), _PageRacks.of(elevations, None), None)
        drawn.append(language)
    _keep_racks(design, elevations)
    return drawn
