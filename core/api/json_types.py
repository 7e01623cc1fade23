"""A JSON body's values have the JSON types the schema states.

DRF's fields convert what they can: `"dual_homing": 0` or `"yes"` became true, `"gpus": "64"`
an integer, `"name": 0` the name "0", and a text's length was measured after trimming it.
Lenient parsing suits HTML forms, where every value is a string; in JSON it hides a client's
mistake (a quoted number, a flag sent as a string) behind an answer the client then trusts,
and the schema says otherwise (Schemathesis: "schema-violating request accepted"). An input
serializer mixes `JsonTypes` in: in a JSON body (a dict, not a form's QueryDict), a value of the
wrong JSON type is a 400 naming the field, in the same problem as every other field error.
Null is left to the field (`allow_null`). Decimals take a string or a number, as DRF's
DecimalField does."""

from __future__ import annotations

from typing import Any

from django.http import QueryDict
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _
from rest_framework import fields, relations, serializers

MESSAGES: dict[str, Promise] = {
    "boolean": _("Must be true or false (a JSON boolean, not a string or a number)."),
    "integer": _("Must be a whole number (a JSON number, not a string)."),
    "number": _("Must be a number (a JSON number, not a string)."),
    "string": _("Must be text (a JSON string)."),
    "array": _("Must be a list (a JSON array)."),
    "object": _("Must be an object (JSON)."),
}


def _choices_type(field: fields.ChoiceField) -> str | None:
    keys = list(field.choices)
    if keys and all(isinstance(key, str) for key in keys):
        return "string"
    if keys and all(isinstance(key, int) and not isinstance(key, bool) for key in keys):
        return "integer"
    return None


def json_type(field: fields.Field[Any, Any, Any, Any]) -> str | None:
    """The JSON type the schema (drf-spectacular) gives the field's input; None where it takes
    more than one (a decimal: a string or a number; JSONField: anything)."""
    # Order matters: subclasses before the classes they extend.
    if isinstance(field, fields.BooleanField):
        return "boolean"
    if isinstance(field, fields.MultipleChoiceField | fields.ListField):
        return "array"
    if isinstance(field, serializers.ListSerializer):
        return "array"
    if isinstance(field, fields.ChoiceField):
        return _choices_type(field)
    if isinstance(field, fields.IntegerField | relations.PrimaryKeyRelatedField):
        return "integer"
    if isinstance(field, fields.FloatField):
        return "number"
    if isinstance(
        field,
        fields.CharField
        | fields.DateField
        | fields.DateTimeField
        | fields.TimeField
        | relations.SlugRelatedField,
    ):
        return "string"
    if isinstance(field, fields.DictField | serializers.Serializer):
        return "object"
    return None


def has_json_type(value: Any, expected: str) -> bool:
    if expected == "boolean":
        return isinstance(value, bool)
    if isinstance(value, bool):  # a bool is an int to Python, never a number to JSON
        return False
    if expected == "integer":
        # OpenAPI 3.0's JSON Schema (draft 4, as Schemathesis reads it): 5.0 is a number only
        return isinstance(value, int)
    if expected == "number":
        return isinstance(value, int | float)
    if expected == "string":
        return isinstance(value, str)
    if expected == "array":
        return isinstance(value, list)
    return isinstance(value, dict)


def _too_long(field: fields.CharField, value: Any) -> bool:
    return field.max_length is not None and isinstance(value, str) and len(value) > field.max_length


# A field's JSON type by serializer class and field name: a class's fields are the same on every
# request (a context may leave some out, never retype one), so the type is worked out once, not
# on every preview.
_TYPES: dict[tuple[type, str], str | None] = {}


class JsonTypes(serializers.Serializer[Any]):
    """The first base of an input serializer (a Serializer or ModelSerializer)."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, dict) and not isinstance(data, QueryDict):
            errors: dict[str, Any] = {}
            for name, field in self.fields.items():
                value = data.get(name)
                if field.read_only or value is None:
                    continue
                key = (type(self), name)
                if key not in _TYPES:
                    _TYPES[key] = json_type(field)
                expected = _TYPES[key]
                if expected is not None and not has_json_type(value, expected):
                    errors[name] = [MESSAGES[expected]]
                elif isinstance(field, fields.CharField) and _too_long(field, value):
                    # The schema's maxLength is the text sent: DRF measured it after trimming
                    # the spaces around it, so 4 spaces and the longest text passed.
                    message = field.error_messages["max_length"]
                    errors[name] = [message.format(max_length=field.max_length)]
            if errors:
                # The other fields are checked too, so one answer names every mistake.
                rest = {key: value for key, value in data.items() if key not in errors}
                try:
                    super().to_internal_value(rest)
                except serializers.ValidationError as exc:
                    if isinstance(exc.detail, dict):
                        errors = {**exc.detail, **errors}
                raise serializers.ValidationError(errors)
        return super().to_internal_value(data)
