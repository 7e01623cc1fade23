"""Handover files of a saved design, for the handover page and the API alike: the simulation
and cluster exports (NVIDIA Launch Kit, InfraGraph, SimAI) and the bundle of every handover
file in one ZIP.

Each reads the design as saved (`services.design_engine` re-derives it from the stored request
and catalog snapshot and refuses a design the engine would now size differently), never
today's catalog. Sizes are bounded: the Launch Kit and InfraGraph files enumerate the compute
plane's links, up to `HANDOVER_SYNC_MAX_CABLES` cables (100,000 by default; 131,072 GPUs have
385,024, each file made in 4 to 6 s on one core, 7.9 MB of InfraGraph). The bundle carries the
cable-by-cable files (NetBox, cabling JSON, labels) only up to `EXPORT_SYNC_MAX_ROWS` cables,
the cabling CSV's own limit (96,256 cables, 32,768 GPUs: a 3.2 MB bundle in about 20 s). Past
those, the request is refused in words (409): the files can still be downloaded one by one,
and the cabling schedule and labels come from their export jobs."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass

from django.conf import settings
from django.utils.translation import gettext as _

from core.errors import NotAllowed
from engine.cabling import CablingRow
from engine.design import Design as EngineDesign
from planner import services
from planner.exports import jobs as export_jobs
from planner.handover.cable_ids import Cable, identified
from planner.handover.containerlab import containerlab_yaml
from planner.handover.elevations import Elevations
from planner.handover.infragraph_doc import infragraph_json
from planner.handover.labels import labels_csv_chunks
from planner.handover.launch_kit import launch_kit_zip
from planner.handover.netbox import netbox_zip
from planner.handover.schedule_json import schedule_json_chunks
from planner.handover.simai import simai_zip
from planner.handover.slurm import topology_conf
from planner.models import Design

# The files by kind: the name of the download and its content type.
KINDS: dict[str, tuple[str, str]] = {
    "launch-kit": ("launch-kit.zip", "application/zip"),
    "infragraph": ("infragraph.json", "application/json"),
    "simai": ("simai.zip", "application/zip"),
    "bundle": ("handover.zip", "application/zip"),
}


class HandoverTooLarge(NotAllowed):
    code = "handover_too_large"


def sync_max_cables() -> int:
    return int(settings.HANDOVER_SYNC_MAX_CABLES)


def _cables_total(design: Design) -> int:
    return int((design.result or {}).get("cables_total") or 0)


def check_size(*, design: Design, kind: str) -> None:
    """Refuses (409, in words) a file too large to make within a request."""
    cables = _cables_total(design)
    if kind == "bundle" and cables > export_jobs.sync_max_rows():
        raise HandoverTooLarge(
            _(
                "This design has %(cables)s cables, too many for one handover bundle (at most "
                "%(limit)s); download its files one by one: the cabling schedule and the labels "
                "are made by a worker."
            )
            % {"cables": f"{cables:,}", "limit": f"{export_jobs.sync_max_rows():,}"}
        )
    # SimAI's files come from the design's figures alone: any size is made at once.
    if kind in ("launch-kit", "infragraph", "bundle") and cables > sync_max_cables():
        raise HandoverTooLarge(
            _(
                "This design has %(cables)s cables, too many for this file to be made at once "
                "(at most %(limit)s)."
            )
            % {"cables": f"{cables:,}", "limit": f"{sync_max_cables():,}"}
        )


@dataclass(frozen=True)
class Handover:
    """A saved design as the handover files read it."""

    design: Design
    engine: EngineDesign
    elevations: Elevations

    def rows(self) -> Iterator[CablingRow]:
        return services.design_cabling(design=self.design)

    def cables(self) -> Iterator[Cable]:
        return identified(self.rows(), self.elevations)

    @property
    def name(self) -> str:
        return f"ezmax-design-{self.design.pk}"


def handover_of(design: Design) -> Handover:
    engine = services.design_engine(design=design)
    elevations = export_jobs.design_handover_elevations(design=design, engine=engine)
    return Handover(design=design, engine=engine, elevations=elevations)


def filename(design: Design, kind: str) -> str:
    return f"design-{design.pk}-{KINDS[kind][0]}"


def netbox_file(data: Handover) -> bytes:
    catalog = services.design_catalog(design=data.design)
    vendors = {sku: product.vendor for sku, product in catalog.by_sku().items()}
    return netbox_zip(data.engine, data.elevations, data.cables(), vendors=vendors)


def cabling_json_chunks(data: Handover) -> Iterator[str]:
    about = {"id": data.design.pk, "name": data.design.name, "gpus": data.engine.gpus}
    return schedule_json_chunks(data.cables(), design=about)


def handover_file(data: Handover, kind: str) -> bytes:
    """One of KINDS, made whole (after `check_size`)."""
    if kind == "launch-kit":
        return launch_kit_zip(data.engine, data.rows())
    if kind == "infragraph":
        return infragraph_json(data.engine, data.rows()).encode()
    if kind == "simai":
        return simai_zip(data.engine, name=data.name)
    if kind == "bundle":
        return bundle_zip(data)
    raise KeyError(kind)


def bundle_zip(data: Handover) -> bytes:
    """Every handover file in one ZIP, a folder per tool: the NetBox import's CSV files (in
    their numbered order), containerlab, Slurm, the cabling schedule as JSON, the label CSV and
    the three exports above. The rack drawings and the label PDF stay on their own downloads
    (the PDF may be a worker's job)."""
    pk = data.design.pk
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        with zipfile.ZipFile(io.BytesIO(netbox_file(data))) as netbox:
            for member in netbox.namelist():
                archive.writestr(f"netbox/{member}", netbox.read(member))
        clab = containerlab_yaml(data.engine, data.rows(), name=data.name)
        archive.writestr(f"containerlab/design-{pk}.clab.yml", clab)
        archive.writestr("slurm/topology.conf", topology_conf(data.engine))
        archive.writestr(f"cabling/design-{pk}-cabling.json", "".join(cabling_json_chunks(data)))
        archive.writestr(
            f"labels/design-{pk}-labels.csv", "".join(labels_csv_chunks(data.cables()))
        )
        for kind in ("launch-kit", "simai"):
            with zipfile.ZipFile(io.BytesIO(handover_file(data, kind))) as inner:
                for member in inner.namelist():
                    archive.writestr(f"{kind}/{member}", inner.read(member))
        archive.writestr(f"infragraph/{filename(data.design, 'infragraph')}",
                         handover_file(data, "infragraph"))  # fmt: skip
    return out.getvalue()


__all__ = [
    "KINDS",
    "Handover",
    "HandoverTooLarge",
    "bundle_zip",
    "cabling_json_chunks",
    "check_size",
    "filename",
    "handover_file",
    "handover_of",
    "netbox_file",
]
