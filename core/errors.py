"""Domain errors, named in the business language. They are mapped once to HTTP (in the API's
exception handler) and to form errors (`add_to_form`), never caught and re-worded ad hoc."""

from typing import Any


class DomainError(Exception):
    """A request the business rules refuse. `field` names the input that caused it, if any."""

    http_status = 400
    code = "invalid"

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field

    def add_to_form(self, form: Any) -> None:
        field = self.field if self.field in getattr(form, "fields", {}) else None
        form.add_error(field, self.message)


class NotAllowed(DomainError):
    http_status = 409
    code = "not_allowed"
