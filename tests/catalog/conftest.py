import json

import pytest

from catalog.services import SEED_PATH, catalog_load


@pytest.fixture(scope="session")
def seed_data():
    """The seed file as plain data (read once; tests that change it take a deep copy)."""
    return json.loads(SEED_PATH.read_text(encoding="utf-8"))


@pytest.fixture
def seed(seed_data):
    return json.loads(json.dumps(seed_data))


@pytest.fixture
def seeded(db, seed_data):
    """The database with the seed catalog loaded through the real loader."""
    return catalog_load(seed_data)


def seed_product(data, sku):
    return next(p for p in data["products"] if p["sku"] == sku)


@pytest.fixture
def staff_catalog_manager(catalog_manager):
    """A catalog manager who may log into the admin.

    core.services.user_create only makes administrators staff, so the fixture sets is_staff the
    way an administrator would in the admin (see the catalog report)."""
    catalog_manager.is_staff = True
    catalog_manager.save(update_fields=["is_staff"])
    return catalog_manager
