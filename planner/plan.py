"""The phased implementation plan of the EZMAX brochure (chapter 八, 项目实施路径), scaled to a
design: six phases with durations, calendar dates on mainland China's working days (weekends and
public holidays skipped, adjusted working days counted), milestones, and the bill of materials
split into what ships for the POC, the pilot batch and the full scale-out.

Pure Python (no Django): the documents, the quote's service lines and the design page use it.
The holidays come from the maintained `holidays` package (the State Council's schedule as
published; a year not yet published follows the statutory rules), never from a list kept here."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta
from functools import lru_cache
from typing import Protocol

import holidays

# Brochure durations in weeks (low, high). Full deployment is "按需" (as needed) and computed
# from the work; operations are "持续" (continuous): they start at go-live and have no end.
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
POC_SERVERS = 2  # the brochure's POC: sample hardware on two servers, NCCL and RDMA baselines


class BomItem(Protocol):
    """A bill-of-materials line as the plan reads it: a stored line (`BomLineResult`) or one
    with its description in the reader's language."""

    @property
    def sku(self) -> str: ...
    @property
    def description(self) -> str: ...
    @property
    def quantity(self) -> int: ...


@dataclass(frozen=True, kw_only=True)
class Phase:
    key: str  # requirements | design | poc | pilot | full | operations
    number: int
    start: date
    # Last working day, inclusive; None for the ongoing operations phase, which has no end.
    end: date | None
    working_days: int | None  # None when ongoing
    deliverable: str  # key of the milestone deliverable (translated by the templates)
    ongoing: bool = False


@dataclass(frozen=True, kw_only=True)
class CalendarDay:
    """A day the calendar treats differently from Monday-to-Friday: a public holiday on a
    weekday (skipped) or an adjusted working day on a weekend (counted)."""

    day: date
    working: bool  # True: a weekend day worked in lieu; False: a weekday off
    name_en: str
    name_zh: str


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
    # Holidays and adjusted working days between the start and go-live, as the calendar counted
    # them: the reader can check every date.
    calendar_days: tuple[CalendarDay, ...] = ()

    @property
    def start(self) -> date:
        return self.phases[0].start

    @property
    def go_live(self) -> date:
        """The end of full deployment: the date the whole cluster is in service."""
        end = next(p.end for p in self.phases if p.key == "full")
        assert end is not None  # only the operations phase is ongoing
        return end

    @property
    def working_days_total(self) -> int:
        """Working days from the start to go-live (the phases that end)."""
        return sum(p.working_days or 0 for p in self.phases)


DELIVERABLES = {
    "requirements": "requirements_report",
    "design": "detailed_design",
    "poc": "poc_report",
    "pilot": "pilot_acceptance",
    "full": "completion_report",
    "operations": "monthly_health_report",
}


@lru_cache(maxsize=64)
def _china(year: int, language: str = "en_US") -> holidays.HolidayBase:
    return holidays.country_holidays("CN", years=year, language=language)


@lru_cache(maxsize=64)
def _exceptions(year: int) -> tuple[frozenset[date], frozenset[date]]:
    """The year's weekdays off and weekend days worked, as sets: the calendar asks about every
    day of a plan (thousands for a million GPUs), so each question is a set lookup."""
    china = _china(year)
    weekdays_off = frozenset(day for day in china if day.weekday() < 5)
    weekends_worked = frozenset(
        day for day in getattr(china, "weekend_workdays", ()) if day.year == year
    )
    return weekdays_off, weekends_worked


def is_working_day(day: date) -> bool:
    """A working day in mainland China: Monday to Friday unless a public holiday (or a day off
    moved by the State Council), and a weekend day the State Council made a working day."""
    weekdays_off, weekends_worked = _exceptions(day.year)
    if day.weekday() >= 5:
        return day in weekends_worked
    return day not in weekdays_off


def next_working_day(day: date) -> date:
    while not is_working_day(day):
        day += timedelta(days=1)
    return day


def add_working_days(start: date, days: int) -> date:
    """The last working day of a span of `days` working days beginning on `start` (moved to the
    next working day when it is not one): weekends and public holidays are skipped, adjusted
    working days count."""
    if days < 1:
        raise ValueError("a phase lasts at least one working day")
    day = next_working_day(start)
    remaining = days - 1
    while remaining:
        day += timedelta(days=1)
        if is_working_day(day):
            remaining -= 1
    return day


def calendar_days_between(first: date, last: date) -> tuple[CalendarDay, ...]:
    """The public holidays on weekdays and the adjusted working days on weekends from `first`
    to `last` inclusive, with their names in English and Chinese (from the same package)."""
    found = []
    day = first
    while day <= last:
        weekend = day.weekday() >= 5
        working = is_working_day(day)
        if weekend == working:  # a weekday off, or a weekend day worked
            en, zh = _china(day.year), _china(day.year, "zh_CN")
            found.append(
                CalendarDay(
                    day=day,
                    working=working,
                    name_en=str(en.get(day) or ""),
                    name_zh=str(zh.get(day) or ""),
                )
            )
        day += timedelta(days=1)
    return tuple(found)


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
    bom: Iterable[BomItem],
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
    phases: list[Phase] = []
    day = next_working_day(start)
    for number, key in enumerate(PHASES, start=1):
        if key == "operations":
            # 持续 (continuous) in the brochure: support starts after go-live and has no end.
            phases.append(
                Phase(
                    key=key,
                    number=number,
                    start=day,
                    end=None,
                    working_days=None,
                    deliverable=DELIVERABLES[key],
                    ongoing=True,
                )
            )
            continue
        end = add_working_days(day, durations[key])
        phases.append(
            Phase(
                key=key,
                number=number,
                start=day,
                end=end,
                working_days=durations[key],
                deliverable=DELIVERABLES[key],
            )
        )
        day = next_working_day(end + timedelta(days=1))
    lines = []
    for line in bom:
        total = line.quantity
        poc, pilot, full = split_quantity(total, servers, poc_servers, pilot_servers)
        lines.append(
            PhasedLine(
                sku=line.sku,
                description=line.description,
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
        calendar_days=calendar_days_between(phases[0].start, phases[-1].start),
    )
