"""The phased implementation plan of the EZMAX brochure (chapter 八, 项目实施路径), scaled to a
design: six phases with durations, calendar dates that skip weekends, milestones, and the bill of
materials split into what ships for the POC, the pilot batch and the full scale-out.

Pure Python (no Django): the documents, the quote's service lines and the design page use it."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

# Brochure durations in weeks (low, high). Full deployment is "按需" (as needed) and computed
# from the work; operations are "持续" (continuous) and shown as the first month of support.
BROCHURE_WEEKS: dict[str, tuple[int, int]] = {
    "requirements": (1, 2),
    "design": (2, 3),
    "poc": (3, 4),
    "pilot": (2, 3),
}
PHASES = ("requirements", "design", "poc", "pilot", "full", "operations")
WORKING_DAYS_PER_WEEK = 5
# Scale: at or below SMALL_SERVERS a project takes the brochure's low figure, at or above
# LARGE_SERVERS its high one, linearly (in log2 of servers) in between.
SMALL_SERVERS = 8
LARGE_SERVERS = 512
# Installation crew throughput, stated as an assumption in the document: a crew of two installs,
# dresses and labels 120 cables per working day and racks and powers 4 switches per day.
CABLES_PER_CREW_DAY = 120
SWITCHES_PER_CREW_DAY = 4
ACCEPTANCE_DAYS = 5  # end-to-end NCCL/RDMA acceptance tests after the last rack
OPERATIONS_SHOWN_DAYS = 20  # the first month of 7x24 support, to place its milestone
POC_SERVERS = 2  # the brochure's POC: sample hardware on two servers, NCCL and RDMA baselines


@dataclass(frozen=True, kw_only=True)
class Phase:
    key: str  # requirements | design | poc | pilot | full | operations
    number: int
    start: date
    end: date  # last working day, inclusive
    working_days: int
    deliverable: str  # key of the milestone deliverable (translated by the templates)
    ongoing: bool = False


@dataclass(frozen=True, kw_only=True)
class PhasedLine:
    sku: str
    description: str
    total: int
    poc: int
    pilot: int
    full: int


@dataclass(frozen=True, kw_only=True)
class ImplementationPlan:
    phases: tuple[Phase, ...]
    poc_servers: int
    pilot_servers: int
    crews: int
    lines: tuple[PhasedLine, ...]

    @property
    def start(self) -> date:
        return self.phases[0].start

    @property
    def go_live(self) -> date:
        """The end of full deployment: the date the whole cluster is in service."""
        return next(p.end for p in self.phases if p.key == "full")


DELIVERABLES = {
    "requirements": "requirements_report",
    "design": "detailed_design",
    "poc": "poc_report",
    "pilot": "pilot_acceptance",
    "full": "completion_report",
    "operations": "monthly_health_report",
}


def next_working_day(day: date) -> date:
    while day.weekday() >= 5:  # Saturday=5, Sunday=6
        day += timedelta(days=1)
    return day


def add_working_days(start: date, days: int) -> date:
    """The last working day of a span of `days` working days beginning on `start` (a working
    day). Weekends are skipped; public holidays are not known here and are listed as an
    assumption in the documents."""
    if days < 1:
        raise ValueError("a phase lasts at least one working day")
    day = next_working_day(start)
    remaining = days - 1
    while remaining:
        day += timedelta(days=1)
        if day.weekday() < 5:
            remaining -= 1
    return day


def _scale(servers: int) -> float:
    """0.0 for small clusters, 1.0 for large ones, log-linear in between."""
    if servers <= SMALL_SERVERS:
        return 0.0
    if servers >= LARGE_SERVERS:
        return 1.0
    return math.log2(servers / SMALL_SERVERS) / math.log2(LARGE_SERVERS / SMALL_SERVERS)


def phase_working_days(key: str, servers: int) -> int:
    low, high = BROCHURE_WEEKS[key]
    weeks = low + (high - low) * _scale(servers)
    return max(1, round(weeks * WORKING_DAYS_PER_WEEK))


def deployment_working_days(*, cables: int, switches: int, crews: int) -> int:
    """Full deployment: installation at the crews' throughput, then acceptance testing."""
    per_day = crews * CABLES_PER_CREW_DAY
    cable_days = math.ceil(cables / per_day) if cables else 0
    switch_days = math.ceil(switches / (crews * SWITCHES_PER_CREW_DAY)) if switches else 0
    return max(1, cable_days + switch_days) + ACCEPTANCE_DAYS


def split_quantity(
    total: int, servers: int, poc_servers: int, pilot_servers: int
) -> tuple[int, int, int]:
    """Split one BOM line across POC, pilot and full scale in proportion to the servers each
    brings up, rounding the POC and pilot shares up (a POC kit holds at least one of every part,
    so every part type is tested) and giving full scale exactly the rest."""
    if total <= 0:
        return 0, 0, 0
    poc = min(total, math.ceil(total * poc_servers / servers))
    pilot = min(total - poc, math.ceil(total * pilot_servers / servers))
    return poc, pilot, total - poc - pilot


def build_plan(
    *,
    servers: int,
    su_servers: int,
    cables: int,
    switches: int,
    bom: Iterable[Mapping[str, Any]],
    start: date,
    crews: int | None = None,
) -> ImplementationPlan:
    """`su_servers` is one scalable unit: the pilot deploys one SU (at most half the cluster)."""
    if servers < 1:
        raise ValueError("a plan needs at least one server")
    poc_servers = min(POC_SERVERS, servers)
    pilot_servers = max(0, min(su_servers, servers // 2, servers - poc_servers))
    crews = crews or max(1, min(8, math.ceil(servers / 256)))
    durations = {key: phase_working_days(key, servers) for key in BROCHURE_WEEKS}
    durations["full"] = deployment_working_days(cables=cables, switches=switches, crews=crews)
    durations["operations"] = OPERATIONS_SHOWN_DAYS
    phases = []
    day = next_working_day(start)
    for number, key in enumerate(PHASES, start=1):
        end = add_working_days(day, durations[key])
        phases.append(
            Phase(
                key=key,
                number=number,
                start=day,
                end=end,
                working_days=durations[key],
                deliverable=DELIVERABLES[key],
                ongoing=key == "operations",
            )
        )
        day = next_working_day(end + timedelta(days=1))
    lines = []
    for line in bom:
        total = int(line["quantity"])
        poc, pilot, full = split_quantity(total, servers, poc_servers, pilot_servers)
        lines.append(
            PhasedLine(
                sku=str(line["sku"]),
                description=str(line.get("description", "")),
                total=total,
                poc=poc,
                pilot=pilot,
                full=full,
            )
        )
    return ImplementationPlan(
        phases=tuple(phases),
        poc_servers=poc_servers,
        pilot_servers=pilot_servers,
        crews=crews,
        lines=tuple(lines),
    )
