"""Customer and contact services: who may write, what they may write, and the one-primary rule.
Access is decided inside the services (through customers.selectors), so every test calls the
service directly with a real user from the role definitions."""

import pytest

from core.errors import DomainError
from core.selectors import user_team
from customers.models import Contact, Customer, Opportunity
from customers.selectors import (
    ContactNotFound,
    CustomerNotFound,
    OpportunityNotFound,
    customer_for,
    customer_search,
    customers_visible_to,
    opportunity_for,
)
from customers.services import (
    CustomerChangeNotAllowed,
    NoTeamForCustomer,
    contact_create,
    contact_update,
    customer_create,
    customer_update,
)

pytestmark = pytest.mark.django_db


def test_an_engineer_creates_a_customer_of_their_own_team(engineer, teammate, other_engineer):
    customer = customer_create(
        user=engineer, name_en="  Acme AI  ", name_zh="阿克米", preferred_language="en"
    )
    assert (customer.name_en, customer.name_zh, customer.preferred_language) == (
        "Acme AI",  # trimmed
        "阿克米",
        "en",
    )
    assert customer.team == user_team(engineer)
    assert (customer.external_source, customer.external_id) == ("", "")  # only the CRM sets them
    assert customer in customers_visible_to(teammate)
    assert customer not in customers_visible_to(other_engineer)


def test_another_teams_customer_and_a_missing_one_are_the_same_not_found(engineer, other_engineer):
    theirs = customer_create(user=other_engineer, name_en="Other Lab")
    missing = theirs.pk + 1000
    for customer_id in (theirs.pk, missing, str(theirs.pk), "abc", None, -1, True):
        with pytest.raises(CustomerNotFound) as caught:
            customer_for(user=engineer, customer_id=customer_id)
        assert caught.value.http_status == 404
    # The owner's team finds it, whether the id comes as a number or as URL text.
    assert customer_for(user=other_engineer, customer_id=str(theirs.pk)) == theirs


def test_update_changes_names_and_language_never_the_crm_identity_or_team(engineer, other_engineer):
    customer = customer_create(user=engineer, name_en="Acme")
    Customer.objects.filter(pk=customer.pk).update(external_source="crm", external_id="C-9")
    updated = customer_update(
        user=engineer,
        customer_id=customer.pk,
        name_en="Acme AI",
        name_zh="阿克米人工智能",
        preferred_language="zh-hans",
    )
    updated.refresh_from_db()
    assert (updated.name_en, updated.name_zh) == ("Acme AI", "阿克米人工智能")
    assert (updated.external_source, updated.external_id) == ("crm", "C-9")
    with pytest.raises(CustomerNotFound):
        customer_update(
            user=other_engineer,
            customer_id=customer.pk,
            name_en="Hijacked",
            name_zh="",
            preferred_language="en",
        )
    assert Customer.objects.get(pk=customer.pk).name_en == "Acme AI"


def test_invalid_input_is_refused_field_by_field(engineer):
    with pytest.raises(DomainError) as caught:
        customer_create(user=engineer, name_en="   ", preferred_language="fr")
    # Either name is enough (issue 27): with neither, both name fields say so.
    assert set(caught.value.errors) == {"name_en", "name_zh", "preferred_language"}
    assert Customer.objects.count() == 0
    customer = customer_create(user=engineer, name_en="Acme")
    with pytest.raises(DomainError) as caught:
        contact_create(user=engineer, customer_id=customer.pk, name="", email="not-an-email")
    assert set(caught.value.errors) == {"name", "email"}
    assert Contact.objects.count() == 0


def test_roles_without_customer_permissions_and_users_without_a_team_are_refused(
    catalog_manager, engineer
):
    with pytest.raises(CustomerChangeNotAllowed):
        customer_create(user=catalog_manager, name_en="Acme")
    engineer.membership.delete()
    engineer = type(engineer).objects.get(pk=engineer.pk)  # forget the cached membership
    with pytest.raises(NoTeamForCustomer):
        customer_create(user=engineer, name_en="Acme")
    assert Customer.objects.count() == 0


def test_a_customer_has_at_most_one_primary_contact(engineer, other_engineer):
    customer = customer_create(user=engineer, name_en="Acme")
    li = contact_create(
        user=engineer,
        customer_id=customer.pk,
        name="Li Wei",
        email="li@acme.example",
        phone="+86 21 5555 0100",
        title="CTO",
        is_primary=True,
    )
    wang = contact_create(user=engineer, customer_id=customer.pk, name="Wang Fang", is_primary=True)
    li.refresh_from_db()
    assert (li.is_primary, wang.is_primary) == (False, True)  # the newer primary demoted Li
    contact_update(
        user=engineer,
        contact_id=li.pk,
        name="Li Wei",
        email="wei.li@acme.example",
        phone="",
        title="Head of infrastructure",
        is_primary=True,
    )
    primaries = list(customer.contacts.filter(is_primary=True).values_list("name", flat=True))
    assert primaries == ["Li Wei"]
    assert Contact.objects.get(pk=li.pk).email == "wei.li@acme.example"
    # Another team can neither add to nor edit this customer's contacts.
    with pytest.raises(CustomerNotFound):
        contact_create(user=other_engineer, customer_id=customer.pk, name="Intruder")
    with pytest.raises(ContactNotFound):
        contact_update(
            user=other_engineer,
            contact_id=li.pk,
            name="Intruder",
            email="",
            phone="",
            title="",
            is_primary=False,
        )
    assert customer.contacts.count() == 2


def test_search_matches_either_name_or_the_crm_id_within_the_team(engineer, other_engineer):
    acme = customer_create(user=engineer, name_en="Acme AI", name_zh="阿克米")
    Customer.objects.filter(pk=acme.pk).update(external_source="crm", external_id="C-42")
    customer_create(user=engineer, name_en="Beta Compute", name_zh="贝塔计算")
    customer_create(user=other_engineer, name_en="Acme Rival")

    def names(query):
        return [c.name_en for c in customer_search(user=engineer, query=query)]

    assert names("acme") == ["Acme AI"]  # case-insensitive; the other team's "Acme Rival" hidden
    assert names("贝塔") == ["Beta Compute"]
    assert names("C-42") == ["Acme AI"]
    assert names("") == ["Acme AI", "Beta Compute"]
    assert names("nobody") == []


def test_opportunities_are_seen_through_their_customers_team(engineer, teammate, other_engineer):
    acme = customer_create(user=engineer, name_en="Acme")
    deal = Opportunity.objects.create(customer=acme, name="Cluster 2027", owner=engineer)
    assert opportunity_for(user=teammate, opportunity_id=deal.pk) == deal
    for opportunity_id in (deal.pk, deal.pk + 1000):
        with pytest.raises(OpportunityNotFound):
            opportunity_for(user=other_engineer, opportunity_id=opportunity_id)
