"""The document store as the cluster configures it (issue 30, item 1): the production settings
with the overlay's ConfigMap keep documents on the shared claim mounted at MEDIA_ROOT, and
setting AWS_STORAGE_BUCKET_NAME (plus AWS_S3_ENDPOINT_URL for MinIO and the like) moves them to
S3-compatible object storage through django-storages, private, with nothing else changed."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.deploy.test_manifests import OVERLAY, one, render

ROOT = Path(__file__).resolve().parent.parent.parent

# Builds the storage the settings name, without touching it (S3Storage connects lazily).
SHOW = """
import json
import django
django.setup()
from django.core.files.storage import storages
s = storages["default"]
print(json.dumps({
    "backend": f"{type(s).__module__}.{type(s).__qualname__}",
    "location": str(getattr(s, "location", "")),
    "bucket": getattr(s, "bucket_name", None),
    "endpoint": getattr(s, "endpoint_url", None),
    "acl": getattr(s, "default_acl", None),
}))
"""


def storage(tmp_path: Path, **extra: str) -> dict:
    config = one(render(OVERLAY), "ConfigMap", "ezmax-config")["data"]
    env = {
        "PATH": os.environ["PATH"],
        **config,
        # What the Secret would hold (placeholders: nothing is connected to).
        "SECRET_KEY": "s" * 64,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "prometheus"),
        **extra,
    }
    assert env["DJANGO_SETTINGS_MODULE"] == "config.settings.production"
    out = subprocess.run(
        [sys.executable, "-c", SHOW], cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=60, check=False,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_documents_go_to_the_shared_claim_or_to_the_bucket_the_environment_names(tmp_path):
    shared = storage(tmp_path)
    assert shared["backend"] == "django.core.files.storage.filesystem.FileSystemStorage"
    assert shared["location"] == "/app/media"  # the ReadWriteMany claim's mount (web.yaml)

    bucket = storage(
        tmp_path,
        AWS_STORAGE_BUCKET_NAME="ezmax-documents",
        AWS_S3_ENDPOINT_URL="http://minio.storage:9000",
    )
    assert bucket == {
        "backend": "storages.backends.s3.S3Storage",
        "location": "",
        "bucket": "ezmax-documents",
        "endpoint": "http://minio.storage:9000",
        "acl": "private",  # documents are served through the authorising view only
    }
