from django.conf import settings
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from core import views as core_views

urlpatterns = [
    path("", core_views.home, name="home"),
    path("health/", core_views.health, name="health"),
    path(
        "accounts/login/",
        auth_views.LoginView.as_view(redirect_authenticated_user=True),
        name="login",
    ),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("i18n/", include("django.conf.urls.i18n")),
    path("admin/", admin.site.urls),
    path("api/v1/", include("config.api_urls")),
    path("catalog/", include("catalog.urls")),
    path("quotes/", include("quotes.urls")),
    path("s/", include("quotes.share_urls")),
    path("designs/", include("planner.urls")),
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
