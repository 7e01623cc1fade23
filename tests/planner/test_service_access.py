"""Access is decided in the design services, whoever calls them (issue 25, item 6): a command,
a task or a CRM hook calling `design_create` or `design_save_draft` directly is held to the rule
the pages and the API apply, a customer of the owner's team only; another team's is not found,
and nothing is saved."""

import pytest

from customers.selectors import CustomerNotFound
from planner import services
from planner.models import Design
from tests.conftest import load_seed_catalog
from tests.quotes.factories import CustomerFactory

pytestmark = pytest.mark.django_db

REQUEST = {"gpus": 16, "gpus_per_server": 8, "nic_speed": 100}


@pytest.fixture
def theirs(other_engineer):
    return CustomerFactory(team=other_engineer.membership.team, name_en="Another team's lab")


@pytest.fixture
def ours(engineer):
    return CustomerFactory(team=engineer.membership.team, name_en="Our lab")


def test_a_design_is_created_for_our_customer_and_refused_for_theirs(engineer, ours, theirs):
    load_seed_catalog()
    with pytest.raises(CustomerNotFound):
        services.design_create(owner=engineer, name="x", request_data=REQUEST, customer=theirs)
    assert not Design.objects.exists()
    design = services.design_create(owner=engineer, name="x", request_data=REQUEST, customer=ours)
    assert design.customer == ours


def test_a_draft_is_saved_for_our_customer_and_refused_for_theirs(engineer, ours, theirs):
    with pytest.raises(CustomerNotFound):
        services.design_save_draft(owner=engineer, request_data=REQUEST, customer=theirs)
    assert not Design.objects.exists()
    draft = services.design_save_draft(owner=engineer, request_data=REQUEST, customer=ours)
    with pytest.raises(CustomerNotFound):  # nor moved to theirs later
        services.design_save_draft(
            owner=engineer, request_data=REQUEST, customer=theirs, design=draft
        )
    draft.refresh_from_db()
    assert draft.customer == ours
