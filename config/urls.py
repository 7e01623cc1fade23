from django.conf import settings
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from catalog.api.urls import router as catalog_api
from core import views as core_views
from core.api.base import api_root_view
from core.api.urls import router as core_api
from customers.api.urls import router as customers_api
from planner.api.urls import router as planner_api
from quotes.api.urls import router as quotes_api

API_APPS = ("core", "catalog", "customers", "planner", "quotes")
# The root lists them in this order.
API_ROUTERS = (catalog_api, planner_api, quotes_api, customers_api, core_api)

urlpatterns = [
    path("", core_views.home, name="home"),
    path("help/", core_views.help_page, name="help"),
    path("health/", core_views.health, name="health"),
    path(
        "accounts/login/",
        auth_views.LoginView.as_view(redirect_authenticated_user=True),
        name="login",
    ),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("i18n/", include("django.conf.urls.i18n")),
    path("admin/", admin.site.urls),
    # The REST API: each app owns its routes (`<app>/api/urls.py`); the root lists them all.
    path("api/v1/", api_root_view(*API_ROUTERS), name="api-root"),
    *[path("api/v1/", include(f"{app}.api.urls")) for app in API_APPS],
    path("catalog/", include("catalog.urls")),
    path("quotes/", include("quotes.urls")),
    path("s/", include("quotes.share_urls")),
    path("designs/", include("planner.urls")),
    path("customers/", include("customers.urls")),
]

admin.site.site_header = "EZMAX Fabric Planner"
admin.site.site_title = "EZMAX Fabric Planner"

if settings.DEBUG:
    from django.conf.urls.static import static

    urlpatterns += static(settings.MEDIA_URL, document_root=settings.MEDIA_ROOT)
# Under /api/ every error Django answers itself is problem+json (core.views), as DRF's are.
handler400 = "core.views.bad_request"
handler403 = "core.views.permission_denied"
handler404 = "core.views.not_found"
handler500 = "core.views.server_error"
