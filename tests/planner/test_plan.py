"""The phased implementation plan: brochure durations (chapter 八), weekends skipped, BOM split.
Holidays and adjusted working days: tests/planner/test_plan_calendar.py."""

from datetime import date

from hypothesis import given
from hypothesis import strategies as st

from engine.result import BomLineResult
from planner.plan import (
    ACCEPTANCE_DAYS,
    CABLES_PER_CREW_DAY,
    add_working_days,
    build_plan,
    deployment_working_days,
    is_working_day,
    phase_working_days,
    split_quantity,
)
from planner.svg import gantt_svg

NICS = BomLineResult(
    sku="NIC", description="NIC", quantity=1024, power_w=0, power_max_w=0, rack_units=0,
    plane="compute", tier="server", category="nic",
)  # fmt: skip


def test_working_days_skip_weekends():
    # 2026-11-27 is a Friday: 3 working days are Fri 27, Mon 30 Nov, Tue 1 Dec.
    assert add_working_days(date(2026, 11, 27), 3) == date(2026, 12, 1)
    # Starting on a Saturday moves to Monday first: 1 working day is Mon 2026-11-30.
    assert add_working_days(date(2026, 11, 28), 1) == date(2026, 11, 30)
    # 10 working days from Monday 2026-11-23 end on Friday 2026-12-04 (two full weeks).
    assert add_working_days(date(2026, 11, 23), 10) == date(2026, 12, 4)


def test_brochure_durations_scale_with_cluster_size():
    # Brochure: requirements 1-2 weeks, POC 3-4 weeks; 5 working days per week.
    assert phase_working_days("requirements", 8) == 5
    assert phase_working_days("requirements", 512) == 10
    assert phase_working_days("poc", 2) == 15
    assert phase_working_days("poc", 4096) == 20
    middle = phase_working_days("design", 64)
    assert 10 <= middle <= 15


def test_deployment_days_follow_crew_throughput():
    # 1,200 cables at 120 per crew-day with 2 crews = 5 days; 16 switches at 4 per crew-day with 2
    # crews = 2 days; plus the acceptance week.
    assert CABLES_PER_CREW_DAY == 120
    assert deployment_working_days(cables=1200, switches=16, crews=2) == 5 + 2 + ACCEPTANCE_DAYS


def test_plan_phases_follow_each_other_without_overlap():
    plan = build_plan(
        servers=128,
        su_servers=32,
        cables=2048,
        switches=24,
        bom=[NICS],
        start=date(2026, 11, 22),  # a Sunday: the project starts Monday 2026-11-23
    )
    assert plan.start == date(2026, 11, 23)
    assert [p.key for p in plan.phases] == [
        "requirements", "design", "poc", "pilot", "full", "operations",
    ]  # fmt: skip
    for before, after in zip(plan.phases, plan.phases[1:], strict=False):
        assert before.end is not None  # only the last phase (operations) is ongoing
        assert after.start > before.end
        assert is_working_day(after.start)
    assert plan.phases[-1].ongoing
    assert plan.phases[-1].end is None
    assert plan.pilot_servers == 32  # one scalable unit
    line = plan.lines[0]
    # 1,024 NICs over 128 servers = 8 per server: POC 2 servers = 16, pilot 32 servers = 256.
    assert (line.poc, line.pilot, line.full) == (16, 256, 752)
    svg = gantt_svg(plan, {"requirements": "需求对接"})
    assert svg.startswith("<svg")
    assert "需求对接" in svg
    assert svg.count("<rect") == 1 + 6  # background + one bar per phase


@given(
    total=st.integers(min_value=0, max_value=10**6),
    servers=st.integers(min_value=1, max_value=100_000),
    data=st.data(),
)
def test_split_never_loses_or_invents_parts(total, servers, data):
    poc_servers = data.draw(st.integers(min_value=0, max_value=servers))
    pilot_servers = data.draw(st.integers(min_value=0, max_value=servers - poc_servers))
    poc, pilot, full = split_quantity(total, servers, poc_servers, pilot_servers)
    assert poc + pilot + full == total
    assert min(poc, pilot, full) >= 0
    if total and poc_servers:
        assert poc >= 1  # the POC kit holds at least one of every part
