"""As-built check routes, included by planner.urls (inside its `planner` namespace)."""

from django.urls import path

from planner.asbuilt import views

urlpatterns = [
    path("<int:pk>/handover/as-built/", views.asbuilt_upload, name="asbuilt"),
    path("<int:pk>/handover/as-built/<int:check_id>/", views.asbuilt_check, name="asbuilt-check"),
    path(
        "<int:pk>/handover/as-built/<int:check_id>/punch-list.csv",
        views.asbuilt_punch_csv,
        name="asbuilt-punch-csv",
    ),
]
