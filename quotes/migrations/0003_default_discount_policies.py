"""Default discount policy: the thresholds a sales manager approves above. Editable in the admin."""

from decimal import Decimal

from django.db import migrations

DEFAULTS = [
    ("Line discount above 10%", "discount_percent", Decimal("10"), ""),
    ("Margin below 15%", "margin_percent", Decimal("15"), ""),
    ("Total above 2,000,000 CNY", "total_amount", Decimal("2000000"), "CNY"),
    ("Total above 300,000 USD", "total_amount", Decimal("300000"), "USD"),
]


def create(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    DiscountPolicy = apps.get_model("quotes", "DiscountPolicy")
    managers, _created = Group.objects.get_or_create(name="sales-manager")
    for name, metric, threshold, currency in DEFAULTS:
        DiscountPolicy.objects.get_or_create(
            name=name,
            defaults={
                "metric": metric,
                "threshold": threshold,
                "currency": currency,
                "approver_group": managers,
            },
        )


class Migration(migrations.Migration):
    dependencies = [("quotes", "0002_quotes"), ("auth", "0012_alter_user_first_name_max_length")]

    operations = [migrations.RunPython(create, migrations.RunPython.noop)]
