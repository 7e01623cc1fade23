"""Every page with an object's id in its URL, read from the URL conf (as NetBox's view test cases
do), against the rules the API's matrix (tests/test_permission_matrix.py) holds:

- no session: no content (a redirect to the login page, or 405 where the page takes only POST);
- another team's object, by GET and by POST: 404 exactly as a missing one (405 where the method
  is not the page's), and a POST changes nothing;
- the owner: the page (200, a redirect to where it continues, or 405 for POST-only pages).

`PAGES` holds one entry per URL name; `test_every_object_page_is_covered` fails the day a page
with an id is added without one. Share pages (their token is the key, no session) and the admin
(staff only, Django's own) are out of scope and listed as such."""

import re

import pytest
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from customers.models import Contact
from planner.models import Design
from planner.services import design_create, design_save_draft
from quotes import services
from quotes.models import Quote, QuoteRevision
from tests.test_permission_matrix import SMALL, _ready_document, w  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db

ID = re.compile(r"<(?:int|slug|str|path):|\(\?P<")
OUT_OF_SCOPE = {
    "share": "the token is the key: no session, no team (tests/quotes/test_views.py)",
    "admin": "staff only, Django's own permission checks",
    "catalog:product-detail": "the catalog is shared by every team",
}


def object_pages() -> list[str]:
    """The names of every non-API page whose URL carries an id."""

    def walk(patterns, prefix, namespace):
        for entry in patterns:
            if isinstance(entry, URLResolver):
                inner = ":".join(n for n in (namespace, entry.namespace) if n)
                yield from walk(entry.url_patterns, prefix + str(entry.pattern), inner)
            elif isinstance(entry, URLPattern) and entry.name:
                yield prefix + str(entry.pattern), f"{namespace}:{entry.name}"

    names = set()
    for route, name in walk(get_resolver().url_patterns, "", ""):
        if route.startswith("api/") or not ID.search(route):
            continue
        if name in OUT_OF_SCOPE or name.split(":")[0] in OUT_OF_SCOPE:
            continue
        names.add(name)
    return sorted(names)


def _design(side):
    return {"pk": side.sized.pk}


def _quote(side):
    return {"pk": side.quote.pk}


def _revision(side):
    return {"pk": side.quote.pk, "number": 0}


PAGES = {
    "customers:contact-edit": lambda side: {"pk": side.contact.pk},
    "customers:contact-create": lambda side: {"pk": side.customer.pk},
    "customers:customer-detail": lambda side: {"pk": side.customer.pk},
    "customers:customer-edit": lambda side: {"pk": side.customer.pk},
    "planner:asbuilt": _design,
    "planner:asbuilt-check": lambda side: {"pk": side.sized.pk, "check_id": side.check.pk},
    "planner:asbuilt-punch-csv": lambda side: {"pk": side.sized.pk, "check_id": side.check.pk},
    "planner:bom-csv": _design,
    "planner:bom-xlsx": _design,
    "planner:cabling-csv": _design,
    "planner:design-archive": _design,
    "planner:design-copy": _design,
    "planner:design-delete": _design,
    "planner:design-detail": _design,
    "planner:design-meaning": _design,
    "planner:design-resize": _design,
    "planner:export-download": lambda side: {"pk": side.sized.pk, "job_id": side.job.pk},
    "planner:export-job": lambda side: {"pk": side.sized.pk, "job_id": side.job.pk},
    "planner:design-elevations": _design,
    "planner:handover": _design,
    "planner:handover-bundle": _design,
    "planner:handover-cabling-json": _design,
    "planner:handover-containerlab": _design,
    "planner:handover-infragraph": _design,
    "planner:handover-labels-csv": _design,
    "planner:handover-labels-pdf": _design,
    "planner:handover-launch-kit": _design,
    "planner:handover-netbox": _design,
    "planner:handover-racks-svg": _design,
    "planner:handover-racks-xlsx": _design,
    "planner:handover-simai": _design,
    "planner:handover-slurm": _design,
    "planner:request-json": _design,
    # The wizard edits drafts: its pages are about the side's draft.
    "planner:wizard": lambda side: {"pk": side.draft.pk, "step": "gpus"},
    "planner:wizard-pick": lambda side: {"pk": side.draft.pk},
    "planner:wizard-preview": lambda side: {"pk": side.draft.pk, "step": "gpus"},
    "quotes:document-create": _revision,
    "quotes:document-download": lambda side: {"pk": side.document.pk},
    "quotes:document-status": lambda side: {"pk": side.document.pk},
    "quotes:line-delete": lambda side: {"pk": side.quote.pk, "line_id": side.line.pk},
    "quotes:line-update": lambda side: {"pk": side.quote.pk, "line_id": side.line.pk},
    "quotes:meaning-growth": _quote,
    "quotes:meaning-spares": _quote,
    "quotes:quote-archive": lambda side: {"pk": side.quote.pk, "action": "archive"},
    "quotes:quote-detail": _quote,
    "quotes:quote-revise": _quote,
    "quotes:revision-action": lambda side: {"pk": side.quote.pk, "number": 0, "action": "submit"},
    "quotes:revision-discount": _revision,
    "quotes:revision-freight": _revision,
    "quotes:revision-lines": _revision,
    "quotes:revision-terms": _revision,
    "quotes:revision-xlsx": _revision,
    "quotes:line-add": _revision,
    "quotes:share-link-create": _revision,
    "quotes:share-link-revoke": lambda side: {"pk": side.quote.pk, "link_id": side.link.pk},
}


def test_every_object_page_is_covered():
    assert object_pages() == sorted(PAGES)


def _state():
    """What a refused POST must leave as it was."""
    return (
        list(Quote.objects.order_by("pk").values_list("pk", "status", "archived_at", "total")),
        list(QuoteRevision.objects.order_by("pk").values_list("pk", "status", "version")),
        list(Design.objects.order_by("pk").values_list("pk", "is_draft", "archived_at", "name")),
        list(Contact.objects.order_by("pk").values_list("pk", "name")),
    )


@pytest.fixture
def world(w):  # noqa: F811 (the API matrix's two teams)
    from planner.asbuilt.services import asbuilt_check_request, asbuilt_check_run
    from planner.exports.jobs import export_request, export_run

    for side, user in ((w.ours, w.engineer), (w.theirs, w.outsider)):
        side.document = _ready_document(side.quote, user)
        side.sized = design_create(owner=user, name="64 GPUs", request_data=SMALL)
        side.draft = design_save_draft(owner=user, request_data=SMALL, name="Draft")
        side.job = export_run(job_id=export_request(user=user, design=side.sized).pk)
        side.check = asbuilt_check_request(
            user=user, design_id=side.sized.pk, filename="n.csv",
            data=b"device,port,neighbor_device,neighbor_port\nleaf01,swp1,srv0001,c1\n",
        )  # fmt: skip
        asbuilt_check_run(check_id=side.check.pk)
        side.contact = Contact.objects.create(customer=side.customer, name="Li Wei")
        # A share link to withdraw: the quote sent (a draft needing no approval is submitted on
        # the way); sending makes the link.
        side.link = services.revision_send(user=user, revision=side.quote.current_revision)
        side.line = side.quote.current_revision.lines.order_by("pk").first()
    return w


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(PAGES), ids=str)
def test_an_object_page_as_anonymous_another_team_and_the_owner(name, world, client):
    ours, theirs = reverse(name, kwargs=PAGES[name](world.ours)), None
    theirs = reverse(name, kwargs=PAGES[name](world.theirs))

    # No session: nothing of the object, whatever the method.
    for method in ("get", "post"):
        response = getattr(client, method)(ours)
        assert response.status_code in (302, 405), (method, ours, response.status_code)
        if response.status_code == 302:
            assert response["Location"].startswith(reverse("login")), response["Location"]

    # Another team's object: as missing, and a POST changes nothing.
    client.force_login(world.engineer)
    before = _state()
    for method in ("get", "post"):
        response = getattr(client, method)(theirs)
        assert response.status_code in (404, 405), (method, theirs, response.status_code)
    assert _state() == before

    # The owner: the page, or where it continues.
    response = client.get(ours)
    assert response.status_code in (200, 302, 405), (ours, response.status_code)
