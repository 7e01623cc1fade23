"""Proposal PDF rendering: time (median) and peak memory of the rendering process, for the
1,024-GPU proposal (issue 7's target: under 5 s and under 500 MB) and a 16,384-GPU one (issue 15:
no slower than its baseline of 1.0 s and 2.5 s). The share of the render spent gathering the
figures (`document_context`: sizing, graph check, meaning, alternatives, cabling attachment) is
printed beside it; the rest is WeasyPrint laying out and writing the PDF."""

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from bench import median_seconds
from bench.web import setup_django

ROOT = Path(__file__).resolve().parent.parent
SIZES = {
    "1,024 GPUs": {"gpus": 1024, "gpus_per_server": 8, "nic_speed": 400, "fabric": "rail",
                   "leaf": "DCS-7060DX5-64S"},
    "16,384 GPUs": {"gpus": 16384, "gpus_per_server": 8, "nic_speed": 400, "fabric": "rail",
                    "leaf": "MSN5600-VS2FC"},
}  # fmt: skip

PEAK_SCRIPT = """
import os, resource, sys
import django
django.setup()
from quotes.models import QuoteRevision
from quotes.pdf import render_document
revision = QuoteRevision.objects.get(pk=int(sys.argv[1]))
render_document(revision, kind="proposal", language="zh-hans")
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def _quotes() -> dict[str, int]:
    from django.core.management import call_command

    from core.roles import SALES_ENGINEER
    from core.services import user_create
    from customers.models import Customer
    from planner.services import design_create
    from quotes.services import quote_create

    call_command("load_catalog", stdout=io.StringIO())
    user = user_create(
        username="bench-docs", password="bench-pw-123", role=SALES_ENGINEER, team_name="Bench"
    )
    customer = Customer.objects.create(
        name_en="Bench AI Lab", name_zh="基准算力实验室", team=user.membership.team
    )
    revisions = {}
    for label, request in SIZES.items():
        design = design_create(owner=user, name=label, request_data=request)
        quote = quote_create(user=user, design=design, customer=customer)
        revisions[label] = quote.current_revision.pk
    return revisions


def _figures(revision: Any) -> None:
    from django.utils import translation

    from quotes.pdf import document_context

    with translation.override("zh-hans"):
        document_context(revision, kind="proposal", start_date=None, progress=lambda p, s: None)


def run() -> list[tuple]:
    setup_django()
    from quotes.models import QuoteRevision
    from quotes.pdf import render_document

    results: list[tuple] = []
    for label, revision_id in _quotes().items():
        revision = QuoteRevision.objects.get(pk=revision_id)
        seconds = median_seconds(
            lambda r=revision: render_document(r, kind="proposal", language="zh-hans"), runs=3
        )
        results.append((f"proposal PDF {label} (zh-hans): render", seconds))
        figures = median_seconds(lambda r=revision: _figures(r), runs=3)
        results.append((f"proposal PDF {label}: of which figures (document_context)", figures))
        out = subprocess.run(
            [sys.executable, "-c", PEAK_SCRIPT, str(revision_id)],
            cwd=ROOT,
            env={**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.test"},
            capture_output=True,
            text=True,
            check=True,
        )
        # Peak resident memory of a process that loads Django and renders one proposal.
        peak_kb = int(out.stdout.split()[-1])
        results.append((f"proposal PDF {label}: peak RSS of the process, MB", peak_kb / 1024, "MB"))
    return results


if __name__ == "__main__":
    print(json.dumps(run()))
