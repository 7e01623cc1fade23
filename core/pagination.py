from typing import Any

from django.utils.translation import gettext as _
from rest_framework.exceptions import ValidationError
from rest_framework.pagination import CursorPagination
from rest_framework.request import Request


class ApiCursorPagination(CursorPagination):
    page_size = 25
    page_size_query_param = "limit"
    max_page_size = 100
    ordering = "-pk"

    def get_page_size(self, request: Request) -> int:
        """`?limit=` must be one whole number, 1 or more (above 100 it is cut to 100): any other
        value (`null`, `-1`, a repeated limit) is a 400 naming the parameter. DRF's default
        silently used 25, so a caller with a typo never learnt their limit was ignored."""
        values = request.query_params.getlist(self.page_size_query_param)
        if not values:
            return self.page_size
        try:
            # One value: `?limit=5&limit=50` is refused rather than guessed.
            (size,) = (int(value) for value in values)
        except ValueError:
            size = 0
        if size < 1:
            raise ValidationError(
                {
                    self.page_size_query_param: [
                        _("Enter a whole number of 1 or more (a page holds at most 100).")
                    ]
                }
            )
        return min(size, self.max_page_size)

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.page_size_query_param:
                parameter["schema"] = {"type": "integer", "minimum": 1}
                parameter["description"] = "Results per page: 1 or more, at most 100 are shown."
        return parameters
