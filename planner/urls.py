from django.urls import include, path

from planner import views

app_name = "planner"
urlpatterns = [
    path("", include("planner.exports.urls")),  # first: bounded exports (export_views)
    path("", views.DesignListView.as_view(), name="design-list"),
    path("new/", views.design_new, name="design-new"),
    path("new/preview/", views.design_new_preview, name="design-new-preview"),
    path("<int:pk>/", views.design_detail, name="design-detail"),
    path("<int:pk>/copy/", views.design_copy, name="design-copy"),
    path("<int:pk>/archive/", views.design_archive, name="design-archive"),
    path("<int:pk>/delete/", views.design_delete, name="design-delete"),
    path("<int:pk>/resize/", views.design_resize, name="design-resize"),
    path("<int:pk>/wizard/pick/", views.wizard_pick, name="wizard-pick"),
    path("<int:pk>/wizard/<slug:step>/", views.wizard, name="wizard"),
    path("<int:pk>/wizard/<slug:step>/preview/", views.wizard_preview, name="wizard-preview"),
    path("<int:pk>/bom.csv", views.export_bom_csv, name="bom-csv"),
    path("<int:pk>/request.json", views.export_request_json, name="request-json"),
    path("", include("planner.handover.urls")),
    path("", include("planner.asbuilt.urls")),
    path("", include("planner.meaning.urls")),
]
