"""Celery tasks of core. Each is a thin call into a service; periodic ones are scheduled in
settings (CELERY_BEAT_SCHEDULE) and scan the database, so they survive restarts. Each kind has its
queue (settings, TASK_QUEUE_KINDS): the probe sweep and the webhook dispatcher on `sweeps`, which
nothing slow shares, deliveries on `webhooks`, the rest on the default queue."""

from celery import shared_task

from core import retention, services, webhooks
from core.jobs import jobs_sweep


@shared_task
def run_worker_probe(probe_id: int) -> int:
    services.worker_probe_run(probe_id=probe_id)
    return probe_id


@shared_task
def sweep_worker_probes() -> dict[str, int]:
    return jobs_sweep(kind=services.PROBES)


@shared_task
def deliver_webhook(delivery_id: int) -> int:
    webhooks.webhook_deliver(delivery_id=delivery_id)
    return delivery_id


@shared_task
def dispatch_due_webhooks() -> int:
    return webhooks.webhooks_dispatch_due()


@shared_task
def purge_idempotency_keys() -> int:
    return services.idempotency_keys_purge()


@shared_task
def retention_sweep() -> dict[str, int]:
    return retention.retention_sweep()
