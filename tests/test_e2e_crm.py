"""Issue 8's end-to-end test, as the CRM would run it, against a real worker process: customer ->
opportunity -> design -> quote for the opportunity -> approval -> send -> PDF request ->
`document.ready` on a local webhook receiver with a valid signature -> download the PDF and read it
back."""

import io
import json
from decimal import Decimal

import pytest
from django.contrib.auth.models import Group
from pypdf import PdfReader
from rest_framework.test import APIClient

from core.models import TokenScope
from core.services import api_token_create
from core.webhooks import verify
from quotes.models import DiscountPolicy, PolicyMetric
from tests.conftest import IN_CI, load_seed_catalog, require_service
from tests.core.receiver import Receiver
from tests.waiting import wait_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.worker]


def token_client(user, scope=TokenScope.READ_WRITE) -> APIClient:
    _token, secret = api_token_create(user=user, name="crm", scope=scope)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    return client


# One journey, long on purpose (over 80 lines): the CRM's calls in the order an integration makes
# them, each answer feeding the next.
def test_crm_flow_end_to_end(settings, start_worker, engineer, manager):
    if IN_CI:
        require_service(bool(settings.REDIS_URL), "needs Redis: REDIS_URL is not set")
    load_seed_catalog()
    # Any quote over 1,000 CNY needs a sales manager's approval in this test.
    DiscountPolicy.objects.create(
        name="Total above 1,000",
        metric=PolicyMetric.TOTAL_AMOUNT,
        threshold=Decimal("1000"),
        currency="CNY",
        approver_group=Group.objects.get(name="sales-manager"),
    )
    receiver = Receiver()
    worker = start_worker()
    try:
        crm = token_client(engineer)
        approver = token_client(manager)

        customer = crm.put(
            "/api/v1/customers/by-external-id/hubspot/C-1001/",
            {"name_en": "Acme AI Lab", "name_zh": "极智算力实验室", "preferred_language": "en"},
            format="json",
        )
        assert customer.status_code == 201, customer.content
        again = crm.put(
            "/api/v1/customers/by-external-id/hubspot/C-1001/",
            {"name_en": "Acme AI Lab Ltd"},
            format="json",
        )
        assert again.status_code == 200
        assert again.json()["id"] == customer.json()["id"]

        hook = crm.post(
            "/api/v1/webhooks/",
            {"url": receiver.url, "events": ["document.ready", "quote.status_changed"]},
            format="json",
        )
        assert hook.status_code == 201
        secret = hook.json()["secret"]

        design = crm.post(
            "/api/v1/designs/",
            {"name": "Acme 256 GPUs", "gpus": 256, "gpus_per_server": 8, "nic_speed": 400,
             "fabric": "rail", "leaf": "DCS-7060DX5-64S", "customer": customer.json()["id"]},
            format="json",
            HTTP_IDEMPOTENCY_KEY="design-acme-1",
        )  # fmt: skip
        assert design.status_code == 201, design.content
        # RA-11333, 1 SU: 32 servers x 8 rails on 64-port switches at 1:1 = 8 leaves, 4 spines.
        assert design.json()["result"]["switches"] == {"leaf": 8, "spine": 4}

        deal = crm.put(
            "/api/v1/opportunities/by-external-id/hubspot/D-501/",
            {"customer": customer.json()["id"], "name": "Acme training cluster"},
            format="json",
        )
        assert deal.status_code == 201, deal.content
        quote = crm.post(
            "/api/v1/quotes/",
            {"design": design.json()["id"], "customer": customer.json()["id"],
             "opportunity": deal.json()["id"]},
            format="json",
        )  # fmt: skip
        assert quote.status_code == 201, quote.content
        assert quote.json()["opportunity"] == deal.json()["id"]
        quote_id = quote.json()["id"]
        number = quote.json()["number"]

        # Lines the catalog could not fill (generic parts) are priced before anything is sent.
        for line in quote.json()["current_revision"]["lines"]:
            if line["to_be_priced"]:
                priced = crm.patch(
                    f"/api/v1/quotes/{quote_id}/lines/{line['id']}/",
                    {"override_unit_price": "1000.00"},
                    format="json",
                )
                assert priced.status_code == 200, priced.content
        sent_early = crm.post(f"/api/v1/quotes/{quote_id}/send/")
        assert sent_early.status_code == 409, sent_early.content  # above the policy: approve first
        assert crm.post(f"/api/v1/quotes/{quote_id}/submit/").json()["status"] == (
            "pending_approval"
        )
        assert approver.post(f"/api/v1/quotes/{quote_id}/approve/").json()["status"] == "approved"
        assert crm.post(f"/api/v1/quotes/{quote_id}/send/").status_code == 200

        job = crm.post(f"/api/v1/quotes/{quote_id}/documents/", {"language": "en"}, format="json")
        assert job.status_code == 202
        job_url = job["Location"]

        def document_ready_delivery():
            for headers, body in receiver.requests:
                if json.loads(body)["type"] == "document.ready":
                    return headers, body
            return None

        headers, body = wait_for(
            document_ready_delivery, 180, "document.ready", every=0.2, log=worker.log_path
        )
        assert verify(secret=secret, headers=headers, body=body)
        event = json.loads(body)
        assert event["data"]["quote_number"] == number
        status_events = [
            json.loads(b)["data"]["new_status"]
            for _h, b in receiver.requests
            if json.loads(b)["type"] == "quote.status_changed"
        ]
        assert {"pending_approval", "approved", "sent"} <= set(status_events)

        status = crm.get(job_url).json()
        assert status["status"] == "ready"
        pdf = b"".join(crm.get(status["links"]["download"]).streaming_content)
        reader = PdfReader(io.BytesIO(pdf))
        text = "\n".join(page.extract_text() or "" for page in reader.pages)
        assert number in text
        assert event["data"]["sha256"] == status["sha256"]
    finally:
        receiver.close()
