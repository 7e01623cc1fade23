"""Last step of moving Customer, Contact and Opportunity to the customers app: quotes' foreign keys
point there and the models leave quotes' state. State only: the tables were renamed in 0007 and
now belong to customers (customers/0001), so nothing is dropped."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("catalog", "0004_contract_price_customer_in_customers_app"),
        ("customers", "0001_initial"),
        ("planner", "0002_design_customer_in_customers_app"),
        ("quotes", "0007_customer_tables_renamed"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="quote",
                    name="customer",
                    field=models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="quotes",
                        to="customers.customer",
                        verbose_name="customer",
                    ),
                ),
                migrations.AlterField(
                    model_name="quote",
                    name="opportunity",
                    field=models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="quotes",
                        to="customers.opportunity",
                        verbose_name="opportunity",
                    ),
                ),
                migrations.DeleteModel(name="Contact"),
                migrations.DeleteModel(name="Opportunity"),
                migrations.DeleteModel(name="Customer"),
            ],
            database_operations=[],
        ),
    ]
