"""Export routes of the design pages (included first by planner/urls.py)."""

from django.urls import path

from planner.exports import views as export_views

urlpatterns = [
    path("<int:pk>/cabling.csv", export_views.export_cabling_csv, name="cabling-csv"),
    path("<int:pk>/bom.xlsx", export_views.export_bom_xlsx, name="bom-xlsx"),
    path("<int:pk>/exports/<int:job_id>/", export_views.export_status, name="export-job"),
    path(
        "<int:pk>/exports/<int:job_id>/download/",
        export_views.export_download,
        name="export-download",
    ),
]
