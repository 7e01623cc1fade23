# mypy: disallow-subclassing-any=False
# django-filter ships no type stubs: FilterSet is Any to mypy, so subclassing it is allowed in
# this module (the rest stays strict).
"""What every filterset shares (each one serves an HTML list and an API list).

The rule for an empty value (`?category=`, `?created_before=`):
- In the API it is a 400 problem naming the parameter. The schema says what each parameter
  holds (an enum, a date, an integer, a string of at least one character), and "" is none of
  them; a filter answered as "no filter" would let a caller believe they filtered (a typo'd
  template, an unset variable in a script) and read every row instead. Leaving the parameter
  out is how a caller asks for no filter.
- On the HTML pages it means "no filter": a GET form submits every field, the empty ones too.
"""

from __future__ import annotations

import copy
from typing import Any

import django_filters
from django import forms
from django.http import QueryDict
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema_field


def is_api_request(request: object) -> bool:
    """A DRF request (the API) rather than a Django one (a page): only DRF's has query_params."""
    return getattr(request, "query_params", None) is not None


class StrictFilterSet(django_filters.FilterSet):
    """A FilterSet whose API use refuses empty values (the module's rule)."""

    _empty_checked = False

    def __init__(
        self,
        data: Any = None,
        queryset: Any = None,
        *,
        request: Any = None,
        prefix: str | None = None,
    ) -> None:
        """django-filter's __init__, with shallow copies of the declared filters instead of a
        deep copy: deep-copying every filter (and the querysets and choices they hold) took
        about a tenth of a list request (bench.load). Each instance still gets filters of its
        own: `model`, `parent`, the form field (built per request: a customer filter's choices
        are the caller's) and a method filter's FilterMethod are set on the copy; nothing else
        on a filter changes."""
        if queryset is None:
            queryset = self._meta.model._default_manager.all()
        self.is_bound = data is not None
        self.data = data or QueryDict()
        self.queryset = queryset
        self.request = request
        self.form_prefix = prefix
        self.filters = {}
        for name, declared in self.base_filters.items():
            filter_ = copy.copy(declared)
            filter_.__dict__.pop("_field", None)
            if filter_.method is not None:
                # its FilterMethod names the filter it was made for: one for this copy
                filter_.method = filter_.method
            filter_.model = queryset.model
            filter_.parent = self
            self.filters[name] = filter_

    def _asks_nothing(self) -> bool:
        """No filter named in the data: every row passes, no form needs building (a plain
        `GET /api/v1/designs/` built and validated nine form fields for nothing)."""
        return self.form_prefix is None and not any(name in self.data for name in self.filters)

    @property
    def qs(self) -> Any:
        if self.is_bound and self._asks_nothing():
            return self.queryset.all()
        return super().qs

    def is_valid(self) -> bool:
        if self.is_bound and self._asks_nothing():
            return True
        valid = bool(super().is_valid())
        if self.is_bound and is_api_request(self.request) and not self._empty_checked:
            # once: the filter backend asks is_valid, then `qs` validates again
            self._empty_checked = True
            for name, filter_ in self.filters.items():
                values = self.data.getlist(name) if hasattr(self.data, "getlist") else []
                if any(not str(value).strip() for value in values):
                    self.form.add_error(
                        name,
                        forms.ValidationError(
                            _("Give this filter a value, or leave the parameter out."),
                            code="empty",
                        ),
                    )
                elif len(values) > 1 and not _takes_many(filter_):
                    # `?gpus_max=1&gpus_max=2` filtered by the last one alone: which one the
                    # caller meant is theirs to say (Schemathesis sent the parameter as a list).
                    self.form.add_error(
                        name,
                        forms.ValidationError(
                            _("Give this filter one value; it was given %(count)s."),
                            code="repeated",
                            params={"count": len(values)},
                        ),
                    )
        return valid and not self.form.errors


def _takes_many(filter_: Any) -> bool:
    field_class = filter_.field_class
    return issubclass(field_class, (forms.MultipleChoiceField, forms.ModelMultipleChoiceField))


# A string filter: at least one character, as the API's rule above says (the schema then tells
# Schemathesis and integrators that "" is not a value).
NON_EMPTY_STRING: dict[str, Any] = {"type": "string", "minLength": 1}


@extend_schema_field(NON_EMPTY_STRING)
class NonEmptyCharFilter(django_filters.CharFilter):
    """A CharFilter whose schema says it is never empty."""


class _KeepUnknownSelect(forms.NullBooleanSelect):
    """Django's select reads anything but true/false as "any" (and "2"/"3" as true/false, from
    older forms); here only true/false and 1/0 are values, anything else is kept for the field
    to refuse."""

    VALUES = {"True": True, "true": True, "1": True, "False": False, "false": False, "0": False}

    def value_from_datadict(self, data: Any, files: Any, name: str) -> Any:
        raw = data.get(name)
        if raw in (None, "", "unknown"):
            return None
        return self.VALUES.get(raw, raw) if isinstance(raw, str) else raw


class _StrictNullBooleanField(forms.NullBooleanField):
    """true, false (or 1, 0), or nothing: `?is_draft=null` was read as "any" and listed every
    design, so a caller never learnt their filter was ignored (Schemathesis)."""

    widget = _KeepUnknownSelect

    def to_python(self, value: Any) -> bool:  # None too: the stubs follow BooleanField
        known = ("True", "true", "1", "False", "false", "0")
        if isinstance(value, str) and value not in (*known, "", "unknown"):
            raise forms.ValidationError(_("Enter true or false."), code="invalid")
        return super().to_python(value)  # type: ignore[return-value]


@extend_schema_field({"type": "boolean"})
class StrictBooleanFilter(django_filters.BooleanFilter):
    """true or false (1 or 0); the schema says boolean even when a method filters."""

    field_class = _StrictNullBooleanField


# The largest value a 64-bit integer column holds: a larger one is refused by the field, before
# the database (SQLite raises OverflowError, PostgreSQL a DataError).
MAX_BIGINT = 2**63 - 1


@extend_schema_field({"type": "integer", "minimum": 0, "maximum": MAX_BIGINT})
class CountFilter(django_filters.NumberFilter):
    """A whole number of 0 or more (a count such as GPUs): `?gpus_min=0.5` was read as a decimal
    and accepted although the schema says integer (Schemathesis)."""

    field_class = forms.IntegerField

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("min_value", 0)
        kwargs.setdefault("max_value", MAX_BIGINT)
        super().__init__(*args, **kwargs)
