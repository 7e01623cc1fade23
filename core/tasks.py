from celery import shared_task

from core import services


@shared_task(acks_late=True)
def run_worker_probe(probe_id: int) -> int:
    services.worker_probe_run(probe_id=probe_id)
    return probe_id


@shared_task(acks_late=True)
def deliver_webhook(delivery_id: int) -> int:
    from core.webhooks import webhook_deliver

    webhook_deliver(delivery_id=delivery_id)
    return delivery_id


@shared_task
def dispatch_due_webhooks() -> int:
    from core.webhooks import webhooks_dispatch_due

    return webhooks_dispatch_due()


@shared_task
def purge_idempotency_keys() -> int:
    from core.services import idempotency_keys_purge

    return idempotency_keys_purge()
