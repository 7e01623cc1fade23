"""Handover downloads, included by planner.urls (so inside its `planner` namespace)."""

from django.urls import path

from planner.handover import views
from planner.handover.files import KINDS

urlpatterns = [
    path("<int:pk>/handover/", views.handover, name="handover"),
    path("<int:pk>/elevations/", views.design_elevations_section, name="design-elevations"),
    path("<int:pk>/handover/racks.svg", views.racks_svg, name="handover-racks-svg"),
    path("<int:pk>/handover/racks.xlsx", views.racks_xlsx, name="handover-racks-xlsx"),
    path("<int:pk>/handover/labels.pdf", views.labels_pdf_view, name="handover-labels-pdf"),
    path("<int:pk>/handover/labels.csv", views.labels_csv, name="handover-labels-csv"),
    path("<int:pk>/handover/netbox.zip", views.netbox, name="handover-netbox"),
    path("<int:pk>/handover/lab.clab.yml", views.containerlab, name="handover-containerlab"),
    path("<int:pk>/handover/topology.conf", views.slurm, name="handover-slurm"),
    path("<int:pk>/handover/cabling.json", views.cabling_json, name="handover-cabling-json"),
    # The simulation and cluster exports and the bundle (planner.handover.files.KINDS).
    *(
        path(
            f"<int:pk>/handover/{file}",
            views.handover_file_download,
            {"kind": kind},
            name=f"handover-{kind}",
        )
        for kind, (file, _content_type) in KINDS.items()
    ),
]
