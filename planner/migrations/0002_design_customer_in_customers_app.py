"""Design.customer points at customers.Customer, which moved there from quotes with its table
(quotes/0007). State only: the column and its foreign key already reference that table."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("customers", "0001_initial"),
        ("planner", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="design",
                    name="customer",
                    field=models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="designs",
                        to="customers.customer",
                        verbose_name="customer",
                    ),
                ),
            ],
            database_operations=[],
        ),
    ]
