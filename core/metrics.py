"""/metrics in Prometheus' text format, for the operator's Prometheus and no one else.

What it reports: django-prometheus' request figures (rates, latencies and status codes per view,
from its two middlewares), its cache figures (gets, hits, misses, failures: core.cache_metrics),
its database figures when METRICS_DATABASE is on, and the job table's
state, read at every scrape from the database every web process shares (`JobCollector`): rows by
kind and status, the oldest queued job's age, and how long the jobs that finished lately ran.

Who may read it (`metrics_allowed`): a client whose address is in METRICS_ALLOWED_NETWORKS
(loopback by default; the address behind NUM_PROXIES trusted proxies, as for the login lockout, so
a client coming through the ingress is never mistaken for the proxy), or one that sends
`Authorization: Bearer <METRICS_TOKEN>` when a token is set. Anyone else gets the site's 404: the
endpoint is not advertised.

It is answered by a middleware placed before every other but django-prometheus' first one: a
scraper reaches each pod by its address over plain HTTP inside the cluster, which neither
ALLOWED_HOSTS nor SECURE_SSL_REDIRECT would let through to a view."""

from __future__ import annotations

import hmac
import ipaddress
import logging
import os
from collections.abc import Callable, Iterator
from datetime import timedelta
from functools import cache

from django.apps import apps
from django.conf import settings
from django.db import DatabaseError
from django.db.models import Count, Min
from django.http import HttpRequest, HttpResponse, HttpResponseNotFound
from django.utils import timezone
from prometheus_client import REGISTRY, CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric, SummaryMetricFamily
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector

from core.lockout import client_ip
from core.models import Job

logger = logging.getLogger(__name__)

METRICS_PATH = "/metrics"
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
# The jobs finished within this window are the "recent" run times: long enough for a quiet
# hour to still show a few renders, short enough to show a slowdown within the hour.
RECENT_SECONDS = 3600


def _job_models() -> list[type[Job]]:
    return [model for model in apps.get_models() if issubclass(model, Job)]


def _states(model: type[Job]) -> dict[str, str]:
    """A kind's stored status words in the scheme's own words (documents store `rendering` and
    `ready` for running and done), so one query over every kind reads the same."""
    return {
        model.QUEUED: "queued",
        model.RUNNING: "running",
        model.DONE: "done",
        model.FAILED: "failed",
    }


class JobCollector(Collector):
    """The job table at the moment of the scrape: a handful of aggregate queries per kind of job
    (one GROUP BY status, one MIN over the queued rows, one aggregate over the recent ones), on
    the indexed status column."""

    def collect(self) -> Iterator[Metric]:
        """The job figures, or, when the database does not answer, only a gauge saying so: the
        request figures of the same scrape still arrive (they matter most in an outage)."""
        failed = GaugeMetricFamily(
            "ezmax_job_figures_failed", "1 when the job table could not be read at this scrape."
        )
        try:
            figures = list(self._figures())
        except DatabaseError:
            logger.warning("metrics: the job table could not be read", exc_info=True)
            failed.add_metric([], 1)
            yield failed
            return
        failed.add_metric([], 0)
        yield failed
        yield from figures

    def _figures(self) -> Iterator[Metric]:
        jobs = GaugeMetricFamily(
            "ezmax_jobs", "Background jobs by kind and status.", labels=["kind", "status"]
        )
        oldest = GaugeMetricFamily(
            "ezmax_job_oldest_queued_seconds",
            "Age of the oldest queued job of each kind, since it was asked for (0: none).",
            labels=["kind"],
        )
        recent = SummaryMetricFamily(
            "ezmax_job_recent_run_seconds",
            f"Run time (start of its last take to finish) of the jobs finished in the last "
            f"{RECENT_SECONDS} s.",
            labels=["kind"],
        )
        longest = GaugeMetricFamily(
            "ezmax_job_recent_run_seconds_max",
            f"Longest run time of the jobs finished in the last {RECENT_SECONDS} s.",
            labels=["kind"],
        )
        now = timezone.now()
        for model in _job_models():
            kind = model._meta.label_lower
            states = _states(model)
            counted = dict.fromkeys(states.values(), 0)
            rows = model._default_manager.values_list("status").annotate(n=Count("pk"))
            for status, number in rows.order_by():
                word = states.get(status, status)
                counted[word] = counted.get(word, 0) + number
            for word, number in sorted(counted.items()):
                jobs.add_metric([kind, word], number)
            first = model._default_manager.filter(status=model.QUEUED).aggregate(
                first=Min("created_at")
            )["first"]
            oldest.add_metric([kind], (now - first).total_seconds() if first else 0.0)
            count, total, most = 0, 0.0, 0.0
            finished = model._default_manager.filter(
                finished_at__gte=now - timedelta(seconds=RECENT_SECONDS),
                started_at__isnull=False,
            ).values_list("started_at", "finished_at")
            for started, ended in finished.order_by():
                if started is None or ended is None:  # excluded by the filter; for the types
                    continue
                seconds = max((ended - started).total_seconds(), 0.0)
                count, total, most = count + 1, total + seconds, max(most, seconds)
            recent.add_metric([kind], count_value=count, sum_value=total)
            longest.add_metric([kind], most)
        yield from (jobs, oldest, recent, longest)


@cache
def _job_registry() -> CollectorRegistry:
    registry = CollectorRegistry(auto_describe=False)
    registry.register(JobCollector())
    return registry


def metrics_text() -> bytes:
    """Every figure this process can report. Under gunicorn with PROMETHEUS_MULTIPROC_DIR set,
    the request figures are summed over every process of the pod (each writes its own file), so a
    scrape answered by any one of them reports the pod."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        requests = CollectorRegistry()
        MultiProcessCollector(requests)  # type: ignore[no-untyped-call]
    else:
        requests = REGISTRY
    return generate_latest(requests) + generate_latest(_job_registry())


@cache
def _networks(
    cidrs: tuple[str, ...],
) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    return tuple(ipaddress.ip_network(cidr.strip(), strict=False) for cidr in cidrs if cidr)


def reader_allowed(address: str | None, authorization: str) -> bool:
    """Who may read figures, for /metrics and for the workers' own endpoint
    (core.worker_metrics): the METRICS_TOKEN bearer, or an address in METRICS_ALLOWED_NETWORKS."""
    token = str(settings.METRICS_TOKEN or "")
    if token and hmac.compare_digest(authorization.encode(), f"Bearer {token}".encode()):
        return True
    try:
        ip = ipaddress.ip_address((address or "").split("%")[0])
    except ValueError:
        return False
    return any(ip in network for network in _networks(tuple(settings.METRICS_ALLOWED_NETWORKS)))


def metrics_allowed(request: HttpRequest) -> bool:
    return reader_allowed(client_ip(request), request.META.get("HTTP_AUTHORIZATION", ""))


class MetricsMiddleware:
    """Answers METRICS_PATH before the rest of the stack (see the module's docstring)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path_info.rstrip("/") != METRICS_PATH:
            return self.get_response(request)
        if request.method not in ("GET", "HEAD") or not metrics_allowed(request):
            return HttpResponseNotFound(b"", content_type="text/plain")
        response = HttpResponse(metrics_text(), content_type=CONTENT_TYPE)
        response["Cache-Control"] = "no-store"
        return response
