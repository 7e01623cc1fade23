"""First step of moving Customer, Contact and Opportunity to the customers app: their tables take
the customers app's names, data and constraints untouched (ALTER TABLE ... RENAME). The models
leave quotes' state in 0008, once planner and catalog point at customers.Customer."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("quotes", "0006_document_lease_queue_sharelink_served"),
    ]

    operations = [
        migrations.AlterModelTable(name="customer", table="customers_customer"),
        migrations.AlterModelTable(name="contact", table="customers_contact"),
        migrations.AlterModelTable(name="opportunity", table="customers_opportunity"),
    ]
