"""The customer's details a proposal prints are frozen with the revision (issue 27, item 7):
a draft's PDF follows the customer's record as it changes; a submitted or approved revision
keeps the address and billing contact it was approved with, so that what the customer receives
is what was approved, cover included."""

import pytest
from django.template.loader import render_to_string
from django.utils import translation

from customers.services import contact_create, customer_update
from quotes.content import revision_content, revision_content_sha256
from quotes.documents import document_request
from quotes.models import QuoteRevision, QuoteStatus
from quotes.pdf import document_context
from quotes.services import revision_approve, revision_submit

OLD = "上海市浦东新区世纪大道 100 号"
NEW = "深圳市南山区科技园 1 号"


def _move(user, customer, address, billing=None):
    return customer_update(
        user=user,
        customer_id=customer.pk,
        name_en=customer.name_en,
        name_zh=customer.name_zh,
        preferred_language=customer.preferred_language,
        address=address,
        billing_contact_id=billing.pk if billing else None,
    )


def _cover(revision: QuoteRevision) -> str:
    """The proposal's cover as its renderer lays it out (the PDF is this HTML, typeset)."""
    with translation.override("en"):
        context, _attachments = document_context(
            QuoteRevision.objects.get(pk=revision.pk),
            kind="proposal",
            start_date=None,
            progress=lambda percent, step: None,
        )
        return render_to_string("documents/cover.html", context)


@pytest.mark.django_db
def test_a_drafts_proposal_follows_the_customers_record(quote, engineer, customer):
    _move(engineer, customer, OLD)
    revision = quote.revisions.get()
    first = document_request(user=engineer, revision=revision, language="en")
    assert OLD in _cover(revision)
    billing = contact_create(
        user=engineer, customer_id=customer.pk, name="王经理", email="wang@example.cn"
    )
    _move(engineer, customer, NEW, billing)
    second = document_request(user=engineer, revision=revision, language="en")
    # A new document of the new content: the one asked for before is not served for it.
    assert second.pk != first.pk
    assert second.content_sha256 != first.content_sha256
    revision.refresh_from_db()
    assert second.content_sha256 == revision.content_sha256 == revision_content_sha256(revision)
    cover = _cover(revision)
    assert NEW in cover
    assert OLD not in cover
    assert "wang@example.cn" in cover.split('data-testid="cover-billing-contact">')[1][:120]
    # Asked again with nothing changed: the same document.
    assert document_request(user=engineer, revision=revision, language="en").pk == second.pk


@pytest.mark.django_db
def test_an_approved_revision_keeps_the_details_it_was_approved_with(
    quote, engineer, manager, customer, discount_policy
):
    _move(engineer, customer, OLD)
    revision = quote.revisions.get()
    line = revision.lines.exclude(sku="").first()
    line.discount_percent = 15  # above the 10 % policy: a manager approves
    line.save()
    revision = revision_submit(user=engineer, revision=revision)
    assert revision.status == QuoteStatus.PENDING_APPROVAL
    revision = revision_approve(user=manager, revision=revision)
    approved = revision.approved_sha256
    assert revision.customer_details["address"] == OLD
    _move(engineer, customer, NEW)  # the customer moves after the approval
    document = document_request(user=engineer, revision=revision, language="en")
    revision.refresh_from_db()
    # Nothing of the approved content changed: the document is bound to it and says OLD.
    assert document.content_sha256 == revision.content_sha256 == approved
    assert revision_content_sha256(revision) == approved
    cover = _cover(revision)
    assert OLD in cover
    assert NEW not in cover


@pytest.mark.django_db
def test_a_revision_priced_before_details_were_kept_hashes_as_it_did(quote, engineer):
    revision = quote.revisions.get()
    assert revision.customer_details  # taken when the draft was priced
    content = revision_content(revision, list(revision.lines.all()))
    assert content["revision"]["customer"] == revision.customer_details
    # An older revision has none: its content, and so its recorded hash, has no such key.
    QuoteRevision.objects.filter(pk=revision.pk).update(customer_details={})
    revision.refresh_from_db()
    assert "customer" not in revision_content(revision, list(revision.lines.all()))["revision"]
    assert "Example AI Lab" in _cover(revision)  # its cover reads the customer's record
