"""Periodic work for quotes. Expiry is a scan of the database (Celery beat, every 15 minutes; see
CELERY_BEAT_SCHEDULE), never a delayed task per quote: it survives restarts and is idempotent."""

from celery import shared_task

from quotes import services


@shared_task(acks_late=True)
def expire_quotes() -> int:
    return services.quotes_expire()
