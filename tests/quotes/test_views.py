"""Quote pages: visibility (others' quotes are 404), creating from a design, discount and approval
buttons, the customer's share page without login."""

import re

import pytest
from django.urls import reverse

from quotes import services
from quotes.models import AuditAction, AuditEvent, CustomerDecision, QuoteStatus
from tests.quotes.factories import DesignFactory

pytestmark = pytest.mark.django_db


def login(client, user):
    client.force_login(user)
    return client


def test_list_shows_own_and_team_quotes_only(client, catalog, engineer, teammate, other_engineer,
                                             customer):  # fmt: skip
    mine = services.quote_create(user=engineer, design=DesignFactory(owner=engineer),
                                 customer=customer)  # fmt: skip
    ours = services.quote_create(user=teammate, design=DesignFactory(owner=teammate),
                                 customer=customer)  # fmt: skip
    from tests.quotes.factories import CustomerFactory

    theirs = services.quote_create(
        user=other_engineer,
        design=DesignFactory(owner=other_engineer),
        customer=CustomerFactory(team__name="Team B"),
    )
    response = login(client, engineer).get(reverse("quotes:quote-list"))
    assert response.status_code == 200
    content = response.content.decode()
    assert mine.number in content
    assert ours.number in content
    assert theirs.number not in content
    assert client.get(reverse("quotes:quote-detail", args=[theirs.pk])).status_code == 404
    assert client.get(reverse("quotes:quote-detail", args=[ours.pk])).status_code == 200
    # The nav links to the list now that it exists.
    assert reverse("quotes:quote-list") in content
    filtered = client.get(reverse("quotes:quote-list"), {"q": ours.number}).content.decode()
    assert ours.number in filtered
    assert mine.number not in filtered


def test_anonymous_is_sent_to_login(client, quote):
    response = client.get(reverse("quotes:quote-detail", args=[quote.pk]))
    assert response.status_code == 302
    assert reverse("login") in response["Location"]


def test_others_cannot_post_actions(client, quote, other_engineer):
    url = reverse("quotes:revision-action", args=[quote.pk, 0, "submit"])
    assert login(client, other_engineer).post(url).status_code == 404


def test_create_from_design_page(client, catalog, engineer, design, customer):
    login(client, engineer)
    page = client.get(reverse("quotes:quote-create") + f"?design={design.pk}")
    assert page.status_code == 200
    response = client.post(
        reverse("quotes:quote-create"),
        {"design": design.pk, "customer": customer.pk, "support_years": 1},
    )
    assert response.status_code == 302
    detail = client.get(response["Location"])
    content = detail.content.decode()
    assert "359,108.50" in content  # the total worked out in test_services.py
    assert "MCX623106AN-CDAT" in content
    assert 'data-testid="margin"' not in content  # engineers do not see margins


def test_the_discount_box_says_the_discount_applied(client, quote, engineer):
    """After 15 % on all products the box shows 15, not 0; once one line differs it is empty."""
    login(client, engineer)
    detail = reverse("quotes:quote-detail", args=[quote.pk])
    assert 'name="discount_percent" value="0' in client.get(detail).content.decode()
    client.post(reverse("quotes:revision-discount", args=[quote.pk, 0]), {"discount_percent": "15"})
    page = client.get(detail).content.decode()
    assert re.search(r'id="id_discount_percent"[^>]*value="15(\.00)?"', page) or re.search(
        r'value="15(\.00)?"[^>]*id="id_discount_percent"', page
    )
    line = quote.current_revision.lines.filter(kind="product").first()
    client.post(reverse("quotes:line-update", args=[quote.pk, line.pk]),
                {"quantity": line.quantity, "discount_percent": "5"})  # fmt: skip
    page = client.get(detail).content.decode()
    box = re.search(r"<input[^>]*id=\"id_discount_percent\"[^>]*>", page).group(0)
    assert "value=" not in box, box


def test_discount_submit_approve_send_accept(client, quote, engineer, manager, discount_policy):
    login(client, engineer)
    client.post(reverse("quotes:revision-discount", args=[quote.pk, 0]), {"discount_percent": "15"})
    response = client.get(reverse("quotes:quote-detail", args=[quote.pk]))
    assert 'data-testid="approval-reasons"' in response.content.decode()
    client.post(reverse("quotes:revision-action", args=[quote.pk, 0, "submit"]))
    response = client.post(reverse("quotes:revision-action", args=[quote.pk, 0, "send"]),
                           follow=True)  # fmt: skip
    assert "needs approval" in response.content.decode()
    login(client, manager)
    page = client.get(reverse("quotes:quote-detail", args=[quote.pk])).content.decode()
    assert 'data-testid="margin"' in page  # managers see margins
    client.post(reverse("quotes:revision-action", args=[quote.pk, 0, "approve"]))
    login(client, engineer)
    client.post(reverse("quotes:revision-action", args=[quote.pk, 0, "send"]))
    revision = quote.current_revision
    assert revision.status == QuoteStatus.SENT
    token = revision.share_links.get().token

    client.logout()
    share_url = reverse("share:proposal", args=[token])
    page = client.get(share_url, REMOTE_ADDR="198.51.100.4")
    assert page.status_code == 200
    # Not test_services.py's undiscounted total, 359,108.50: 15% off now.
    assert "359,108.50" not in page.content.decode()
    assert f"{revision.total:,.2f}" in page.content.decode()
    assert AuditEvent.objects.filter(action=AuditAction.SHARE_LINK_VIEWED).count() == 1
    response = client.post(
        reverse("share:accept", args=[token]),
        {"name": "Li Wei", "email": "li.wei@example.com", "agree": "on"},
        REMOTE_ADDR="198.51.100.4",
    )
    assert response.status_code == 302
    decision = CustomerDecision.objects.get()
    assert decision.ip == "198.51.100.4"
    assert decision.pdf_sha256 == ""  # no PDF yet (issue 7): the HTML proposal was accepted
    revision.refresh_from_db()
    assert revision.status == QuoteStatus.ACCEPTED


def test_share_page_needs_a_valid_token(client, quote, engineer):
    link = services.revision_send(user=engineer, revision=quote.current_revision)
    assert client.get(reverse("share:proposal", args=["not-a-token"])).status_code == 404
    services.share_link_revoke(user=engineer, link=link)
    assert client.get(reverse("share:proposal", args=[link.token])).status_code == 404


def test_accept_form_errors_are_shown(client, quote, engineer):
    link = services.revision_send(user=engineer, revision=quote.current_revision)
    response = client.post(reverse("share:accept", args=[link.token]), {"name": "", "email": "x"})
    assert response.status_code == 400
    assert quote.current_revision.status == QuoteStatus.SENT


def test_pages_have_no_inline_script(client, quote, engineer):
    content = login(client, engineer).get(reverse("quotes:quote-detail", args=[quote.pk]))
    html = content.content.decode()
    assert "<script>" not in html
    assert "onclick=" not in html
    assert "style=" not in html
