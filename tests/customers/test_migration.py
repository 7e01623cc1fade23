"""Moving Customer, Contact and Opportunity from quotes to customers keeps their rows, their ids
and every foreign key that points at them (designs, quotes, contract prices): a database migrated
to the last state before the move, filled, then migrated forward, still has them all."""

import datetime
from decimal import Decimal

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [
    ("quotes", "0006_document_lease_queue_sharelink_served"),
    ("planner", "0001_initial"),
    ("catalog", "0003_patch_panels"),
]


def _migrate(targets=None):
    """Migrate to `targets`, or to the latest migrations (the state other tests expect)."""
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    targets = targets or executor.loader.graph.leaf_nodes()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


@pytest.mark.django_db(transaction=True)
def test_forward_migration_keeps_customers_contacts_opportunities_and_their_links():
    old = _migrate(BEFORE)
    try:
        team = old.get_model("core", "Team").objects.create(name="North")
        user = old.get_model("auth", "User").objects.create(username="se1")
        customer = old.get_model("quotes", "Customer").objects.create(
            name_en="Acme AI",
            name_zh="阿克米",
            external_source="crm",
            external_id="C-17",
            team=team,
        )
        old.get_model("quotes", "Contact").objects.create(
            customer=customer, name="Li Wei", email="li@acme.example", is_primary=True
        )
        opportunity = old.get_model("quotes", "Opportunity").objects.create(
            customer=customer, name="Cluster 2027", owner=user
        )
        design = old.get_model("planner", "Design").objects.create(
            name="256 GPUs", customer=customer, owner=user, team=team
        )
        vendor = old.get_model("catalog", "Vendor").objects.create(code="v", name="V")
        product = old.get_model("catalog", "Product").objects.create(
            sku="X-1", name_en="X", category="service", vendor=vendor
        )
        old.get_model("catalog", "ContractPrice").objects.create(
            customer=customer,
            product=product,
            amount=Decimal("10.00"),
            valid_from=datetime.date(2026, 1, 1),
        )
        customer_id, opportunity_id, design_id = customer.pk, opportunity.pk, design.pk
    finally:
        new = _migrate()

    Customer = new.get_model("customers", "Customer")
    moved = Customer.objects.get(pk=customer_id)
    assert (moved.name_en, moved.name_zh, moved.external_id) == ("Acme AI", "阿克米", "C-17")
    assert [c.name for c in moved.contacts.all()] == ["Li Wei"]
    assert new.get_model("customers", "Opportunity").objects.get(pk=opportunity_id).customer_id == (
        customer_id
    )
    assert new.get_model("planner", "Design").objects.get(pk=design_id).customer_id == customer_id
    assert moved.contract_prices.get().amount == Decimal("10.00")
    tables = connection.introspection.table_names()
    assert {"customers_customer", "customers_contact", "customers_opportunity"} <= set(tables)
    assert "quotes_customer" not in tables
    # The content type moved with the model, so permissions held on it still apply.
    content_types = new.get_model("contenttypes", "ContentType").objects
    assert not content_types.filter(app_label="quotes", model="customer").exists()
