"""Backups that restore (issue 30): `manage.py backup` of a real PostgreSQL test database (quotes,
a rendered proposal) and its document store, `manage.py restore` into a new, empty database and an
empty document store, run as another process the way an operator runs it; afterwards every
document passes the download's own SHA-256 check and the next quote number follows the last one
backed up, without a gap or a repeat.

Only databases this test creates (ezmax_backup_dst_<pid>) are created and dropped."""

import json
import os
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest
from django.core.management import call_command
from django.db import connection
from django.utils import timezone

from customers.models import Customer
from planner.services import design_create
from quotes.documents import document_render, document_request
from quotes.models import Document, DocumentStatus, Quote
from quotes.services import quote_create
from tests.conftest import load_seed_catalog

ROOT = Path(__file__).resolve().parent.parent.parent
REQUEST = {"gpus": 64, "gpus_per_server": 8, "nic_speed": 400, "fabric": "rail", "leaf": "64x400"}

# Run in the restored system: each document through the download's check, then one new quote.
VERIFY = """
import json
from quotes.models import Document, Quote
from quotes.services import quote_create
from quotes.views.documents import _verified_copy
checked = []
for document in Document.objects.exclude(file="").order_by("pk"):
    _verified_copy(document).close()  # raises DocumentCorrupt on a mismatch
    checked.append(document.sha256)
last = Quote.objects.order_by("-pk").first()
new = quote_create(user=last.owner, design=last.design, customer=last.customer)
print(json.dumps({"checked": checked, "new_number": new.number}))
"""


def admin_connection(settings_dict) -> psycopg.Connection:
    return psycopg.connect(
        host=settings_dict.get("HOST") or "127.0.0.1",
        port=settings_dict.get("PORT") or 5432,
        user=settings_dict.get("USER") or "postgres",
        password=settings_dict.get("PASSWORD") or None,
        dbname="postgres",
        autocommit=True,
    )


@pytest.fixture
def empty_database(postgres_required):
    name = f"ezmax_backup_dst_{os.getpid()}"
    assert name.startswith("ezmax_backup_")  # never one of the project's own databases
    settings_dict = connection.settings_dict
    with admin_connection(settings_dict) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{name}"')
    user = settings_dict.get("USER") or "postgres"
    password = f":{settings_dict['PASSWORD']}" if settings_dict.get("PASSWORD") else ""
    host = settings_dict.get("HOST") or "127.0.0.1"
    port = settings_dict.get("PORT") or 5432
    yield f"postgres://{user}{password}@{host}:{port}/{name}"
    with admin_connection(settings_dict) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def manage(*args: str, database_url: str, media_root: Path) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "DATABASE_URL": database_url,
        "MEDIA_ROOT": str(media_root),
    }
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True,
        text=True, timeout=300, check=False,
    )  # fmt: skip


@pytest.mark.postgres
@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_backup_restores_into_an_empty_system_with_documents_and_numbers_intact(
    empty_database, engineer, settings, tmp_path
):
    load_seed_catalog()
    customer = Customer.objects.create(
        name_en="Acme AI Lab", name_zh="极智算力实验室", team=engineer.membership.team
    )
    design = design_create(owner=engineer, name="Training cluster", request_data=REQUEST)
    quotes = [quote_create(user=engineer, design=design, customer=customer) for _ in range(3)]
    documents = []
    for language in ("en", "zh-hans"):  # two real PDFs, in two files
        requested = document_request(
            user=engineer, revision=quotes[1].current_revision, language=language
        )
        documents.append(document_render(document_id=requested.pk))
    assert [d.status for d in documents] == [DocumentStatus.READY] * 2, documents[0].error
    year = timezone.localdate().year
    assert [q.number for q in quotes] == [f"Q-{year}-{n:05d}" for n in (1, 2, 3)]

    archive = tmp_path / "ezmax.backup.tar"
    call_command("backup", str(archive), stdout=open(os.devnull, "w"))  # noqa: SIM115
    assert archive.stat().st_size > sum(d.size_bytes for d in documents)

    restored_media = tmp_path / "restored-media"
    restored = manage("restore", str(archive), database_url=empty_database,
                      media_root=restored_media)  # fmt: skip
    assert restored.returncode == 0, restored.stderr[-3000:]
    assert "2 stored files" in restored.stdout
    # The files are back under the names the rows carry, byte for byte.
    for document in documents:
        copy = restored_media / document.file.name
        assert copy.read_bytes() == Path(settings.MEDIA_ROOT, document.file.name).read_bytes()

    verify = manage("shell", "-c", VERIFY, database_url=empty_database,
                    media_root=restored_media)  # fmt: skip
    assert verify.returncode == 0, verify.stderr[-3000:]
    result = json.loads(verify.stdout.strip().splitlines()[-1])
    assert result["checked"] == [d.sha256 for d in sorted(documents, key=lambda d: d.pk)]
    # Three quotes were backed up: the restored system gives out the fourth, once.
    assert result["new_number"] == f"Q-{year}-00004"
    # The source goes on independently (its own counter, untouched by the restore).
    assert quote_create(user=engineer, design=design, customer=customer).number == (
        f"Q-{year}-00004"
    )
    assert Quote.objects.count() == 4
    assert Document.objects.count() == 2


@pytest.mark.postgres
@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_restore_refuses_a_database_or_document_store_that_is_not_empty(
    empty_database, engineer, tmp_path
):
    archive = tmp_path / "ezmax.backup.tar"
    call_command("backup", str(archive), stdout=open(os.devnull, "w"))  # noqa: SIM115
    media = tmp_path / "restored-media"
    first = manage("restore", str(archive), database_url=empty_database, media_root=media)
    assert first.returncode == 0, first.stderr[-3000:]
    again = manage("restore", str(archive), database_url=empty_database, media_root=media)
    assert again.returncode != 0
    assert "is not empty" in again.stderr
    # An empty database but a document store with a file in it.
    (tmp_path / "other-media" / "documents").mkdir(parents=True)
    (tmp_path / "other-media" / "documents" / "left.pdf").write_bytes(b"%PDF-")
    with admin_connection(connection.settings_dict) as admin:
        name = empty_database.rsplit("/", 1)[1]
        admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{name}"')
    refused = manage("restore", str(archive), database_url=empty_database,
                     media_root=tmp_path / "other-media")  # fmt: skip
    assert refused.returncode != 0
    assert "document store is not empty" in refused.stderr
