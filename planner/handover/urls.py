"""Handover downloads, included by planner.urls (so inside its `planner` namespace)."""

from django.urls import path

from planner.handover import views

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
    path("<int:pk>/handover/launch-kit.zip", views.launch_kit, name="handover-launch-kit"),
    path("<int:pk>/handover/infragraph.json", views.infragraph, name="handover-infragraph"),
    path("<int:pk>/handover/simai.zip", views.simai, name="handover-simai"),
    path("<int:pk>/handover/handover.zip", views.bundle, name="handover-bundle"),
]
