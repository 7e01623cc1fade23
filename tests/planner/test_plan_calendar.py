"""The plan's calendar is mainland China's: public holidays skipped, adjusted working days
counted (from the `holidays` package, the State Council's published schedule), and the Gantt
draws exactly the table's dates, with the operations phase ongoing."""

import re
from datetime import date

import pytest
from django.template.loader import render_to_string
from django.utils import translation

from engine.result import BomLineResult
from planner.plan import (
    add_working_days,
    build_plan,
    calendar_days_between,
    is_working_day,
    phase_working_days,
)
from planner.svg import gantt_svg

NICS = BomLineResult(
    sku="NIC", description="NIC", quantity=16, power_w=0, power_max_w=0, rack_units=0,
    plane="compute", tier="server", category="nic",
)  # fmt: skip


def test_poc_before_the_spring_festival_skips_it_and_counts_the_adjusted_saturdays():
    # 2026: the State Council's schedule gives 15-23 February off and makes Saturdays 14 and
    # 28 February working days. A two-server POC lasts the brochure's low 3 weeks = 15 days.
    assert phase_working_days("poc", 2) == 15
    # From Monday 9 Feb: 9-13 Feb (5), Sat 14 (6), [15-23 off], 24-27 Feb (10), Sat 28 (11),
    # 2-5 March (15): the POC ends Thursday 5 March.
    assert add_working_days(date(2026, 2, 9), 15) == date(2026, 3, 5)
    # Weekdays alone would have ended it Friday 27 February, inside no holiday at all: the
    # holiday week costs exactly 6 weekdays (16-20 and 23 Feb) less the 2 Saturdays worked.
    assert not is_working_day(date(2026, 2, 17))  # Spring Festival
    assert not is_working_day(date(2026, 2, 23))  # a Monday off, moved from Saturday 28 Feb
    assert is_working_day(date(2026, 2, 14))  # a Saturday worked
    assert is_working_day(date(2026, 2, 28))  # a Saturday worked


def test_national_day_week_and_its_adjusted_sunday():
    # 1-7 October 2026 off; Sunday 20 September and Saturday 10 October are working days.
    assert add_working_days(date(2026, 9, 30), 2) == date(2026, 10, 8)
    # Friday 18 September, then the Sunday worked in lieu (Saturday 19 is off).
    assert add_working_days(date(2026, 9, 18), 2) == date(2026, 9, 20)
    # A plan starting on a holiday starts on the next working day.
    plan = build_plan(
        servers=2, su_servers=2, cables=4, switches=1, bom=[NICS], start=date(2026, 10, 1)
    )
    assert plan.start == date(2026, 10, 8)


def test_calendar_days_name_the_holidays_and_the_days_worked_in_both_languages():
    days = {d.day: d for d in calendar_days_between(date(2026, 2, 9), date(2026, 3, 6))}
    # Weekdays off: 16, 17, 18, 19, 20 and 23 February; weekend days worked: 14 and 28.
    assert sorted(d for d, e in days.items() if not e.working) == [
        date(2026, 2, d) for d in (16, 17, 18, 19, 20, 23)
    ]
    assert sorted(d for d, e in days.items() if e.working) == [
        date(2026, 2, 14), date(2026, 2, 28),
    ]  # fmt: skip
    assert "Spring Festival" in days[date(2026, 2, 17)].name_en
    assert days[date(2026, 2, 17)].name_zh == "春节"


def test_the_plan_crosses_the_spring_festival_and_its_phases_never_start_or_end_on_a_day_off():
    plan = build_plan(
        servers=256, su_servers=32, cables=4096, switches=48, bom=[NICS], start=date(2026, 1, 5)
    )
    for phase in plan.phases:
        assert is_working_day(phase.start)
        if phase.end is not None:
            assert is_working_day(phase.end)
    listed = {entry.day for entry in plan.calendar_days}
    assert date(2026, 2, 17) in listed
    assert date(2026, 2, 14) in listed


def _plan():
    return build_plan(
        servers=128, su_servers=32, cables=2048, switches=24, bom=[NICS], start=date(2026, 11, 23)
    )


def test_gantt_bars_are_the_tables_dates_and_operations_run_on():
    plan = _plan()
    svg = gantt_svg(plan, {"title": "Plan"})
    bars = re.findall(r'data-start="([\d-]+)" data-end="([\d-]+)"', svg)
    # One dated bar for each of the five phases that end, with the same dates as the table.
    assert bars == [(p.start.isoformat(), p.end.isoformat()) for p in plan.phases[:5]]
    ongoing = plan.phases[5]
    assert ongoing.key == "operations"
    assert ongoing.end is None
    assert ongoing.working_days is None
    # Its bar runs to the chart's edge: x + width = 760 wide - 20 margin - 8 for the arrow.
    match = re.search(r'<rect x="([\d.]+)" y="[\d.]+" width="([\d.]+)"[^>]*data-ongoing', svg)
    assert match is not None
    assert float(match[1]) + float(match[2]) == pytest.approx(732, abs=0.2)
    # Five milestone diamonds (carrying a deliverable title), none for the ongoing phase.
    assert svg.count("<title>") == 5


def test_bars_follow_each_other_left_to_right():
    plan = _plan()
    svg = gantt_svg(plan, {})
    # The bars' left edges (the background rect sits at y="0", the bars lower down).
    xs = [float(x) for x in re.findall(r'<rect x="([\d.]+)" y="[1-9]\d*" width', svg)]
    assert len(xs) == 6
    assert xs == sorted(xs)
    assert len(set(xs)) == 6


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_plan_section_states_each_phase_and_the_value_added_services(language):
    plan = build_plan(
        servers=128, su_servers=32, cables=2048, switches=24, bom=[NICS], start=date(2026, 2, 2)
    )
    with translation.override(language):
        html = render_to_string(
            "documents/plan_section.html", {"plan": plan, "gantt_svg": "", "kind": "plan"}
        )
    # Every phase has its main work, deliverable, both parties and acceptance: 5 rows each.
    for key in ("requirements", "design", "poc", "pilot", "full", "operations"):
        block = html.split(f'<div class="plan-phase" data-phase="{key}">')[1].split("</div>")[0]
        assert block.count("<tr>") == 6  # duration + main work, deliverable, EZMAX, customer,
        # acceptance
    # The Spring Festival falls in the schedule: its name in the reader's language.
    assert ("春节" if language == "zh-hans" else "Spring Festival") in html
    if language == "en":
        for service in (
            "Free POC support",
            "Compatibility certification",
            "Turnkey delivery",
            "Regular follow-up",
        ):
            assert service in html
        assert "ongoing" in html
        assert "NCCL tests" in html


def test_the_proposal_keeps_the_summary_and_the_plan_document_the_detail():
    plan = _plan()
    context = {"plan": plan, "gantt_svg": ""}
    with translation.override("en"):
        proposal = render_to_string("documents/plan_section.html", {**context, "kind": "proposal"})
        document = render_to_string("documents/plan_section.html", {**context, "kind": "plan"})
    assert 'class="plan-phases"' in proposal  # the phase table is in both
    assert 'class="plan-phase"' not in proposal
    assert document.count('class="plan-phase"') == 6
