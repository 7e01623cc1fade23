"""In real headless Chromium, with a real worker: the engineer asks for the proposal PDF on the
quote page, watches the progress bar update without a reload, and downloads the PDF."""

import io
from pathlib import Path

import pytest
from pypdf import PdfReader

from customers.models import Customer
from planner.services import design_create
from quotes.models import Document, DocumentStatus
from quotes.services import quote_create
from tests.conftest import load_seed_catalog, screenshot
from tests.quotes.test_browser import log_in

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser, pytest.mark.worker]


def test_progress_bar_then_download(live_server, page, engineer, start_worker):
    load_seed_catalog()
    customer = Customer.objects.create(
        name_en="Acme AI Lab", name_zh="极智算力实验室", team=engineer.membership.team,
        preferred_language="en",
    )  # fmt: skip
    design = design_create(
        owner=engineer,
        name="1,024 GPUs",
        request_data={
            "gpus": 1024,
            "gpus_per_server": 8,
            "nic_speed": 400,
            "fabric": "rail",
            "leaf": "DCS-7060DX5-64S",
        },
    )
    quote = quote_create(user=engineer, design=design, customer=customer)
    start_worker()

    log_in(page, live_server.url, "engineer")
    page.goto(f"{live_server.url}/quotes/{quote.pk}/")
    page.select_option("select[name=language]", "en")
    page.click("form.document-form button[type=submit]")
    # The page reloads once after the request, then only the document row polls (htmx).
    page.wait_for_selector("li.document")
    url_before = page.url
    screenshot(page, "documents-1-queued")
    link = page.wait_for_selector("[data-testid=document-download]", timeout=120_000)
    assert page.url == url_before  # no reload while rendering
    screenshot(page, "documents-2-ready")
    with page.expect_download() as download_info:
        link.click()
    pdf = Path(download_info.value.path()).read_bytes()
    document = Document.objects.get()
    assert document.status == DocumentStatus.READY
    assert document.size_bytes == len(pdf)
    text = "\n".join(p.extract_text() or "" for p in PdfReader(io.BytesIO(pdf)).pages)
    assert quote.number in text
