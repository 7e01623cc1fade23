import time

from django.core.management.base import BaseCommand, CommandError

from core.models import JobStatus, WorkerProbe
from core.services import worker_probe_request


class Command(BaseCommand):
    help = "Queue a probe task and wait until a Celery worker has written its result to the DB."

    def add_arguments(self, parser):  # type: ignore[no-untyped-def]
        parser.add_argument("--timeout", type=float, default=30.0, help="seconds to wait")

    def handle(self, *args: object, timeout: float, **options: object) -> None:
        probe = worker_probe_request()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            probe = WorkerProbe.objects.get(pk=probe.pk)
            if probe.status == JobStatus.DONE:
                self.stdout.write(f"Worker {probe.worker_hostname} ran probe {probe.pk}.")
                return
            time.sleep(0.2)
        raise CommandError(f"No worker ran probe {probe.pk} within {timeout:g} s; is one running?")
