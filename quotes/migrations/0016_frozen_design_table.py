"""A revision's frozen design moves from a JSON column to a row of planner.FrozenDesign that it
points at (PROTECT). Each distinct snapshot becomes one row, addressed by the SHA-256 of the same
JSON value, so the content hash a revision recorded at submit and approval still matches."""

import hashlib
import json

import django.db.models.deletion
from django.db import migrations, models


def _sha256(data):
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def _as_json(frozen):
    snapshot = frozen.sizing_snapshot
    return {
        "design_id": frozen.source_design_id,
        "name": frozen.name,
        "catalog_version": frozen.catalog_version,
        "sizing_snapshot": snapshot.sha256 if snapshot is not None else "",
        "request": dict(frozen.request or {}),
        "result": frozen.result or None,
    }


def forwards(apps, schema_editor):
    Revision = apps.get_model("quotes", "QuoteRevision")
    Frozen = apps.get_model("planner", "FrozenDesign")
    Snapshot = apps.get_model("planner", "SizingSnapshot")
    rows = {}
    for revision in Revision.objects.only("pk", "design_snapshot").iterator():
        data = revision.design_snapshot or {}
        if not data:
            continue
        value = {
            "design_id": data.get("design_id"),
            "name": str(data.get("name") or ""),
            "catalog_version": str(data.get("catalog_version") or ""),
            "sizing_snapshot": str(data.get("sizing_snapshot") or ""),
            "request": dict(data.get("request") or {}),
            "result": data.get("result") or None,
        }
        sha = _sha256(value)
        frozen = rows.get(sha)
        if frozen is None:
            frozen = Frozen.objects.filter(sha256=sha).first() or Frozen.objects.create(
                sha256=sha,
                source_design_id=value["design_id"],
                name=value["name"][:200],
                catalog_version=value["catalog_version"][:64],
                sizing_snapshot=Snapshot.objects.filter(sha256=value["sizing_snapshot"]).first()
                if value["sizing_snapshot"]
                else None,
                request=value["request"],
                result=value["result"],
            )
            rows[sha] = frozen
        Revision.objects.filter(pk=revision.pk).update(frozen_design=frozen)


def backwards(apps, schema_editor):
    Revision = apps.get_model("quotes", "QuoteRevision")
    for revision in Revision.objects.select_related("frozen_design__sizing_snapshot").iterator():
        frozen = revision.frozen_design
        Revision.objects.filter(pk=revision.pk).update(
            design_snapshot=_as_json(frozen) if frozen is not None else {}
        )


class Migration(migrations.Migration):
    dependencies = [
        ("planner", "0009_frozendesign"),
        ("quotes", "0015_revision_content_lock"),
    ]

    operations = [
        migrations.AddField(
            model_name="quoterevision",
            name="frozen_design",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="revisions",
                to="planner.frozendesign",
                verbose_name="frozen design",
            ),
        ),
        migrations.RunPython(forwards, backwards),
        migrations.RemoveField(model_name="quoterevision", name="design_snapshot"),
    ]
