"""Every write endpoint of the API, read from the OpenAPI schema, against the four rules:

- no credentials: 401;
- a read-only token of the very user who may write: 403 (writes need the read-write scope);
- another team's object, named in the path or in the body (a customer, design, opportunity,
  quote, line, subscription): 404, exactly as a missing one;
- the owner: 2xx.

`WRITES` holds one case per (method, path) of the schema; `test_every_write_endpoint_is_covered`
fails the day an endpoint is added without its case. A case that involves no team's object (the
catalog is shared, a preview names nothing) says why instead of listing variants.

Reads of one object (`READS`: every GET with an id in its path) follow the same rule: the
owner's is a 200, another team's a 404."""

import hashlib
from dataclasses import dataclass, field
from decimal import Decimal
from types import SimpleNamespace
from typing import Any

import pytest
from django.core.files.base import ContentFile
from rest_framework.test import APIClient

from core.models import TokenScope, WebhookSubscription
from core.roles import CATALOG_MANAGER, SALES_ENGINEER, SALES_MANAGER
from core.services import api_token_create
from customers.models import Opportunity
from planner.asbuilt.services import asbuilt_check_request, asbuilt_check_run
from planner.exports.jobs import export_request, export_run
from planner.serializers import REQUEST_EXAMPLE
from planner.services import design_create
from quotes import services
from quotes.models import DiscountPolicy, Document, DocumentStatus
from tests.conftest import load_seed_catalog
from tests.core.factories import UserFactory
from tests.quotes.factories import CustomerFactory, DesignFactory, manager_policy

pytestmark = pytest.mark.django_db
WRITE_METHODS = {"post", "put", "patch", "delete"}
PUBLIC_HOOK = "https://93.184.216.34/hooks"  # a public address: no DNS, passes the target check
NEW_PRODUCT = {
    "sku": "EZMAX-TEST-1",
    "category": "service",
    "vendor": "EZMAX",
    "lifecycle": "planned",
    "name_en": "Test service",
    "name_zh": "测试服务",
}


@dataclass
class Call:
    """One request: who makes it, where, with what, and the 2xx it should get."""

    user: Any
    url: str
    body: dict[str, Any] | None = None
    ok: int = 200
    # The same request naming another team's object (in the path or the body) instead.
    others: list[tuple[str, dict[str, Any] | None]] = field(default_factory=list)
    # Why there is no other team's object to try (shared catalog, nothing named).
    no_others: str = ""


@pytest.fixture
def w(roles):
    """Team A (engineer, manager) and Team B (outsider), each with a customer, an opportunity, a
    design and a draft quote; the seed catalog; approval above a 10% line discount."""
    load_seed_catalog()
    DiscountPolicy.objects.all().delete()
    manager_policy(threshold="10")
    world = SimpleNamespace()
    world.engineer = UserFactory(username="engineer", role=SALES_ENGINEER, team_name="Team A")
    world.manager = UserFactory(username="manager", role=SALES_MANAGER, team_name="Team A")
    world.outsider = UserFactory(username="outsider", role=SALES_ENGINEER, team_name="Team B")
    world.catalog_manager = UserFactory(
        username="catalogue", role=CATALOG_MANAGER, team_name="Catalog"
    )
    for side, user in (("ours", world.engineer), ("theirs", world.outsider)):
        team = user.membership.team
        customer = CustomerFactory(team=team)
        design = DesignFactory(owner=user)
        quote = services.quote_create(user=user, design=design, customer=customer)
        opportunity = Opportunity.objects.create(customer=customer, name="Deal", owner=user)
        subscription = WebhookSubscription.objects.create(
            user=user, url=PUBLIC_HOOK, secret="whsec_test", events=["design.created"]
        )
        setattr(
            world,
            side,
            SimpleNamespace(
                customer=customer,
                design=design,
                quote=quote,
                opportunity=opportunity,
                subscription=subscription,
                line=quote.current_revision.lines.order_by("pk").first(),
            ),
        )
    return world


def _quote_url(quote, action=""):
    return f"/api/v1/quotes/{quote.pk}/{action}"


def _pending(w):
    """Our quote waiting for a manager: a 15% discount is above the 10% policy."""
    revision = w.ours.quote.current_revision
    services.revision_discount_apply(
        user=w.engineer, revision=revision, discount_percent=Decimal("15")
    )
    services.revision_submit(user=w.engineer, revision=revision)


def _approved(w):
    services.revision_submit(user=w.engineer, revision=w.ours.quote.current_revision)


def _sent(w):
    _approved(w)
    services.revision_send(user=w.engineer, revision=w.ours.quote.current_revision)


def _archived(w):
    services.quote_archive(user=w.engineer, quote=w.ours.quote)


def _theirs_in_path(w, action, body=None):
    return [(_quote_url(w.theirs.quote, action), body)]


def quote_action(action, *, user="engineer", prepare=None, ok=200, body=None):
    def case(w):
        if prepare:
            prepare(w)
        return Call(
            getattr(w, user),
            _quote_url(w.ours.quote, action),
            body,
            ok,
            others=_theirs_in_path(w, action, body),
        )

    return case


def designs_create(w):
    body = {**REQUEST_EXAMPLE, "customer": w.ours.customer.pk}
    return Call(
        w.engineer,
        "/api/v1/designs/",
        body,
        201,
        others=[("/api/v1/designs/", {**REQUEST_EXAMPLE, "customer": w.theirs.customer.pk})],
    )


def designs_preview(w):
    return Call(
        w.engineer,
        "/api/v1/designs/preview/",
        REQUEST_EXAMPLE,
        no_others="a preview sizes a request and names no object",
    )


def designs_alternatives(w):
    return Call(
        w.engineer,
        "/api/v1/designs/alternatives/",
        REQUEST_EXAMPLE,
        no_others="alternatives size a request and name no object",
    )


def designs_resize(w):
    return Call(
        w.engineer,
        f"/api/v1/designs/{w.ours.design.pk}/resize/",
        ok=201,
        others=[(f"/api/v1/designs/{w.theirs.design.pk}/resize/", None)],
    )


def designs_meaning(w):
    # 8B parameters over the 32 GPUs at tensor 8: data parallel 4, 8e9 x 16 B / 8 = 16 GB a GPU.
    job = {"parameters": "8B", "tensor_parallel": 8}
    return Call(
        w.engineer,
        f"/api/v1/designs/{w.ours.design.pk}/meaning/",
        job,
        others=[(f"/api/v1/designs/{w.theirs.design.pk}/meaning/", job)],
    )


def designs_as_built(w):
    # One neighbour line of a sized 64-GPU design (leaf01 swp1 to srv0001 c1 is its first cable).
    body = {"filename": "n.csv", "content": "device,port,neighbor_device,neighbor_port\n"
            "leaf01,swp1,srv0001,c1\n"}  # fmt: skip
    ours = design_create(owner=w.engineer, name="64 GPUs", request_data=SMALL)
    theirs = design_create(owner=w.outsider, name="64 GPUs", request_data=SMALL)
    return Call(
        w.engineer,
        f"/api/v1/designs/{ours.pk}/as-built/",
        body,
        202,
        others=[(f"/api/v1/designs/{theirs.pk}/as-built/", body)],
    )


def quotes_create(w):
    ours = {"design": w.ours.design.pk, "customer": w.ours.customer.pk}
    return Call(
        w.engineer,
        "/api/v1/quotes/",
        {**ours, "opportunity": w.ours.opportunity.pk},
        201,
        others=[
            ("/api/v1/quotes/", {**ours, "design": w.theirs.design.pk}),
            ("/api/v1/quotes/", {**ours, "customer": w.theirs.customer.pk}),
            ("/api/v1/quotes/", {**ours, "opportunity": w.theirs.opportunity.pk}),
        ],
    )


def quote_line(w):
    ours, theirs = w.ours, w.theirs
    body = {"quantity": 2}
    return Call(
        w.engineer,
        f"/api/v1/quotes/{ours.quote.pk}/lines/{ours.line.pk}/",
        body,
        others=[
            (f"/api/v1/quotes/{theirs.quote.pk}/lines/{theirs.line.pk}/", body),
            # Their line under our quote: the line is looked up within the quote.
            (f"/api/v1/quotes/{ours.quote.pk}/lines/{theirs.line.pk}/", body),
        ],
    )


def quote_line_delete(w):
    ours, theirs = w.ours, w.theirs
    return Call(
        w.engineer,
        f"/api/v1/quotes/{ours.quote.pk}/lines/{ours.line.pk}/",
        others=[
            (f"/api/v1/quotes/{theirs.quote.pk}/lines/{theirs.line.pk}/", None),
            (f"/api/v1/quotes/{ours.quote.pk}/lines/{theirs.line.pk}/", None),
        ],
    )


def quote_documents(w):
    return Call(
        w.engineer,
        f"/api/v1/quotes/{w.ours.quote.pk}/documents/",
        {},
        202,
        others=[(f"/api/v1/quotes/{w.theirs.quote.pk}/documents/", {})],
    )


def customers_upsert(w):
    return Call(
        w.engineer,
        "/api/v1/customers/by-external-id/hubspot/C-1/",
        {"name_en": "Example AI Lab"},
        201,
        no_others="creates or updates a customer of the caller's own team; a CRM id another "
        "team holds is a 409 conflict (tests/customers/test_api.py)",
    )


def opportunities_upsert(w):
    url = "/api/v1/opportunities/by-external-id/hubspot/D-1/"
    return Call(
        w.engineer,
        url,
        {"customer": w.ours.customer.pk, "name": "Deal"},
        201,
        others=[(url, {"customer": w.theirs.customer.pk, "name": "Deal"})],
    )


CATALOG_IS_SHARED = "the catalog is shared by every team: the model permission decides"


def products_create(w):
    return Call(
        w.catalog_manager, "/api/v1/products/", NEW_PRODUCT, 201, no_others=CATALOG_IS_SHARED
    )


def products_put(w):
    return Call(
        w.catalog_manager,
        "/api/v1/products/NETI710-4CP/",
        {**NEW_PRODUCT, "sku": "NETI710-4CP", "category": "nic"},
        no_others=CATALOG_IS_SHARED,
    )


def products_patch(w):
    return Call(
        w.catalog_manager,
        "/api/v1/products/NETI710-4CP/",
        {"lifecycle": "end_of_sale"},
        no_others=CATALOG_IS_SHARED,
    )


def products_delete(w):
    api = APIClient()
    api.force_authenticate(w.catalog_manager)
    assert api.post("/api/v1/products/", NEW_PRODUCT, format="json").status_code == 201
    return Call(
        w.catalog_manager, "/api/v1/products/EZMAX-TEST-1/", ok=204, no_others=CATALOG_IS_SHARED
    )


def webhooks_create(w):
    return Call(
        w.engineer,
        "/api/v1/webhooks/",
        {"url": PUBLIC_HOOK, "events": ["design.created"]},
        201,
        no_others="a new subscription names no object",
    )


def webhooks_delete(w):
    return Call(
        w.engineer,
        f"/api/v1/webhooks/{w.ours.subscription.pk}/",
        ok=204,
        others=[(f"/api/v1/webhooks/{w.theirs.subscription.pk}/", None)],
    )


WRITES = {
    ("put", "/api/v1/customers/by-external-id/{source}/{external_id}/"): customers_upsert,
    ("post", "/api/v1/designs/"): designs_create,
    ("post", "/api/v1/designs/preview/"): designs_preview,
    ("post", "/api/v1/designs/alternatives/"): designs_alternatives,
    ("post", "/api/v1/designs/{id}/resize/"): designs_resize,
    ("post", "/api/v1/designs/{id}/meaning/"): designs_meaning,
    ("post", "/api/v1/designs/{id}/as-built/"): designs_as_built,
    ("put", "/api/v1/opportunities/by-external-id/{source}/{external_id}/"): opportunities_upsert,
    ("post", "/api/v1/products/"): products_create,
    ("put", "/api/v1/products/{sku}/"): products_put,
    ("patch", "/api/v1/products/{sku}/"): products_patch,
    ("delete", "/api/v1/products/{sku}/"): products_delete,
    ("post", "/api/v1/quotes/"): quotes_create,
    ("post", "/api/v1/quotes/{id}/submit/"): quote_action("submit"),
    ("post", "/api/v1/quotes/{id}/approve/"): quote_action(
        "approve", user="manager", prepare=_pending
    ),
    ("post", "/api/v1/quotes/{id}/reject/"): quote_action(
        "reject", user="manager", prepare=_pending, body={"reason": "Too deep a discount."}
    ),
    ("post", "/api/v1/quotes/{id}/send/"): quote_action("send", prepare=_approved),
    ("post", "/api/v1/quotes/{id}/revise/"): quote_action("revise", prepare=_sent, ok=201),
    ("post", "/api/v1/quotes/{id}/withdraw/"): quote_action("withdraw", prepare=_approved, ok=201),
    ("patch", "/api/v1/quotes/{id}/lines/{line_id}/"): quote_line,
    ("delete", "/api/v1/quotes/{id}/lines/{line_id}/"): quote_line_delete,
    ("patch", "/api/v1/quotes/{id}/terms/"): quote_action(
        "terms", body={"goods_tax_percent": "13", "services_tax_percent": "6"}
    ),
    ("put", "/api/v1/quotes/{id}/freight/"): quote_action("freight", body={"amount": "1200.00"}),
    ("post", "/api/v1/quotes/{id}/archive/"): quote_action("archive"),
    ("post", "/api/v1/quotes/{id}/restore/"): quote_action("restore", prepare=_archived),
    ("delete", "/api/v1/quotes/{id}/"): quote_action("", ok=204),
    ("post", "/api/v1/quotes/{quote_pk}/documents/"): quote_documents,
    ("post", "/api/v1/webhooks/"): webhooks_create,
    ("delete", "/api/v1/webhooks/{id}/"): webhooks_delete,
}


def write_operations(client):
    paths = client.get("/api/v1/schema/?format=json").json()["paths"]
    for path, operations in paths.items():
        for method in operations:
            if method in WRITE_METHODS:
                yield method, path


def test_every_write_endpoint_is_covered(client):
    assert sorted(write_operations(client)) == sorted(WRITES)


def as_user(user):
    api = APIClient()
    api.force_authenticate(user)
    return api


def with_token(user, scope):
    _token, secret = api_token_create(user=user, name="matrix", scope=scope)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    return api


def send(api, method, url, body):
    return (
        getattr(api, method)(url, body, format="json")
        if body is not None
        else getattr(api, method)(url)
    )


@pytest.mark.parametrize(("method", "path"), sorted(WRITES), ids=lambda v: v)
def test_write_endpoint(method, path, w):
    call = WRITES[(method, path)](w)
    assert call.others or call.no_others, "name another team's object, or say why there is none"

    response = send(APIClient(), method, call.url, call.body)
    assert response.status_code == 401, response.content
    assert response["Content-Type"] == "application/problem+json"

    response = send(with_token(call.user, TokenScope.READ), method, call.url, call.body)
    assert response.status_code == 403, response.content
    assert response["Content-Type"] == "application/problem+json"

    # Another team's object first: a 404 must change nothing, so the owner's call still works.
    for url, body in call.others:
        response = send(as_user(call.user), method, url, body)
        assert response.status_code == 404, (url, body, response.content)
        assert response["Content-Type"] == "application/problem+json"

    # Through a read-write token, as an integration calls it.
    response = send(with_token(call.user, TokenScope.READ_WRITE), method, call.url, call.body)
    assert response.status_code == call.ok, response.content


# --- Reads of one object ---------------------------------------------------------------------

PDF = b"%PDF-1.4 a stand-in for a rendered proposal"
SMALL = {"gpus": 64, "gpus_per_server": 8, "nic_speed": 400, "fabric": "rail", "leaf": "64x400"}


def _ready_document(quote, user):
    document = Document.objects.create(
        revision=quote.current_revision,
        kind="proposal",
        language="en",
        template_version="1",
        start_date="2026-01-01",
        requested_by=user,
        status=DocumentStatus.READY,
        sha256=hashlib.sha256(PDF).hexdigest(),
    )
    document.file.save(f"matrix-{document.pk}.pdf", ContentFile(PDF))
    return document


def _design_read(suffix):
    return lambda w, side: f"/api/v1/designs/{side.sized.pk}/{suffix}"


def _quote_read(suffix):
    return lambda w, side: f"/api/v1/quotes/{side.quote.pk}/{suffix}"


def _export_read(suffix):
    """A done export job of the side's design (planner.exports.jobs, run in process)."""

    def url(w, side):
        job = export_run(job_id=export_request(user=side.sized.owner, design=side.sized).pk)
        return f"/api/v1/designs/{side.sized.pk}/exports/{job.pk}/{suffix}"

    return url


def _asbuilt_read(w, side):
    """A done as-built check of the side's design (planner.asbuilt.services, run in process)."""
    check = asbuilt_check_request(
        user=side.sized.owner, design_id=side.sized.pk, filename="n.csv",
        data=b"device,port,neighbor_device,neighbor_port\nleaf01,swp1,srv0001,c1\n",
    )  # fmt: skip
    asbuilt_check_run(check_id=check.pk)
    return f"/api/v1/designs/{side.sized.pk}/as-built/{check.pk}/"


READS = {
    "/api/v1/customers/{id}/": lambda w, side: f"/api/v1/customers/{side.customer.pk}/",
    "/api/v1/designs/{id}/": _design_read(""),
    "/api/v1/designs/{id}/bom.csv/": _design_read("bom.csv"),
    "/api/v1/designs/{id}/bom.xlsx/": _design_read("bom.xlsx"),
    "/api/v1/designs/{id}/cabling.csv/": _design_read("cabling.csv"),
    "/api/v1/designs/{id}/resize/": _design_read("resize/"),
    "/api/v1/designs/{id}/meaning/": _design_read("meaning/"),
    # 64 GPUs: under LABELS_SYNC_MAX_CABLES, so the owner's answer is the PDF itself (200).
    "/api/v1/designs/{id}/labels.pdf/": _design_read("labels.pdf"),
    # The handover files (planner.api.handover): 64 GPUs, far under every size limit.
    "/api/v1/designs/{id}/handover/launch-kit.zip/": _design_read("handover/launch-kit.zip"),
    "/api/v1/designs/{id}/handover/infragraph.json/": _design_read("handover/infragraph.json"),
    "/api/v1/designs/{id}/handover/simai.zip/": _design_read("handover/simai.zip"),
    "/api/v1/designs/{id}/handover/handover.zip/": _design_read("handover/handover.zip"),
    "/api/v1/designs/{id}/exports/{job_id}/": _export_read(""),
    "/api/v1/designs/{id}/exports/{job_id}/download/": _export_read("download/"),
    "/api/v1/designs/{id}/as-built/{check_id}/": _asbuilt_read,
    "/api/v1/documents/{id}/": lambda w, side: f"/api/v1/documents/{side.document.pk}/",
    "/api/v1/documents/{id}/download/": (
        lambda w, side: f"/api/v1/documents/{side.document.pk}/download/"
    ),
    "/api/v1/opportunities/{id}/": lambda w, side: f"/api/v1/opportunities/{side.opportunity.pk}/",
    "/api/v1/quotes/{id}/": _quote_read(""),
    "/api/v1/quotes/{id}/revisions/": _quote_read("revisions/"),
    "/api/v1/quotes/{id}/terms/": _quote_read("terms/"),
    "/api/v1/quotes/{id}/lines/{line_id}/": (
        lambda w, side: f"/api/v1/quotes/{side.quote.pk}/lines/{side.line.pk}/"
    ),
    "/api/v1/quotes/{id}/quote.xlsx/": _quote_read("quote.xlsx/"),
    "/api/v1/quotes/{quote_pk}/documents/": _quote_read("documents/"),
    "/api/v1/webhooks/{id}/": lambda w, side: f"/api/v1/webhooks/{side.subscription.pk}/",
    "/api/v1/webhooks/{id}/deliveries/": (
        lambda w, side: f"/api/v1/webhooks/{side.subscription.pk}/deliveries/"
    ),
    # The catalog is shared by every team: one product or media rule is everyone's.
    "/api/v1/products/{sku}/": None,
    "/api/v1/media-rules/{id}/": None,
}


def object_reads(client):
    paths = client.get("/api/v1/schema/?format=json").json()["paths"]
    return sorted(path for path, operations in paths.items() if "get" in operations and "{" in path)


def test_every_read_of_one_object_is_covered(client):
    assert object_reads(client) == sorted(READS)


@pytest.mark.parametrize("path", sorted(p for p, url in READS.items() if url), ids=str)
def test_another_teams_object_is_404_to_read(path, w):
    for side, user in ((w.ours, w.engineer), (w.theirs, w.outsider)):
        side.document = _ready_document(side.quote, user)
        # Sized by the engine (the quotes' designs are hand-written rows the exports do not read).
        side.sized = design_create(owner=user, name="64 GPUs", request_data=SMALL)
    url = READS[path]
    response = as_user(w.engineer).get(url(w, w.theirs))
    assert response.status_code == 404, response.content
    assert response["Content-Type"] == "application/problem+json"
    assert as_user(w.engineer).get(url(w, w.ours)).status_code == 200
