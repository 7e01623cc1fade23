"""Payment milestones that fall due (issue 27, item 9): the default's last payment is on the
customer's final acceptance, not on completing "operations support", a phase with no end.
Revisions saved with the old default keep it and stay valid. Also the quote side's messages in
the reader's words (item 5): policy names and price list names."""

from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import translation
from rest_framework.test import APIClient

from catalog.models import PriceList
from quotes import services
from quotes.forms import QuoteCreateForm, price_list_label
from quotes.services.errors import QuoteInvalid
from quotes.services.terms import milestone_text, milestones_checked, revision_default_terms

pytestmark = pytest.mark.django_db


def current(quote):
    quote.refresh_from_db()
    return quote.current_revision


def test_a_new_quote_is_paid_on_order_delivery_and_final_acceptance(quote):
    revision = current(quote)
    assert revision.payment_milestones == [
        {"phase": "design", "percent": "30"},
        {"phase": "full", "percent": "60"},
        {"phase": "acceptance", "percent": "10"},
    ]
    assert sum(Decimal(m["percent"]) for m in revision.payment_milestones) == 100  # 30+60+10
    assert all(m["phase"] != "operations" for m in revision.payment_milestones)
    english = revision_default_terms(revision, language="en")
    assert "30% on completing Design; 60% on completing Full deployment; 10% on final " in english
    assert "operations" not in english.lower()


def test_old_milestones_on_operations_stay_valid_and_acceptance_sorts_before_it():
    checked = milestones_checked(
        [{"phase": "operations", "percent": "10"}, {"phase": "acceptance", "percent": "20"},
         {"phase": "design", "percent": "70"}]
    )  # fmt: skip
    assert [m["phase"] for m in checked] == ["design", "acceptance", "operations"]
    with pytest.raises(QuoteInvalid):
        milestones_checked([{"phase": "handover", "percent": "100"}])


def test_milestones_read_in_the_readers_language():
    with translation.override("en"):
        assert milestone_text({"phase": "acceptance", "percent": "10"}) == "10% on final acceptance"
        assert milestone_text({"phase": "design", "percent": "30"}) == "30% on completing Design"


def test_the_form_and_the_api_take_the_acceptance_milestone(quote, engineer, client):
    client.force_login(engineer)
    page = client.get(reverse("quotes:quote-detail", args=[quote.pk])).content.decode()
    assert 'name="milestone_acceptance"' in page
    data = {
        "terms": "", "validity_days": "30", "goods_tax_percent": "13",
        "services_tax_percent": "6", "freight_tax_percent": "9", "milestone_design": "40",
        "milestone_full": "50", "milestone_acceptance": "10", "regenerate_terms": "on",
    }  # fmt: skip
    client.post(reverse("quotes:revision-terms", args=[quote.pk, 0]), data)
    assert current(quote).payment_milestones[-1] == {"phase": "acceptance", "percent": "10"}
    api = APIClient()
    api.force_authenticate(engineer)
    response = api.patch(
        f"/api/v1/quotes/{quote.pk}/terms/",
        {"payment_milestones": [{"phase": "full", "percent": "80"},
                                {"phase": "acceptance", "percent": "20"}]},
        format="json",
    )  # fmt: skip
    assert response.status_code == 200, response.content
    assert current(quote).payment_milestones == [
        {"phase": "full", "percent": "80"},
        {"phase": "acceptance", "percent": "20"},
    ]


def test_the_approval_message_names_the_policy_in_the_readers_language(
    quote, engineer, client, discount_policy
):
    client.force_login(engineer)
    response = client.post(
        reverse("quotes:revision-discount", args=[quote.pk, 0]),
        {"discount_percent": "15"},
        HTTP_ACCEPT_LANGUAGE="zh-hans",
        follow=True,
    )
    html = response.content.decode()
    stored_name = current(quote).approval_reasons[0]["policy"]
    assert stored_name
    assert stored_name not in html
    with translation.override("zh-hans"):
        from core.vocabulary import policy_label

        assert policy_label(current(quote).approval_reasons[0]) in html


def test_a_price_list_named_with_its_currency_gets_it_once(db):
    named = PriceList(code="L1", name="EZMAX list prices 2026 (CNY, sample)", currency="CNY")
    assert price_list_label(named) == "EZMAX list prices 2026 (CNY, sample)"
    plain = PriceList(code="L2", name="Partner prices", currency="USD")
    assert price_list_label(plain) == "Partner prices (USD)"


def test_the_quote_form_lists_price_lists_without_a_second_currency(catalog, engineer):
    form = QuoteCreateForm(user=engineer)
    labels = [label for _value, label in form.fields["price_list"].choices]
    assert labels
    assert not any("(CNY) (CNY)" in str(x) or ") (" in str(x) for x in labels)


def test_the_needs_approval_refusal_names_policies_and_roles_in_the_readers_words(
    quote, engineer, discount_policy
):
    from quotes.transitions import needs_approval_message

    services.revision_discount_apply(
        user=engineer, revision=current(quote), discount_percent=Decimal("15")
    )
    revision = current(quote)
    reason = revision.approval_reasons[0]
    with translation.override("zh-hans"):
        message = needs_approval_message(revision)
    assert reason["policy"] not in message  # the stored English name
    assert reason["approver_group"] not in message  # the group's code
    assert " vs " not in message
    with translation.override("en"):
        message = needs_approval_message(revision)
    assert "threshold 10" in message  # the policy's 10 %
