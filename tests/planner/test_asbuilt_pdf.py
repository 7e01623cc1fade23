"""The implementation plan as the acceptance report of phases 4 and 5: once the design's cabling
was checked as built, the plan PDF carries the punch list and the rack elevations as appendices."""

from __future__ import annotations

from datetime import date

import pytest

from planner.asbuilt import services as asbuilt_services
from quotes.documents import document_render, document_request
from quotes.models import DocumentStatus
from tests.planner.test_asbuilt import REQUEST, _faulty, _links, _lldp
from tests.quotes.test_documents import full_catalog, make_quote, pdf_text  # noqa: F401


@pytest.mark.slow
@pytest.mark.django_db
def test_plan_pdf_has_the_punch_list_and_rack_elevations(full_catalog, engineer):  # noqa: F811
    quote = make_quote(engineer, request=REQUEST)
    design = quote.design

    def plan_text(start: date) -> str:
        # A document is kept per revision, kind, language, template version and start date; a
        # plan's key carries the latest finished as-built check, so the same date asked again
        # after a check is a new document with the punch list.
        document = document_request(
            user=engineer, revision=quote.current_revision, kind="plan", language="en",
            start_date=start,
        )  # fmt: skip
        document = document_render(document_id=document.pk)
        assert document.status == DocumentStatus.READY, document.error
        return " ".join(pdf_text(document.file.read())[1].split())

    # No check yet: no appendix.
    assert "Appendix: cabling as built" not in plan_text(date(2026, 3, 2))
    check = asbuilt_services.asbuilt_check_request(
        user=engineer, design_id=design.pk, filename="cluster.json",
        data=_lldp(_faulty(_links(design))),
    )  # fmt: skip
    check = asbuilt_services.asbuilt_check_run(check_id=check.pk)
    text = plan_text(date(2026, 3, 2))  # the same date as before the check
    assert "Appendix: cabling as built" in text
    assert "Appendix: rack elevations" in text
    swapped = [row for row in check.result["punch"] if row["status"] == "swapped"]
    assert text.count("Swapped ends") >= 1 + len(swapped)  # the column head and each finding
    missing = next(row for row in check.result["punch"] if row["status"] == "missing")
    assert f"{missing['b_device']} {missing['b_port']}" in text
