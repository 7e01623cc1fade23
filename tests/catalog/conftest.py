import json

import pytest

from catalog.services import SEED_PATH
from tests.conftest import load_seed_catalog


@pytest.fixture(scope="session")
def seed_data():
    """The seed file as plain data (read once; tests that change it take a deep copy)."""
    return json.loads(SEED_PATH.read_text(encoding="utf-8"))


@pytest.fixture
def seed(seed_data):
    return json.loads(json.dumps(seed_data))


@pytest.fixture
def seeded(db):
    """The database with the seed catalog: loaded through the real loader once per session, then
    the same rows in bulk (see tests.conftest.load_seed_catalog)."""
    load_seed_catalog()


def seed_product(data, sku):
    return next(p for p in data["products"] if p["sku"] == sku)


@pytest.fixture
def staff_catalog_manager(catalog_manager):
    """A catalog manager, who reaches the admin (core.services.user_create makes managers staff)."""
    assert catalog_manager.is_staff
    return catalog_manager
