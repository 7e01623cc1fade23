"""The implementation-plan PDF read back in each language: a project starting before the 2026
Spring Festival lists it as days off, every phase states its work and acceptance, the value-added
services are there, and operations are ongoing."""

from datetime import date

import pytest

from quotes.documents import document_render, document_request
from quotes.models import DocumentStatus
from tests.quotes.test_documents import full_catalog, make_quote, pdf_text  # noqa: F401

EXPECTED = {
    "en": [
        "Spring Festival",
        "Sample deployment, NCCL tests, RDMA performance benchmarks.",
        "Free POC support",
        "Compatibility certification",
        "Turnkey delivery",
        "Regular follow-up",
        "Acceptance",
        "ongoing",
    ],
    # The holidays' names come from the holidays package; the rest is the lead's catalogue.
    "zh-hans": ["春节"],
}


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_plan_pdf_reads_back_with_the_holidays_phases_and_services(
    full_catalog,  # noqa: F811
    engineer,
    language,
):
    revision = make_quote(engineer).current_revision
    document = document_request(
        user=engineer,
        revision=revision,
        kind="plan",
        language=language,
        start_date=date(2026, 2, 2),  # a Monday, two weeks before the Spring Festival
    )
    document = document_render(document_id=document.pk)
    assert document.status == DocumentStatus.READY, document.error
    _reader, text = pdf_text(document.file.read())
    flat = " ".join(text.split())
    for expected in EXPECTED[language]:
        assert expected in flat, expected
    # 2026-02-17 (Spring Festival) is listed as a day off; 2026-02-14, a Saturday, is worked.
    assert "2026-02-17" in flat
    assert "2026-02-14" in flat
