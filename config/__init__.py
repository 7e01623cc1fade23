# The Celery app is imported here so that `shared_task` binds to it wherever Django loads.
from config.celery import app as celery_app

__all__ = ("celery_app",)
