from django.contrib.auth.decorators import login_required
from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET
from django.views.defaults import bad_request as site_bad_request
from django.views.defaults import page_not_found
from django.views.defaults import permission_denied as site_permission_denied
from django.views.defaults import server_error as site_server_error

from core.errors import PROBLEM_CONTENT_TYPE, problem_body

API_PREFIX = "/api/"


@login_required
def home(request: HttpRequest) -> HttpResponse:
    return render(request, "core/home.html")


@require_GET
def health(request: HttpRequest) -> JsonResponse:
    """Liveness for load balancers and docker-compose: the process answers and the DB responds."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return JsonResponse({"status": "ok"})


# --- Errors Django answers itself (not DRF's exception handler): problem+json under /api/, where
# integrators parse them, and the site's pages elsewhere. ---------------------------------------


def is_api(request: HttpRequest) -> bool:
    return request.path.startswith(API_PREFIX)


def problem_response(status: int, title: str, detail: str) -> JsonResponse:
    return JsonResponse(
        problem_body(status, title, detail), status=status, content_type=PROBLEM_CONTENT_TYPE
    )


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    """A request Django refused before any view (too large a body, a disallowed host...)."""
    if is_api(request):
        return problem_response(400, "Bad Request", _("The request could not be read."))
    return site_bad_request(request, exception)


def permission_denied(request: HttpRequest, exception: Exception) -> HttpResponse:
    if is_api(request):
        return problem_response(403, "Forbidden", _("You may not do this."))
    return site_permission_denied(request, exception)


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """A 404 as problem+json under /api/ (integrators parse it); the site's page elsewhere."""
    if is_api(request):
        return problem_response(404, "Not Found", _("No such resource."))
    return page_not_found(request, exception)


def server_error(request: HttpRequest) -> HttpResponse:
    """An unhandled error: no detail leaves the server (the log has it, under the request id that
    the X-Request-ID response header carries)."""
    if is_api(request):
        return problem_response(
            500,
            "Internal Server Error",
            _("The server failed to answer this request; the X-Request-ID header identifies it."),
        )
    return site_server_error(request)
