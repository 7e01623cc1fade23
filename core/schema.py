"""OpenAPI (drf-spectacular) extensions, registered when the app is ready: importing them earlier
would import DRF's views while DRF's settings are still loading."""

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension

from core.http_limits import HEADER_FIELD_MAX_BYTES, HEADER_FIELDS_MAX, REQUEST_LINE_MAX_BYTES


class BearerTokenScheme(OpenApiAuthenticationExtension):  # type: ignore[no-untyped-call]
    target_class = "core.authentication.BearerTokenAuthentication"
    name = "bearerAuth"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {"type": "http", "scheme": "bearer", "bearerFormat": "ezm_<prefix>_<secret>"}


PROBLEM_SCHEMA = {
    "type": "object",
    "description": "RFC 9457 problem details.",
    "properties": {
        "type": {"type": "string"},
        "title": {"type": "string"},
        "status": {"type": "integer"},
        "detail": {"type": "string"},
        "code": {},
        "errors": {
            "type": "object",
            "description": "Field name -> messages (validation errors).",
            "additionalProperties": {},
        },
    },
    "required": ["type", "title", "status"],
}
STANDARD_ERRORS = {
    "400": "The request is invalid; `errors` names each field.",
    "401": "No or invalid credentials (`Authorization: Bearer <token>`).",
    "403": "Authenticated, but not allowed (role, or a read-only token writing).",
    "404": "Not found, or not visible to this caller.",
    "409": "Refused in the object's current state, or an Idempotency-Key still in flight.",
    "422": "Well-formed but not feasible, or an Idempotency-Key reused with another body.",
    "429": "Throttled; retry after the `Retry-After` seconds.",
    # Answered by the server (config.gunicorn_worker) before the application reads the request.
    "414": "The request line (method, path and query) is longer than "
    f"{REQUEST_LINE_MAX_BYTES:,} bytes.",
    "431": f"More than {HEADER_FIELDS_MAX} headers, or a header longer than "
    f"{HEADER_FIELD_MAX_BYTES:,} bytes.",
}
_CONTENT = {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}


def add_problem_responses(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: every operation documents every error it can return,
    as problem+json (the one exception handler produces them all)."""
    result.setdefault("components", {}).setdefault("schemas", {})["Problem"] = PROBLEM_SCHEMA
    for operations in result.get("paths", {}).values():
        for operation in operations.values():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            responses = operation["responses"]
            for code, description in STANDARD_ERRORS.items():
                existing = responses.get(code)
                if existing is None or "content" not in existing:
                    responses[code] = {"description": description, "content": _CONTENT}
                else:
                    existing["content"] = _CONTENT
    return result
