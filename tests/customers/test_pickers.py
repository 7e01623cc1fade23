"""The design wizard and the quote form offer the customers of the user's team (decided by
customers.selectors), preselect a customer just created through their "New customer" link, and
tell apart designs that share a name."""

import pytest
from django.test import RequestFactory
from django.urls import reverse
from django.utils import timezone

from customers.services import customer_create
from planner.forms import STEPS, WizardStepForm
from quotes.forms import QuoteCreateForm
from tests.quotes.factories import DesignFactory

pytestmark = pytest.mark.django_db


def _wizard_form(user, query=""):
    request = RequestFactory().get(f"/designs/new/{query}")
    request.user = user
    return WizardStepForm(STEPS[0], request=request)


def test_the_wizard_offers_the_teams_customers_and_preselects_a_new_one(
    engineer, teammate, other_engineer
):
    ours = customer_create(user=teammate, name_en="Acme AI")
    theirs = customer_create(user=other_engineer, name_en="Other Lab")
    form = _wizard_form(engineer)
    assert list(form.fields["customer"].queryset) == [ours]
    assert "customer" not in form.initial
    assert _wizard_form(engineer, f"?customer={ours.pk}").initial["customer"] == ours.pk
    # Another team's id in the address preselects nothing (and is not offered).
    assert "customer" not in _wizard_form(engineer, f"?customer={theirs.pk}").initial
    assert "customer" not in _wizard_form(engineer, "?customer=abc").initial


def test_the_quote_form_offers_the_teams_customers_and_the_designs_own(engineer, other_engineer):
    acme = customer_create(user=engineer, name_en="Acme AI")
    customer_create(user=other_engineer, name_en="Other Lab")
    design = DesignFactory(owner=engineer, name="Pod A", customer=acme)
    form = QuoteCreateForm(user=engineer, initial={"design": str(design.pk)})
    assert list(form.fields["customer"].queryset) == [acme]
    assert form.initial["customer"] == acme.pk  # the design's customer, chosen for the engineer


def test_designs_that_share_a_name_are_told_apart_by_id_and_date(engineer):
    first = DesignFactory(owner=engineer, name="Phase 1")
    second = DesignFactory(owner=engineer, name="Phase 1")
    alone = DesignFactory(owner=engineer, name="Storage pod")
    today = timezone.localdate().isoformat()  # auto_now_add: created now, shown in local time
    labels = dict(QuoteCreateForm(user=engineer).fields["design"].choices)
    labels = {value.value: label for value, label in labels.items() if value}
    # The factory's design: 32 GPUs on a top-of-rack fabric ("fabric": "tor",
    # tests/quotes/factories.py DESIGN_REQUEST; core.vocabulary names it "Top of rack").
    assert labels[first.pk] == f"Phase 1 · #{first.pk} · 32 GPUs · Top of rack · {today}"
    assert labels[second.pk] == f"Phase 1 · #{second.pk} · 32 GPUs · Top of rack · {today}"
    assert labels[alone.pk] == f"Storage pod · #{alone.pk} · 32 GPUs · Top of rack · {today}"


def test_both_forms_link_to_a_new_customer_and_back(engineer_client, engineer):
    design = DesignFactory(owner=engineer, name="Pod A")
    quote_form = engineer_client.get(reverse("quotes:quote-create"), {"design": design.pk})
    back = f"/quotes/new/%3Fdesign%3D{design.pk}"
    assert f'href="/customers/new/?next={back}"'.encode() in quote_form.content
    wizard = engineer_client.get(reverse("planner:design-new"))
    assert b'href="/customers/new/?next=/designs/new/"' in wizard.content
