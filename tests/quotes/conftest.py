import pytest

from quotes.models import DiscountPolicy
from tests.quotes.factories import CustomerFactory, DesignFactory, load_seed_subset, manager_policy


@pytest.fixture(autouse=True)
def _policies_stated_by_each_test(request):
    """The default policies come from a data migration; every test states the ones it relies on
    (and transactional tests flush migration data anyway)."""
    if "db" in request.fixturenames or "transactional_db" in request.fixturenames:
        DiscountPolicy.objects.all().delete()


@pytest.fixture
def catalog(db):
    return load_seed_subset()


@pytest.fixture
def customer(db):
    return CustomerFactory(name_en="Example AI Lab", team__name="Team A")


@pytest.fixture
def design(engineer):
    return DesignFactory(owner=engineer, name="32-GPU training cluster")


@pytest.fixture
def discount_policy(db):
    """Above 10% line discount, a sales manager approves."""
    return manager_policy(threshold="10")


@pytest.fixture
def quote(catalog, engineer, design, customer):
    from quotes.services import quote_create

    return quote_create(user=engineer, design=design, customer=customer)
