"""ContractPrice.customer (and its history) points at customers.Customer, which moved there from quotes with its table
(quotes/0007). State only: the column and its foreign key already reference that table."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("catalog", "0003_patch_panels"),
        ("customers", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="contractprice",
                    name="customer",
                    field=models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="contract_prices",
                        to="customers.customer",
                        verbose_name="customer",
                    ),
                ),
                migrations.AlterField(
                    model_name="historicalcontractprice",
                    name="customer",
                    field=models.ForeignKey(
                        blank=True,
                        db_constraint=False,
                        null=True,
                        on_delete=django.db.models.deletion.DO_NOTHING,
                        related_name="+",
                        to="customers.customer",
                        verbose_name="customer",
                    ),
                ),
            ],
            database_operations=[],
        ),
    ]
