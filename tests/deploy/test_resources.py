"""The documents worker's memory, measured the way `make bench` measures it (issue 30, item 1:
"resource requests and limits measured from make bench, the documents worker's memory at the
largest render"): bench.documents' own script renders bench.documents' largest proposal in a
fresh process and reports its peak RSS. The overlay's documents worker must fit it: the pool
process is not recycled after every render (--max-memory-per-child above the peak), the pod's
request holds the render, and its limit holds a pool process at the recycling threshold, so the
pool recycles before the kernel kills the pod mid-render."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bench.documents import PEAK_SCRIPT, SIZES
from customers.models import Customer
from planner.services import design_create
from quotes.services import quote_create
from tests.conftest import load_seed_catalog, worker_env
from tests.deploy.test_manifests import OVERLAY, one, render

ROOT = Path(__file__).resolve().parent.parent.parent
UNITS = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30}


def quantity(text: str) -> int:
    """A Kubernetes memory quantity in bytes (the binary suffixes the manifests use)."""
    number, unit = re.fullmatch(r"(\d+)(Ki|Mi|Gi)", text).groups()
    return int(number) * UNITS[unit]


def test_quantity_reads_the_suffixes_and_refuses_others():
    assert quantity("768Mi") == 768 * 2**20
    assert quantity("1Gi") == 2**30
    with pytest.raises(AttributeError):
        quantity("768M")


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_the_documents_worker_holds_the_largest_bench_render(engineer, settings):
    label, request = max(SIZES.items(), key=lambda size: size[1]["gpus"])
    load_seed_catalog()
    customer = Customer.objects.create(
        name_en="Bench AI Lab", name_zh="基准算力实验室", team=engineer.membership.team
    )
    design = design_create(owner=engineer, name=label, request_data=request)
    revision = quote_create(user=engineer, design=design, customer=customer).current_revision
    out = subprocess.run(
        [sys.executable, "-c", PEAK_SCRIPT, str(revision.pk)], cwd=ROOT,
        env={**worker_env(settings), "PATH": os.environ["PATH"]}, capture_output=True,
        text=True, timeout=300, check=False,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    peak = int(out.stdout.split()[-1]) * 1024  # ru_maxrss: KiB on Linux
    print(f"\n{label} proposal: peak RSS {peak / 2**20:.0f} MiB")

    worker = one(render(OVERLAY), "Deployment", "ezmax-worker-documents")
    [container] = worker["spec"]["template"]["spec"]["containers"]
    recycled = int(re.search(r"--max-memory-per-child (\d+)", container["command"][-1])[1]) * 1024
    resources = container["resources"]
    assert peak < recycled  # one render does not recycle the pool process
    assert peak < quantity(resources["requests"]["memory"])
    assert recycled < quantity(resources["limits"]["memory"])
