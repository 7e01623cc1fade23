"""Issue 29's second fault, as written: one hung CRM endpoint (it accepts the connection and never
answers) and 40 webhook events, while a rendering worker is killed. Before the queues were split
by kind, the deliveries (10 s each) held the queue the sweeps ran on, and the killed render was
taken over after 221 s. Here the workers are laid out as docker-compose lays them out, one per
kind of queue (documents twice, webhooks, sweeps with the default queue), with beat and the
production timings (30 s lease, 15 s sweep): the render is still taken over within 60 s."""

import socket
import threading
import time

import pytest
from celery import current_app
from django.db import transaction

from config.settings.base import task_routes
from core.models import DeliveryStatus, WebhookDelivery, WebhookEvent
from core.webhooks import webhook_emit, webhook_subscription_create
from quotes.documents import document_request
from quotes.models import DocumentStatus
from tests.quotes.test_document_recovery import (  # the fixtures too
    BIG,
    full_catalog,  # noqa: F401 - a fixture
    one_file_matching,
    production_timings,  # noqa: F401 - a fixture
    rendered_by,
    row,
    start_beat,  # noqa: F401 - a fixture
    worker_ready,
)
from tests.quotes.test_documents import make_quote
from tests.waiting import wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.worker, pytest.mark.redis]

EVENTS = 40


class HungEndpoint:
    """A CRM that takes every connection and never answers."""

    def __init__(self) -> None:
        self.server = socket.socket()
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(64)
        self.port = self.server.getsockname()[1]
        self.held: list[socket.socket] = []
        self._stop = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        self.server.settimeout(0.2)
        while not self._stop.is_set():
            try:
                connection, _address = self.server.accept()
            except OSError:
                continue
            self.held.append(connection)  # read nothing, answer nothing

    def close(self) -> None:
        self._stop.set()
        for connection in self.held:
            connection.close()
        self.server.close()


@pytest.fixture
def queues_by_kind(settings, monkeypatch):
    """Webhooks and sweeps on queues of their own, as in production (the test settings put them
    on the test's default queue): for the workers and beat through their environment, and for
    this process's sends through the app's routes."""
    default = settings.CELERY_TASK_DEFAULT_QUEUE
    queues = {
        "documents": settings.DOCUMENTS_QUEUE,
        "exports": default,
        "webhooks": f"{default}-webhooks",
        "sweeps": f"{default}-sweeps",
    }
    monkeypatch.setenv("WEBHOOKS_QUEUE", queues["webhooks"])
    monkeypatch.setenv("SWEEPS_QUEUE", queues["sweeps"])
    saved = current_app.conf.task_routes
    current_app.conf.task_routes = task_routes(queues)
    current_app.amqp.flush_routes()
    yield queues
    current_app.conf.task_routes = saved
    current_app.amqp.flush_routes()


def test_a_hung_crm_does_not_delay_the_takeover_of_a_killed_render(
    full_catalog,  # noqa: F811
    production_timings,  # noqa: F811
    start_beat,  # noqa: F811
    engineer,
    settings,
    queues_by_kind,
    start_worker,
    tmp_path,
    redis_required,
):
    crm = HungEndpoint()
    try:
        webhook_subscription_create(
            user=engineer, url=f"http://127.0.0.1:{crm.port}/hooks",
            events=[WebhookEvent.DESIGN_CREATED],
        )  # fmt: skip
        quote = make_quote(engineer, request=BIG)  # its design's event: one delivery
        renderers = [
            start_worker(queues=[queues_by_kind["documents"]], log_path=tmp_path / f"doc-{n}.log")
            for n in (1, 2)
        ]
        hooks = start_worker(queues=[queues_by_kind["webhooks"]], log_path=tmp_path / "hooks.log")
        sweeps = start_worker(
            queues=[settings.CELERY_TASK_DEFAULT_QUEUE, queues_by_kind["sweeps"]],
            log_path=tmp_path / "sweeps.log",
        )
        start_beat()
        workers = [*renderers, hooks, sweeps]
        assert wait_until(lambda: all(worker_ready(w) for w in workers), 90)
        with transaction.atomic():
            for n in range(EVENTS):
                webhook_emit(
                    event=WebhookEvent.DESIGN_CREATED, data={"id": n},
                    team=engineer.membership.team,
                )  # fmt: skip
        # The CRM holds the webhooks worker: its first delivery hangs on the open connection.
        assert wait_until(lambda: len(crm.held) >= 1, 30)

        document = document_request(user=engineer, revision=quote.current_revision, language="en")
        assert wait_until(lambda: row(document).status == DocumentStatus.RENDERING, 60, every=0.02)
        [doomed] = [w for w in renderers if rendered_by(w)]
        doomed.kill()
        killed_at = time.monotonic()
        assert wait_until(lambda: row(document).attempts == 2, 90, every=0.2)
        taken_over = time.monotonic() - killed_at
        undelivered = WebhookDelivery.objects.exclude(status=DeliveryStatus.SUCCEEDED).count()
        print(f"\nkilled render taken over after {taken_over:.1f} s, with {undelivered} "
              f"deliveries to a hung CRM outstanding")  # fmt: skip
        assert taken_over <= 60
        # The CRM was still hanging and most of its deliveries still outstanding meanwhile.
        assert undelivered > EVENTS // 2
        assert wait_until(lambda: row(document).status == DocumentStatus.READY, 120, every=0.2)
        one_file_matching(document)
    finally:
        crm.close()
