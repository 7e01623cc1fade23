"""The transition table (quotes.transitions): the quote page shows exactly the actions a status
allows to the viewer's role, every refused action posted to a page gives the refusal in words (never
a 500), and the customer's page offers an answer only when the service would take it.

The expected sets below are written out from the rules, not read back from the table: an owner
(sales engineer) edits a draft, submits, withdraws a submitted revision to change it (issue 24:
submitting freezes it), sends, shares, withdraws links and revises; a sales manager of the
team also approves and sends back; nobody approves their own quote; PDFs can be made in every
status; links are withdrawn one by one, so "revoke_link" shows only where a link exists."""

import re
from datetime import timedelta
from decimal import Decimal
from html import unescape

import pytest
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from quotes import services, transitions
from quotes.models import Quote, QuoteRevision, QuoteStatus, ShareLink
from quotes.transitions import Action

pytestmark = pytest.mark.django_db
S = QuoteStatus

# Statuses in which the revision has been sent, so a share link exists on the page.
LINKED = {S.SENT, S.ACCEPTED, S.DECLINED, S.EXPIRED, S.SUPERSEDED}

OWNER_SEES = {
    # A draft never sent may be archived or deleted.
    S.DRAFT: {"edit", "submit", "send", "request_document", "archive", "delete"},
    # Submitted: frozen. Changing it means withdrawing it (a new draft revision opens).
    S.PENDING_APPROVAL: {"withdraw", "request_document"},
    S.APPROVED: {"withdraw", "send", "request_document"},
    S.SENT: {"share", "revoke_link", "revise", "request_document"},
    S.ACCEPTED: {"share", "revoke_link", "request_document"},
    S.DECLINED: {"revoke_link", "revise", "request_document"},
    S.EXPIRED: {"revoke_link", "revise", "request_document"},
    S.SUPERSEDED: {"revoke_link", "request_document"},
    S.WITHDRAWN: {"request_document"},
}
# A sales manager of the team (not the owner) may do what the owner does, and decide approvals.
MANAGER_SEES = {
    status: seen | ({"approve", "reject"} if status == S.PENDING_APPROVAL else set())
    for status, seen in OWNER_SEES.items()
}


def put_in_status(quote: Quote, status: str) -> QuoteRevision:
    """The quote's only revision in `status`, with an active share link once it has been sent."""
    revision = quote.current_revision
    QuoteRevision.objects.filter(pk=revision.pk).update(
        status=status, valid_until=timezone.localdate() + timedelta(days=30)
    )
    Quote.objects.filter(pk=quote.pk).update(status=status)
    if status in LINKED:
        ShareLink.objects.create(revision=revision, token=f"token-{status}", created_by=quote.owner)
    revision.refresh_from_db()
    return revision


def shown_actions(client, quote: Quote) -> set[str]:
    page = client.get(reverse("quotes:quote-detail", args=[quote.pk]))
    assert page.status_code == 200
    return set(re.findall(r'data-action="([a-z_]+)"', page.content.decode()))


@pytest.mark.parametrize("status", list(S))
def test_the_page_shows_exactly_the_allowed_actions_for_the_owner_and_a_manager(
    client, quote, engineer, manager, status
):
    revision = put_in_status(quote, status)
    client.force_login(engineer)
    assert shown_actions(client, quote) == OWNER_SEES[status]
    client.force_login(manager)
    assert shown_actions(client, quote) == MANAGER_SEES[status]
    # The page and the table agree: the table offers the same (less links not there to withdraw).
    for user, expected in ((engineer, OWNER_SEES), (manager, MANAGER_SEES)):
        offered = {str(a) for a in transitions.actions_for(user, revision, is_latest=True)}
        assert offered - ({"revoke_link"} if status not in LINKED else set()) == expected[status]


def test_send_waits_for_approval_and_nobody_approves_their_own_quote(
    client, quote, engineer, manager, discount_policy
):
    revision = quote.current_revision
    # 15% off every product line breaks the 10% policy: a sales manager must approve first.
    services.revision_discount_apply(
        user=engineer, revision=revision, discount_percent=Decimal("15")
    )
    client.force_login(engineer)
    assert shown_actions(client, quote) == {
        "edit", "submit", "request_document", "archive", "delete",
    }  # fmt: skip
    services.revision_submit(user=engineer, revision=revision)
    client.force_login(manager)
    assert {"approve", "reject"} <= shown_actions(client, quote)
    # The manager's own quote: sending back is offered, approving is not (the service refuses).
    Quote.objects.filter(pk=quote.pk).update(owner=manager)
    assert "approve" not in shown_actions(client, quote)
    assert "reject" in shown_actions(client, quote)
    with pytest.raises(services.NotPermitted, match="your own quote"):
        services.revision_approve(user=manager, revision=revision)


def test_a_line_to_be_priced_hides_submit_and_send(client, quote, engineer):
    revision = quote.current_revision
    line = revision.lines.get(sku="MSN2700-CS2F")
    line.sku = ""  # a catalog gap: no SKU, no price
    line.frozen_list_price = None
    line.save()
    services.revision_terms_update(user=engineer, revision=revision, terms="Net 30")  # reprices
    client.force_login(engineer)
    assert shown_actions(client, quote) == {"edit", "request_document", "archive", "delete"}


def test_an_older_revision_offers_no_revise(client, quote, engineer):
    services.revision_send(user=engineer, revision=quote.current_revision)
    services.quote_revise(user=engineer, quote=quote)
    client.force_login(engineer)
    older = client.get(reverse("quotes:quote-detail", args=[quote.pk]) + "?rev=0")
    assert set(re.findall(r'data-action="([a-z_]+)"', older.content.decode())) == {
        "share", "revoke_link", "request_document",
    }  # fmt: skip


# --- Refused actions posted to the pages ---------------------------------------------------------


def action_posts(quote: Quote, revision: QuoteRevision) -> dict[Action, list[tuple[str, dict]]]:
    """Every page endpoint of each staff action, with a valid body."""
    line = revision.lines.exclude(sku="").first()
    rev = [quote.pk, revision.number]
    return {
        Action.SUBMIT: [(reverse("quotes:revision-action", args=[*rev, "submit"]), {})],
        Action.APPROVE: [(reverse("quotes:revision-action", args=[*rev, "approve"]), {})],
        Action.REJECT: [
            (reverse("quotes:revision-action", args=[*rev, "reject"]), {"reason": "Too low"})
        ],
        Action.SEND: [(reverse("quotes:revision-action", args=[*rev, "send"]), {})],
        Action.SHARE: [(reverse("quotes:share-link-create", args=rev), {})],
        Action.REVISE: [(reverse("quotes:quote-revise", args=[quote.pk]), {})],
        Action.EDIT: [
            (reverse("quotes:revision-discount", args=rev), {"discount_percent": "5"}),
            (reverse("quotes:revision-terms", args=rev),
             {"terms": "Net 30", "validity_days": "30", "goods_tax_percent": "13",
              "services_tax_percent": "6", "freight_tax_percent": "9",
              "milestone_design": "30", "milestone_full": "70"}),
            (reverse("quotes:line-add", args=rev),
             {"kind": "note", "description": "A note", "quantity": "1"}),
            (reverse("quotes:line-update", args=[quote.pk, line.pk]),
             {"quantity": "2", "discount_percent": "0", "override_unit_price": ""}),
            (reverse("quotes:line-delete", args=[quote.pk, line.pk]), {}),
        ],
    }  # fmt: skip


@pytest.mark.parametrize("status", list(S))
def test_every_refused_action_is_a_message_not_a_500(client, quote, manager, status):
    """As a sales manager of the team (who holds every staff permission), each action the status
    does not allow is refused by the service, in words, and changes nothing."""
    revision = put_in_status(quote, status)
    lines_before = revision.lines.count()
    client.force_login(manager)
    refused = [a for a in action_posts(quote, revision) if not transitions.allows(status, a)]
    assert refused  # every status refuses something
    for action in refused:
        for url, body in action_posts(quote, revision)[action]:
            response = client.post(url, body, follow=True)
            assert response.status_code == 200, (action, url)
            errors = re.findall(r'<li class="msg-error">(.*?)</li>', response.content.decode())
            assert len(errors) == 1, (action, url, errors)
            # The refusal names the revision's status, e.g. "Q-2026-00001 is Sent: ..."; sending
            # before the approval says what it waits for.
            waits = status == S.PENDING_APPROVAL and action == Action.SEND
            reason = "needs approval" if waits else revision.get_status_display()
            assert reason in unescape(errors[0]), (action, errors)
    revision.refresh_from_db()
    assert revision.status == status
    assert revision.lines.count() == lines_before
    assert quote.revisions.count() == 1  # no refused revise made a new draft
    sent_links = 1 if status in LINKED else 0
    assert revision.share_links.count() == sent_links


# --- The customer's page -------------------------------------------------------------------------


@pytest.mark.parametrize("status", sorted(LINKED - {S.SENT}))
def test_the_customer_page_answers_only_a_sent_proposal(client, quote, status):
    revision = put_in_status(quote, status)
    token = revision.share_links.get().token
    page = client.get(reverse("share:proposal", args=[token])).content.decode()
    assert 'data-testid="accept-form"' not in page
    assert 'data-testid="not-answerable"' in page
    response = client.post(
        reverse("share:accept", args=[token]),
        {"name": "Li Wei", "email": "li.wei@example.com", "agree": "on"},
    )
    assert response.status_code == 400  # refused with the form, not a 500
    assert "can no longer be answered" in response.content.decode()
    revision.refresh_from_db()
    assert revision.status == status


def test_a_sent_proposal_past_its_validity_offers_no_answer(client, quote, engineer):
    link = services.revision_send(user=engineer, revision=quote.current_revision)
    page = client.get(reverse("share:proposal", args=[link.token])).content.decode()
    assert 'data-testid="accept-form"' in page
    yesterday = timezone.localdate() - timedelta(days=1)
    QuoteRevision.objects.filter(pk=link.revision_id).update(valid_until=yesterday)
    page = client.get(reverse("share:proposal", args=[link.token])).content.decode()
    assert 'data-testid="accept-form"' not in page
    assert f"This proposal expired on {yesterday.isoformat()}." in page


# --- Refusals in the services --------------------------------------------------------------------


def test_a_declined_or_expired_revision_gets_no_new_link_an_accepted_one_does(quote, engineer):
    revision = put_in_status(quote, S.DECLINED)
    with pytest.raises(transitions.ActionNotAllowed, match="sent or accepted") as refused:
        services.share_link_create(user=engineer, revision=revision)
    assert (refused.value.action, refused.value.status) == (Action.SHARE, S.DECLINED)
    assert refused.value.http_status == 409
    QuoteRevision.objects.filter(pk=revision.pk).update(status=S.ACCEPTED)
    link = services.share_link_create(user=engineer, revision=revision)
    assert link.is_active


def test_the_table_covers_every_status_and_every_action_has_a_permission_entry():
    assert set(transitions.ALLOWED) == set(S.values)
    assert set(transitions.PERMISSION) == set(Action)


@pytest.mark.parametrize("status", list(S))
def test_every_refused_action_is_a_409_problem_in_the_api(quote, manager, status):
    """The API's status actions and line edits answer what the pages say, as problem+json."""
    revision = put_in_status(quote, status)
    client = APIClient()
    client.force_authenticate(manager)
    url = f"/api/v1/quotes/{quote.pk}/"
    line = revision.lines.exclude(sku="").first()
    calls = {
        Action.SUBMIT: lambda: client.post(f"{url}submit/"),
        Action.APPROVE: lambda: client.post(f"{url}approve/"),
        Action.REJECT: lambda: client.post(f"{url}reject/", {"reason": "Too low"}, format="json"),
        Action.SEND: lambda: client.post(f"{url}send/"),
        Action.REVISE: lambda: client.post(f"{url}revise/"),
        Action.EDIT: lambda: client.patch(f"{url}lines/{line.pk}/", {"quantity": 2}, format="json"),
    }
    for action, call in calls.items():
        if transitions.allows(status, action):
            continue
        response = call()
        assert response.status_code == 409, (action, response.content)
        assert response["Content-Type"] == "application/problem+json"
        waits = status == S.PENDING_APPROVAL and action == Action.SEND
        expected = (
            "approval_required"
            if waits
            else ("quote_not_editable" if action == Action.EDIT else "transition_not_allowed")
        )
        assert response.json()["code"] == expected, action
    revision.refresh_from_db()
    assert revision.status == status
