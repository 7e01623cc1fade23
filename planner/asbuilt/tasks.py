"""Celery tasks of the as-built check, each a thin call into `planner.asbuilt.services`;
imported by planner.tasks so the worker registers them."""

from celery import shared_task

from planner.asbuilt import services as asbuilt_services


@shared_task
def asbuilt_check_task(check_id: int) -> int:
    asbuilt_services.asbuilt_check_run(check_id=check_id)
    return check_id


@shared_task
def sweep_asbuilt_checks() -> dict[str, int]:
    return asbuilt_services.asbuilt_checks_sweep()
