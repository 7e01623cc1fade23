"""Customer, Contact and Opportunity, moved here from quotes with their data. quotes/0007 renamed
their tables to this app's names, so this migration only takes them into customers' state, and
moves their content types (and with them the permissions groups hold) from quotes to customers."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


MOVED_MODELS = ("customer", "contact", "opportunity")


def content_types_to(app_label: str, from_label: str):
    def move(apps, schema_editor):
        content_type = apps.get_model("contenttypes", "ContentType")
        db = schema_editor.connection.alias
        for model in MOVED_MODELS:
            if content_type.objects.using(db).filter(app_label=app_label, model=model).exists():
                continue
            content_type.objects.using(db).filter(app_label=from_label, model=model).update(
                app_label=app_label
            )

    return move


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('quotes', '0007_customer_tables_renamed'),
        ('contenttypes', '0002_remove_content_type_name'),
        ('core', '0004_job_lease_owner'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='Customer',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('name_en', models.CharField(max_length=200, verbose_name='name (English)')),
                        ('name_zh', models.CharField(blank=True, max_length=200, verbose_name='name (Chinese)')),
                        ('external_source', models.CharField(blank=True, max_length=50, verbose_name='CRM source')),
                        ('external_id', models.CharField(blank=True, max_length=100, verbose_name='CRM id')),
                        ('preferred_language', models.CharField(choices=[('zh-hans', 'Simplified Chinese'), ('en', 'English')], default='zh-hans', max_length=10, verbose_name='preferred language')),
                        ('created_at', models.DateTimeField(auto_now_add=True, verbose_name='created at')),
                        ('updated_at', models.DateTimeField(auto_now=True, verbose_name='updated at')),
                        ('team', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='customers', to='core.team', verbose_name='team')),
                    ],
                    options={
                        'verbose_name': 'customer',
                        'verbose_name_plural': 'customers',
                        'ordering': ['name_en'],
                    },
                ),
                migrations.CreateModel(
                    name='Contact',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('name', models.CharField(max_length=120, verbose_name='name')),
                        ('email', models.EmailField(blank=True, max_length=254, verbose_name='email')),
                        ('phone', models.CharField(blank=True, max_length=40, verbose_name='phone')),
                        ('title', models.CharField(blank=True, max_length=120, verbose_name='job title')),
                        ('is_primary', models.BooleanField(default=False, verbose_name='primary contact')),
                        ('customer', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='contacts', to='customers.customer', verbose_name='customer')),
                    ],
                    options={
                        'verbose_name': 'contact',
                        'verbose_name_plural': 'contacts',
                        'ordering': ['-is_primary', 'name'],
                    },
                ),
                migrations.CreateModel(
                    name='Opportunity',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('name', models.CharField(max_length=200, verbose_name='name')),
                        ('external_source', models.CharField(blank=True, max_length=50, verbose_name='CRM source')),
                        ('external_id', models.CharField(blank=True, max_length=100, verbose_name='CRM id')),
                        ('created_at', models.DateTimeField(auto_now_add=True, verbose_name='created at')),
                        ('customer', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='opportunities', to='customers.customer', verbose_name='customer')),
                        ('owner', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='opportunities', to=settings.AUTH_USER_MODEL, verbose_name='owner')),
                    ],
                    options={
                        'verbose_name': 'opportunity',
                        'verbose_name_plural': 'opportunities',
                        'ordering': ['-created_at'],
                    },
                ),
                migrations.AddConstraint(
                    model_name='customer',
                    constraint=models.UniqueConstraint(condition=models.Q(('external_id', ''), _negated=True), fields=('external_source', 'external_id'), name='customer_unique_external_id'),
                ),
                migrations.AddConstraint(
                    model_name='opportunity',
                    constraint=models.UniqueConstraint(condition=models.Q(('external_id', ''), _negated=True), fields=('external_source', 'external_id'), name='opportunity_unique_external_id'),
                ),
            ],
            database_operations=[],
        ),
        migrations.RunPython(
            content_types_to("customers", "quotes"), content_types_to("quotes", "customers")
        ),
    ]
