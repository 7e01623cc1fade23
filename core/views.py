from django.contrib.auth.decorators import login_required
from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET
from django.views.defaults import page_not_found

from core.errors import PROBLEM_CONTENT_TYPE, problem_body


@login_required
def home(request: HttpRequest) -> HttpResponse:
    return render(request, "core/home.html")


@require_GET
def health(request: HttpRequest) -> JsonResponse:
    """Liveness for load balancers and docker-compose: the process answers and the DB responds."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return JsonResponse({"status": "ok"})


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """A 404 as problem+json under /api/ (integrators parse it); the site's page elsewhere."""
    if request.path.startswith("/api/"):
        body = problem_body(404, "Not Found", "No such resource.")
        return JsonResponse(body, status=404, content_type=PROBLEM_CONTENT_TYPE)
    return page_not_found(request, exception)
