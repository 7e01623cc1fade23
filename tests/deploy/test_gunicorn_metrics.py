"""gunicorn's `child_exit` hook (gunicorn.conf.py) removes an exited process's live gauges from
the pod's shared PROMETHEUS_MULTIPROC_DIR, so a scrape stops summing figures of the dead."""

import runpy
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[2]

WRITE_LIVE_GAUGE = """
from prometheus_client import Gauge
Gauge("ezmax_test_inflight", "in flight", multiprocess_mode="livesum").set(3)
"""


def test_an_exited_worker_leaves_no_live_gauge(tmp_path, monkeypatch):
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))
    # A real process writes a live gauge into the folder, as a gunicorn worker does, and exits.
    child = subprocess.run(
        [sys.executable, "-c", WRITE_LIVE_GAUGE],
        env={"PROMETHEUS_MULTIPROC_DIR": str(tmp_path), "PATH": "/usr/bin:/bin"},
        check=True,
    )
    assert child.returncode == 0
    files = list(tmp_path.glob("gauge_livesum_*.db"))
    assert len(files) == 1
    pid = int(files[0].stem.rsplit("_", 1)[1])
    hooks = runpy.run_path(str(ROOT / "gunicorn.conf.py"))
    hooks["child_exit"](None, SimpleNamespace(pid=pid))  # what gunicorn passes: its worker
    assert not list(tmp_path.glob("gauge_livesum_*.db"))
