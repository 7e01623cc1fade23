"""Quote lines keep their description in both languages (issue 15, item 1).

`description` is the English text from now on and `description_zh` the Chinese one. Lines written
before this kept one text, in the customer's language: a line whose text is its product's catalog
name (English or Chinese) gets both catalog names; every other line (a note, a text typed by hand,
a catalog gap, a product since renamed or removed) keeps its text as it is, with no Chinese text
beside it, and reads that text in both languages (`QuoteLine.description_in` falls back)."""

from django.db import migrations, models

BATCH = 1000


def _both_catalog_names(apps, schema_editor):
    QuoteLine = apps.get_model("quotes", "QuoteLine")
    Product = apps.get_model("catalog", "Product")
    names = {
        sku: (en, zh) for sku, en, zh in Product.objects.values_list("sku", "name_en", "name_zh")
    }
    changed = []
    lines = QuoteLine.objects.exclude(sku="").only("pk", "sku", "description", "description_zh")
    for line in lines.iterator(chunk_size=BATCH):
        en, zh = names.get(line.sku, ("", ""))
        text = line.description.strip()
        if not text or text not in (en.strip(), zh.strip()):
            continue  # not the catalog's name: a text someone chose, kept as it is
        line.description = en or line.description
        line.description_zh = zh
        changed.append(line)
        if len(changed) >= BATCH:
            QuoteLine.objects.bulk_update(changed, ["description", "description_zh"])
            changed = []
    if changed:
        QuoteLine.objects.bulk_update(changed, ["description", "description_zh"])


def _one_text_again(apps, schema_editor):
    """Back to one text, the way the line was written: in its customer's language."""
    QuoteLine = apps.get_model("quotes", "QuoteLine")
    changed = []
    lines = (
        QuoteLine.objects.exclude(description_zh="")
        .filter(revision__quote__customer__preferred_language__startswith="zh")
        .only("pk", "description", "description_zh")
    )
    for line in lines.iterator(chunk_size=BATCH):
        line.description = line.description_zh
        changed.append(line)
        if len(changed) >= BATCH:
            QuoteLine.objects.bulk_update(changed, ["description"])
            changed = []
    if changed:
        QuoteLine.objects.bulk_update(changed, ["description"])


class Migration(migrations.Migration):
    dependencies = [
        ("quotes", "0011_quote_sales_contact"),
        ("catalog", "0001_initial"),
        ("customers", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="quoteline",
            name="description_zh",
            field=models.TextField(blank=True, verbose_name="description (Chinese)"),
        ),
        migrations.AlterField(
            model_name="quoteline",
            name="description",
            field=models.TextField(blank=True, verbose_name="description (English)"),
        ),
        migrations.RunPython(_both_catalog_names, _one_text_again),
    ]
