"""Celery tasks of quotes, each a thin call into a service. Periodic ones are scans of the
database (Celery beat; see CELERY_BEAT_SCHEDULE), never a delayed task per quote: they survive
restarts and are idempotent. Time limits: settings, "Background jobs"."""

from celery import shared_task

from quotes import documents, services


@shared_task
def expire_quotes() -> int:
    return services.quotes_expire()


@shared_task
def render_document_task(document_id: int) -> int:
    """Routed to the documents queue (CELERY_TASK_ROUTES), so big renders never delay others."""
    documents.document_render(document_id=document_id)
    return document_id


@shared_task
def sweep_documents() -> dict[str, int]:
    return documents.documents_sweep()
