# The cable-label sheet (PDF) as an export job, in the requester's language.

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("planner", "0006_asbuiltcheck"),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name="exportjob",
            name="export_once_per_design_format_revision",
        ),
        migrations.AddField(
            model_name="exportjob",
            name="language",
            field=models.CharField(blank=True, default="", max_length=16, verbose_name="language"),
        ),
        migrations.AlterField(
            model_name="exportjob",
            name="format",
            field=models.CharField(
                choices=[
                    ("cabling.csv", "Cabling schedule (CSV)"),
                    ("bom.csv", "Bill of materials (CSV)"),
                    ("labels.pdf", "Cable labels (PDF, A4, 3 x 8)"),
                ],
                max_length=16,
                verbose_name="format",
            ),
        ),
        migrations.AddConstraint(
            model_name="exportjob",
            constraint=models.UniqueConstraint(
                fields=("design", "format", "design_updated_at", "language"),
                name="export_once_per_design_format_revision_language",
            ),
        ),
    ]
