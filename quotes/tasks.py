"""Periodic work for quotes. Expiry is a scan of the database (Celery beat, every 15 minutes; see
CELERY_BEAT_SCHEDULE), never a delayed task per quote: it survives restarts and is idempotent."""

from celery import shared_task

from quotes import services


@shared_task(acks_late=True)
def expire_quotes() -> int:
    return services.quotes_expire()


@shared_task(acks_late=True, soft_time_limit=240, time_limit=300)
def render_document_task(document_id: int) -> int:
    """Routed to the documents queue (CELERY_TASK_ROUTES), so big renders never delay others."""
    from quotes.documents import document_render

    document_render(document_id=document_id)
    return document_id


@shared_task
def sweep_documents() -> dict[str, int]:
    from quotes.documents import documents_sweep

    return documents_sweep()
