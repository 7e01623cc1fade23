"""Celery tasks of planner, each a thin call into a service; time limits: settings, "Background
jobs"."""

from celery import shared_task

from planner.asbuilt.tasks import asbuilt_check_task, sweep_asbuilt_checks  # noqa: F401
from planner.exports import jobs as export_jobs
from planner.handover.services import design_pages_warm


@shared_task
def export_design_task(job_id: int) -> int:
    """One design export (planner.exports.jobs), on the default queue."""
    export_jobs.export_run(job_id=job_id)
    return job_id


@shared_task
def sweep_exports() -> dict[str, int]:
    return export_jobs.exports_sweep()


@shared_task
def warm_design_pages_task(design_id: int) -> int:
    """A very large design's first pages drawn into the cache (planner.handover.services);
    idempotent: drawing again writes the same entries."""
    design_pages_warm(design_id=design_id)
    return design_id
