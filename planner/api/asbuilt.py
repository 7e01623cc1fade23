"""The as-built check over the API: what an upload carries and what a check answers."""

from typing import Any

from rest_framework import serializers

from planner.asbuilt.models import AsBuiltCheck

ASBUILT_UPLOAD = (
    "Neighbour data of the built cluster, checked against the design: `lldpctl -f json` output "
    "(one switch's, with `filename` naming the switch, e.g. `leaf01.json`; or an object of "
    "outputs keyed by device name), a CSV `device,port,neighbor_device,neighbor_port`, or a ZIP "
    "of such files, one per switch named after it (`leaf01.json`), at the archive's top level "
    "(no folders, no archive inside, at most 10,000 members and 20 MB unpacked). As "
    "multipart/form-data with `file` (up to 20 MB), or JSON with `filename` and `content` (the "
    "file's text; a JSON body is limited to the server's request size). A problem in the file's "
    "format (or a port or neighbour listed twice) is a 400 whose `errors.file` lists every "
    "problem with its file and line; nothing is stored. A clean upload is 202 with the check, "
    "whose `links.self` reports progress and, when `status` is `done`, the result: counts per "
    "finding, per rack, and the punch list. A device or port the design does not have is found "
    "by the worker: the check is then `failed`, its `error` naming each line."
)


class AsBuiltUploadSerializer(serializers.Serializer[Any]):
    file = serializers.FileField(required=False)
    filename = serializers.CharField(required=False, max_length=255)
    content = serializers.CharField(required=False, trim_whitespace=False)


class AsBuiltCheckSerializer(serializers.ModelSerializer[AsBuiltCheck]):
    links = serializers.SerializerMethodField()
    result = serializers.SerializerMethodField()

    class Meta:
        model = AsBuiltCheck
        fields = [
            "id", "design", "format", "original_name", "sha256", "size_bytes", "neighbours",
            "status", "progress", "step", "error", "created_at", "finished_at", "result",
            "links",
        ]  # fmt: skip
        read_only_fields = fields

    def get_links(self, check: AsBuiltCheck) -> dict[str, str]:
        return {"self": f"/api/v1/designs/{check.design_id}/as-built/{check.pk}/"}

    def get_result(self, check: AsBuiltCheck) -> dict[str, Any] | None:
        """The punch list once done (None before)."""
        result: dict[str, Any] | None = check.result if check.status == check.DONE else None
        return result
