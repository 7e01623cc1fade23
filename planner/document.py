"""The design document: everything a proposal or plan shows about the design, built once from
the design a quote froze (`FrozenDesign`) by the side that owns designs. The proposal renderer
(quotes.pdf) adds the commercial chapter and lays it out; it reads the design through this one
read model and nothing else of the planner's.

What it holds: the result with its names in the reader's language, the bill of materials and
the plan with its Gantt chart, the topology and cable-length drawings, the failure analysis,
what the design means for training (`planner.meaning`), the alternatives on the same catalog,
the rack elevations, the link table, the validation figures and the cabling schedule (printed,
attached or neither by size), and, for the plan, the latest as-built check. Built in the active
language; `unpriced` marks the generic parts the quote still has to price."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import dataclass, replace
from datetime import date
from typing import Any

from django.utils.translation import gettext as _

from core import vocabulary
from engine.cabling import CablingRow, iter_cabling
from engine.design import Design as EngineDesign
from engine.graph import validate
from engine.result import DesignResult
from engine.text import Text
from planner import presenters
from planner.alternatives import alternative_rows, proposal_catalog
from planner.asbuilt.services import asbuilt_appendix_context
from planner.exports.files import cabling_csv_chunks
from planner.frozen import SizedDesigns, frozen_engine
from planner.handover.elevations import (
    Elevations,
    design_elevations,
    network_rack_count,
    rack_layouts,
)
from planner.handover.rack_svg import elevations_svg
from planner.i18n import plan_labels, translated
from planner.meaning.read_model import proposal_meaning
from planner.models import Design, FrozenDesign
from planner.pool_rows import pool_rows
from planner.svg import gantt_svg, lengths_svg, topology_svg

# Beyond this many racks the elevations show one rack of each distinct layout: WeasyPrint draws
# SVG text slowly (36 racks of a 1,024-GPU design added 0.85 s to the proposal, measured).
RACKS_IN_PDF = 12
# Beyond this many cables the schedule is attached to the PDF as a spreadsheet, not printed.
CABLING_ROWS_IN_PDF = 60
# Above this, even the attachment is left out; the design page and API stream it instead.
CABLING_ROWS_ATTACHED = 250_000

Progress = Callable[[int, str], None]


@dataclass(frozen=True, kw_only=True)
class CablingAttachment:
    """The cabling schedule as a CSV file to attach, when too long to print."""

    content: bytes
    description: str


@dataclass(frozen=True, kw_only=True)
class DesignDocument:
    """What the documents show of the design, under the names their templates use."""

    result: DesignResult
    context: Mapping[str, Any]  # the templates' keys for the design chapters
    cabling_attachment: CablingAttachment | None = None


def drawing_labels() -> dict[str, str]:
    """Labels inside the SVG drawings, in the active language (the design page's, plus the
    plan's phases, named as everywhere else: `core.vocabulary.PHASE_NAMES`)."""
    return {
        **presenters.topology_labels(),
        **presenters.role_labels(),
        **plan_labels(),  # phases and deliverables of the Gantt chart
        "title": _("Cable lengths"),
        **{key: str(name) for key, name in vocabulary.PHASE_NAMES.items()},
    }


def style_reason(style: str) -> str:
    reasons = {
        "rail": _(
            "Rail-optimized: NIC n of every server connects to leaf n of its scalable unit, so "
            "collective traffic between GPUs of the same rank stays one hop from the leaf, and "
            "any GPU still reaches any other through the spines."
        ),
        "rail-plane": _(
            "Rail-optimized with the spine layer split into planes, one per rail group: cross-rail "
            "traffic stays inside the server (NVLink), so two tiers reach far larger clusters."
        ),
        "tor": _(
            "Top-of-rack: every server connects to its rack's leaf (or leaf pair), the classic "
            "layout for inference, storage and mixed workloads."
        ),
        "single": _("All ports fit one switch or one redundant pair: no spine layer is needed."),
        "packed": _("Ports are packed onto leaf switches in order, with spines when needed."),
    }
    return reasons.get(style, "")


def _rack_labels() -> dict[str, str]:
    return {
        "power": _("Typical"),
        "max": _("max"),
        "over": _("over its height"),
        "cable_manager": _("1U cable manager"),
    }


def failure_analysis(design: EngineDesign) -> list[dict[str, Any]]:
    """Worst single switch and link failure per plane, from the engine's graph check."""
    return [
        {
            "plane": plane.plane,
            "ecmp_paths": plane.ecmp_paths,
            "max_server_hops": plane.max_server_hops,
            "bisection_gbps": plane.bisection_gbps,
            "analytic_bisection_gbps": plane.analytic_bisection_gbps,
            "switch": plane.worst_switch_failure,
            "link": plane.worst_link_failure,
        }
        for plane in validate(design).planes
    ]


def _cabling_csv(design: EngineDesign, limit: int) -> bytes:
    """The attached schedule, streamed from the enumeration: tens of thousands of rows are
    written as they come, never held as a list beside their text."""
    rows: Iterator[CablingRow] = itertools.islice(iter_cabling(design), limit)
    return "".join(cabling_csv_chunks(rows)).encode()


def printed_cabling_rows(
    rows: list[CablingRow], gaps: Mapping[str, Text], unpriced: Collection[str]
) -> list[dict[str, Any]]:
    """Cabling rows as the proposal prints them: each end's cage and plug, a generic part by its
    name in the reader's language (marked while its quote line is still to be priced), and
    breakout legs ('+') allowed to wrap."""
    part_name = presenters.part_name

    def plug(name: str) -> dict[str, Any]:
        return {
            "name": part_name("", name, gaps),
            "to_be_priced": name in gaps and name in unpriced,
        }

    def end_plug(name: str, cable: str) -> dict[str, Any]:
        # No module: the cable's own end goes into the cage (DAC, AEC, AOC).
        return plug(name) if name != cable else {"name": _("cable end"), "to_be_priced": False}

    def form(value: str) -> str:
        return _("NIC") if value in ("", "NIC") else value

    return [
        {
            "label": row.label,
            "a_device": row.a_device.replace("+", "+\u200b"),
            "a_port": row.a_port.replace("+", "+\u200b"),
            "a_form_factor": form(row.a_form_factor),
            "a_plug": end_plug(row.a_plug, row.cable),
            "b_device": row.b_device.replace("+", "+\u200b"),
            "b_port": row.b_port.replace("+", "+\u200b"),
            "b_form_factor": form(row.b_form_factor),
            "b_plug": end_plug(row.b_plug, row.cable),
            "speed_gbps": row.speed_gbps,
            "media": row.media.value,
            "length_m": row.length_m,
            "links": row.links,
            "cable": plug(row.cable or row.cable_sku),
        }
        for row in rows
    ]


def expected_figures(result: DesignResult) -> dict[str, Any]:
    """What the validation tests should show on this design, from first principles:

    - RoCEv2 goodput per link: a 4096-byte RDMA payload travels with 78 bytes of headers and
      framing (preamble+IFG 20, Ethernet 14, IPv4 20, UDP 8, BTH 12, ICRC 4, FCS 4 = 82; 4096 /
      (4096 + 82) = 98.0 %), so ib_write_bw approaches 98 % of the line rate; we state 95 %.
    - NCCL all-reduce bus bandwidth across servers is bounded by the NIC bandwidth per GPU; the
      EZMAX brochure's baseline is > 95 % of line rate for large messages (chapter 5.2).
    - ib_write_lat: < 3 us between two servers through the fabric (brochure 5.2), plus about
      1 us per additional switch hop."""
    speed = float(result.bandwidth_per_gpu_gbps)
    tiers = result.tiers or 1
    hops = 1 if tiers == 1 else (3 if tiers == 2 else 5)
    return {
        "link_gbps": speed,
        "ib_write_bw_gbps": round(speed * 0.95, 1),
        "nccl_busbw_gbps": round(speed * 0.95, 1),
        "nccl_busbw_gbytes": round(speed * 0.95 / 8, 1),
        "switch_hops": hops,
        "latency_us": 3 + max(0, hops - 3) // 2,
    }


def rack_appendix(design: EngineDesign, result: DesignResult) -> dict[str, Any]:
    """The rack appendix: the racks counted as the design page and the API count them (the
    stored result's compute racks, `presenters.rack_count`), plus the network racks the
    elevations add; every rack drawn when few, else one of each distinct layout with how many
    racks share it, so a large design's appendix still shows what its racks hold."""
    elevations = design_elevations(design)
    count = presenters.rack_count(result, network_rack_count(elevations))
    appendix: dict[str, Any] = {
        "elevations_count": count,
        "elevations_warnings": [translated(w) for w in elevations.warnings],
        "elevations_typical": False,
        "elevations_layouts": 0,
    }
    if len(elevations.racks) <= RACKS_IN_PDF:
        appendix["elevations_svg"] = elevations_svg(elevations, _rack_labels())
        return appendix

    layouts = rack_layouts(elevations)
    shown = Elevations(
        racks=tuple(
            replace(layout.rack, name=f"{layout.rack.name} ×{layout.count:,}")
            for layout in layouts[:RACKS_IN_PDF]
        ),
        warnings=(),
        device_rack={},
        server_units=elevations.server_units,
        server_power_stated=elevations.server_power_stated,
    )
    appendix.update(
        elevations_svg=elevations_svg(shown, _rack_labels()),
        elevations_typical=True,
        elevations_layouts=len(layouts),
        elevations_layouts_shown=len(shown.racks),
    )
    return appendix


def design_document(
    *,
    frozen: FrozenDesign,
    design: Design | None,
    kind: str,
    start: date,
    unpriced: frozenset[str],
    customer_copy: bool,
    progress: Progress = lambda percent, step: None,
) -> DesignDocument:
    """The design chapters of a `kind` ("proposal" or "plan") document of the design a quote
    froze; `design`: the quote's saved design, when it still exists (the meaning chapter and
    the as-built appendix read it)."""
    result = frozen.typed_result
    if result is None:
        raise ValueError("a frozen design without a result has no document")
    labels = drawing_labels()
    names = presenters.product_names(result)
    bom_lines = tuple(presenters.bom_rows(result.bom, names, unpriced=unpriced))
    plan = presenters.result_plan(result, start=start, bom=list(bom_lines))
    context: dict[str, Any] = {
        "design_name": frozen.name,
        "scenario": design.get_scenario_display() if design is not None else "",
        # The engine's "price the generic parts before sending" holds until the quote prices
        # them: a document of a quote that has done so leaves it out.
        "result": presenters.shown_result(result, () if unpriced else ("catalog_gap",)),
        "unpriced_names": sorted({row.description for row in bom_lines if row.to_be_priced}),
        "racks": presenters.rack_count(result),
        "pools": pool_rows(result),
        "request": dict(frozen.request),
        "plan": plan,
        "gantt_svg": gantt_svg(plan, labels),
        "bom_lines": list(bom_lines),
    }
    if kind == "plan":  # phases 4 and 5's acceptance report: as built
        context.update(asbuilt_appendix_context(design=design))
        if context.get("asbuilt"):
            built = frozen_engine(frozen=frozen, design=design)
            if built is not None:
                context.update(rack_appendix(built, result))
        return DesignDocument(result=result, context=context)

    attachment = _proposal_chapters(
        context, frozen=frozen, design=design, result=result, names=names,
        unpriced=unpriced, customer_copy=customer_copy, progress=progress,
    )  # fmt: skip
    return DesignDocument(result=result, context=context, cabling_attachment=attachment)


def _proposal_chapters(
    context: dict[str, Any],
    *,
    frozen: FrozenDesign,
    design: Design | None,
    result: DesignResult,
    names: Mapping[str, str],
    unpriced: frozenset[str],
    customer_copy: bool,
    progress: Progress,
) -> CablingAttachment | None:
    """The proposal's design chapters, added to `context`: drawings, failure analysis, meaning,
    alternatives, racks, links and the cabling schedule (returned when it is to be attached)."""
    labels = drawing_labels()
    progress(30, "drawing")
    context["topology_svg"] = topology_svg(result, labels, width=700)
    context["lengths_svg"] = lengths_svg(result, labels, width=640)
    compute = result.compute
    context["style_reason"] = style_reason(compute.style if compute else result.fabric)
    progress(45, "analysis")
    # Each engine design is sized once per render: the quote's and the meaning chapter's are
    # one when the quote froze its design's request and snapshot (the usual case).
    designs = SizedDesigns()
    engine = frozen_engine(frozen=frozen, design=design, designs=designs)
    context["failures"] = failure_analysis(engine) if engine else []
    # The design's stored result is the one decoded above when the quote froze it as saved:
    # comparing the two JSON values costs far less than decoding it again.
    same = design is not None and design.result == frozen.result
    context["meaning"] = proposal_meaning(design, result=result if same else None, designs=designs)
    catalog = proposal_catalog(pinned_sha256=frozen.sizing_snapshot_sha256, design=design)
    alternatives = tuple(
        alternative_rows(
            request_data=dict(frozen.request), catalog=catalog, customer_copy=customer_copy
        )
        if catalog
        else ()
    )
    context["alternatives"] = alternatives
    if engine is not None:
        context.update(rack_appendix(engine, result))
    context["expected"] = expected_figures(result)
    context["link_rows"] = presenters.link_rows(result, names, unpriced)
    context["link_gaps"] = any(row["to_be_priced"] for row in context["link_rows"])
    context["power_max_w"] = result.power_max_w
    context["rack_units"] = result.rack_units
    progress(60, "cabling")
    cables = result.cables_total
    context["cabling_inline"] = []
    context["cabling_attached"] = False
    attachment = None
    if engine and cables <= CABLING_ROWS_IN_PDF:
        rows = list(itertools.islice(iter_cabling(engine), CABLING_ROWS_IN_PDF))
        context["cabling_inline"] = printed_cabling_rows(
            rows, presenters.gap_texts(result), unpriced
        )
    elif engine and cables <= CABLING_ROWS_ATTACHED:
        attachment = CablingAttachment(
            content=_cabling_csv(engine, CABLING_ROWS_ATTACHED),
            description=_("Cabling schedule"),
        )
        context["cabling_attached"] = True
    return attachment
