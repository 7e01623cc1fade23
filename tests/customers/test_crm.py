"""The CRM's upserts, as services (customers.services): they decide access themselves, so each
test calls the service with a real user of a real role."""

import pytest

from core.errors import DomainError
from customers.models import Customer, Opportunity
from customers.selectors import CustomerNotFound
from customers.services import (
    CrmIdTaken,
    CustomerChangeNotAllowed,
    NoTeamForCustomer,
    OpportunityHasQuotes,
    customer_upsert_by_external_id,
    opportunity_upsert_by_external_id,
)
from quotes.services import quote_create
from tests.quotes.factories import CustomerFactory, DesignFactory, load_seed_subset

pytestmark = pytest.mark.django_db


def test_customer_upsert_creates_then_updates_the_same_row(engineer, other_engineer):
    customer, created = customer_upsert_by_external_id(
        user=engineer, source="hubspot", external_id="42", name_en="Example AI Lab"
    )
    assert created
    assert customer.team.name == "Team A"
    assert customer.preferred_language == "zh-hans"  # the model's default when the CRM says none
    same, created = customer_upsert_by_external_id(
        user=engineer, source="hubspot", external_id="42", name_en=" Example AI Lab Ltd ",
        name_zh="示例人工智能实验室", preferred_language="en",
    )  # fmt: skip
    assert not created
    assert same.pk == customer.pk
    assert (same.name_en, same.name_zh, same.preferred_language) == (
        "Example AI Lab Ltd",  # trimmed, as the customer pages store it
        "示例人工智能实验室",
        "en",
    )
    # Another team's CRM id is refused, never moved between teams.
    with pytest.raises(CrmIdTaken) as refused:
        customer_upsert_by_external_id(
            user=other_engineer, source="hubspot", external_id="42", name_en="Hijack"
        )
    assert refused.value.http_status == 409
    customer.refresh_from_db()
    assert (customer.name_en, customer.team.name) == ("Example AI Lab Ltd", "Team A")


def test_customer_upsert_refuses_what_the_rules_refuse(engineer, catalog_manager):
    with pytest.raises(DomainError) as caught:
        customer_upsert_by_external_id(
            user=engineer, source="hubspot", external_id="1", name_en="   "
        )
    message = "Give the customer's name in Chinese or English (at least one)."
    assert caught.value.errors == {"name_en": message, "name_zh": message}
    with pytest.raises(DomainError, match="CRM source"):
        customer_upsert_by_external_id(user=engineer, source="", external_id="1", name_en="A")
    # A catalog manager's role keeps no customers (the service decides, not only the view).
    with pytest.raises(CustomerChangeNotAllowed):
        customer_upsert_by_external_id(
            user=catalog_manager, source="hubspot", external_id="2", name_en="A"
        )
    assert not Customer.objects.exists()


def test_a_user_in_no_team_creates_no_customer(engineer):
    engineer.membership.delete()
    engineer = type(engineer).objects.get(pk=engineer.pk)  # forget the cached membership
    with pytest.raises(NoTeamForCustomer):
        customer_upsert_by_external_id(
            user=engineer, source="hubspot", external_id="3", name_en="Nobody's"
        )
    assert not Customer.objects.exists()


def test_opportunity_upsert_for_another_teams_customer_is_not_found(engineer, other_engineer):
    theirs = CustomerFactory(name_en="Theirs", team__name="Team B")
    with pytest.raises(CustomerNotFound) as caught:
        opportunity_upsert_by_external_id(
            user=engineer, source="hubspot", external_id="D-1", customer_id=theirs.pk, name="x"
        )
    assert caught.value.http_status == 404
    assert not Opportunity.objects.exists()
    # Their own team may.
    opportunity, created = opportunity_upsert_by_external_id(
        user=other_engineer, source="hubspot", external_id="D-1", customer_id=theirs.pk,
        name="Deal",
    )  # fmt: skip
    assert created
    assert opportunity.owner == other_engineer


def test_an_opportunity_with_quotes_stays_with_its_customer(engineer):
    load_seed_subset()
    first = CustomerFactory(name_en="First")
    second = CustomerFactory(name_en="Second")
    deal, _created = opportunity_upsert_by_external_id(
        user=engineer, source="hubspot", external_id="D-2", customer_id=first.pk, name="Deal"
    )
    # Without quotes it may move (the CRM re-filed it).
    moved, created = opportunity_upsert_by_external_id(
        user=engineer, source="hubspot", external_id="D-2", customer_id=second.pk, name="Deal"
    )
    assert (created, moved.pk, moved.customer) == (False, deal.pk, second)
    quote_create(
        user=engineer, design=DesignFactory(owner=engineer), customer=second, opportunity=moved
    )
    with pytest.raises(OpportunityHasQuotes) as refused:
        opportunity_upsert_by_external_id(
            user=engineer, source="hubspot", external_id="D-2", customer_id=first.pk, name="Deal"
        )
    assert refused.value.errors == {
        "customer": "This opportunity already has quotes for another customer."
    }
    deal.refresh_from_db()
    assert deal.customer == second
