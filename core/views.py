from django.contrib.auth.decorators import login_required
from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET


@login_required
def home(request: HttpRequest) -> HttpResponse:
    return render(request, "core/home.html")


@require_GET
def health(request: HttpRequest) -> JsonResponse:
    """Liveness for load balancers and docker-compose: the process answers and the DB responds."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return JsonResponse({"status": "ok"})
