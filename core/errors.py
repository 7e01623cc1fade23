"""Domain errors, named in the business language. They are mapped once to HTTP (in the API's
exception handler) and to form errors (`add_to_form`), never caught and re-worded ad hoc."""

from typing import Any


class DomainError(Exception):
    """A request the business rules refuse. `field` names the input that caused it, if any."""

    http_status = 400
    code = "invalid"

    def __init__(
        self,
        message: str,
        *,
        field: str | None = None,
        errors: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        # Field name -> one sentence. A single-field error is the one-entry case.
        self.errors: dict[str, str] = dict(errors or ({field: message} if field else {}))

    def field_messages(self) -> dict[str, list[str]]:
        """Field name -> its sentences, as the API lists them; one each unless a subclass has
        more to say (an upload with several bad lines)."""
        return {name: [message] for name, message in self.errors.items()}

    def add_to_form(self, form: Any) -> None:
        fields = getattr(form, "fields", {})
        if not self.errors:
            form.add_error(None, self.message)
        for name, message in self.errors.items():
            form.add_error(name if name in fields else None, message)


class NotAllowed(DomainError):
    http_status = 409
    code = "not_allowed"


PROBLEM_CONTENT_TYPE = "application/problem+json"


def problem_body(
    status: int, title: str, detail: Any = "", *, errors: Any = None, code: Any = ""
) -> dict[str, Any]:
    """An RFC 9457 problem document: the one shape every API error has, wherever it is made
    (the DRF exception handler, the idempotency middleware, the 404 handler)."""
    body: dict[str, Any] = {"type": "about:blank", "title": title, "status": status}
    if detail:
        body["detail"] = detail
    if code:
        body["code"] = code
    if errors:
        body["errors"] = errors
    return body


class TooManyJobs(DomainError):
    """A user (or their team) already has as many documents and exports queued or running as
    fair use allows (core.fair_use): one more would delay everyone else's. `retry_after` is the
    seconds after which asking again may succeed (the API's Retry-After)."""

    http_status = 429
    code = "too_many_jobs"

    def __init__(self, message: str, *, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after
