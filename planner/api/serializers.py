"""What the designs' list shows: a summary of each design, never its stored request or result
(a 1,000,000-GPU design's result is hundreds of kilobytes; a page of 100 of them would be tens of
megabytes of JSON). The detail (`GET /designs/{id}/`) carries the whole design."""

from collections.abc import Iterable, Mapping
from typing import Any

from rest_framework import serializers

from core.api.base import ShallowFieldCopies
from core.api.values import DateTimeText
from planner.exports.models import ExportJob
from planner.models import Design, Scenario

EXPORT_LINKS = ("bom_xlsx", "bom_csv", "cabling_csv")


class DesignListSerializer(ShallowFieldCopies, serializers.Serializer[Design]):
    """A design in the list: names, counts and links; the detail has the request and result.
    Fields are declared, not derived from the model: a ModelSerializer maps every model field
    again for each response, a large share of a list's time (bench.load)."""

    id = serializers.IntegerField(read_only=True)
    name = serializers.CharField(read_only=True)
    scenario = serializers.ChoiceField(choices=Scenario.choices, read_only=True)
    customer = serializers.IntegerField(source="customer_id", read_only=True, allow_null=True)
    owner = serializers.CharField(source="owner.username", read_only=True)
    team = serializers.CharField(source="team.name", read_only=True)
    is_draft = serializers.BooleanField(read_only=True)
    gpus = serializers.IntegerField(read_only=True, allow_null=True)
    catalog_version = serializers.CharField(read_only=True)
    copied_from = serializers.IntegerField(source="copied_from_id", read_only=True, allow_null=True)
    version = serializers.IntegerField(read_only=True)
    created_at = serializers.DateTimeField(read_only=True)
    updated_at = serializers.DateTimeField(read_only=True)
    links = serializers.SerializerMethodField()

    def get_links(self, design: Design) -> dict[str, str]:
        # The detail's links (DesignSerializer.get_links), for the same design.
        base = f"/api/v1/designs/{design.pk}/"
        exports = {name: f"{base}{name.replace('_', '.')}" for name in EXPORT_LINKS}
        return {"self": base, **exports}


# The columns a summary reads (DesignListSerializer's fields), as `QuerySet.values` names them.
SUMMARY_COLUMNS = (
    "pk", "id", "name", "scenario", "customer_id", "owner__username", "team__name", "is_draft",
    "gpus", "catalog_version", "copied_from_id", "version", "created_at", "updated_at",
)  # fmt: skip


def design_summaries(rows: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """DesignListSerializer's answer for rows of `values(*SUMMARY_COLUMNS)`: the list endpoint's
    fast path. The serializer stays the schema (and the test that both answer alike,
    tests/api/test_design_list.py): building a model instance and running fourteen serializer
    fields for each of 25 rows took half of a list request (bench.load), a dictionary each
    takes a fraction of that. Times are rendered as the serializer's field renders them
    (core.api.values: time zone, ISO 8601 as DRF writes it)."""
    when = DateTimeText()
    summaries = []
    for row in rows:
        base = f"/api/v1/designs/{row['id']}/"
        summaries.append(
            {
                "id": row["id"],
                "name": row["name"],
                "scenario": row["scenario"],
                "customer": row["customer_id"],
                "owner": row["owner__username"],
                "team": row["team__name"],
                "is_draft": row["is_draft"],
                "gpus": row["gpus"],
                "catalog_version": row["catalog_version"],
                "copied_from": row["copied_from_id"],
                "version": row["version"],
                "created_at": when(row["created_at"]),
                "updated_at": when(row["updated_at"]),
                "links": {
                    "self": base,
                    **{name: f"{base}{name.replace('_', '.')}" for name in EXPORT_LINKS},
                },
            }
        )
    return summaries


EXPORT_LIMIT = (
    "Up to `EXPORT_SYNC_MAX_ROWS` rows (default 100,000) the file streams in the response (200); "
    "a larger export is a background job: 202 with the job, whose `links.self` reports its "
    "progress and `links.download` serves the file when it is done."
)


class ExportJobSerializer(serializers.ModelSerializer[ExportJob]):
    links = serializers.SerializerMethodField()

    class Meta:
        model = ExportJob
        fields = [
            "id", "design", "format", "status", "progress", "step", "rows_total", "sha256",
            "size_bytes", "error", "created_at", "finished_at", "links",
        ]  # fmt: skip
        read_only_fields = fields

    def get_links(self, job: ExportJob) -> dict[str, str]:
        base = f"/api/v1/designs/{job.design_id}/exports/{job.pk}/"
        return {"self": base, "download": f"{base}download/"}


LABELS = ["lowest_cost", "lowest_cost_so_far", "most_resilient", "most_growth"]


class AlternativeSerializer(serializers.Serializer[Any]):
    """One alternative (`POST /designs/alternatives/`, planner.alternatives.alternatives_to_json):
    what it optimises, its cost per GPU, its trade-offs in words and the design itself."""

    # The API's field is named `label`, which the stubs also declare on Field (its caption).
    label = serializers.ChoiceField(  # type: ignore[assignment]
        choices=LABELS, read_only=True, help_text="The first of `labels`."
    )
    # Every measure the option is best at among those offered: one design may be both the
    # cheapest and the one that grows furthest, and then it is offered once with both.
    labels = serializers.ListField(child=serializers.ChoiceField(choices=LABELS), read_only=True)
    cost_per_gpu = serializers.DecimalField(
        max_digits=16, decimal_places=2, read_only=True, allow_null=True
    )
    cost_estimated = serializers.BooleanField(read_only=True)
    unpriced_lines = serializers.IntegerField(read_only=True)
    tradeoffs = serializers.ListField(child=serializers.CharField(), read_only=True)
    design = serializers.DictField(read_only=True)
