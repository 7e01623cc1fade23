from celery import shared_task

from core import services


@shared_task(acks_late=True)
def run_worker_probe(probe_id: int) -> int:
    services.worker_probe_run(probe_id=probe_id)
    return probe_id
