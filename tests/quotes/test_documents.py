"""PDF documents: real WeasyPrint output read back with pypdf; the job's idempotency, failure in
words and lease sweep; the API; and the whole pipeline through a real worker that is killed
mid-render."""

import hashlib
import io
import re
import time

import pytest
from django.urls import reverse
from pypdf import PdfReader
from rest_framework.test import APIClient

from core.jobs import job_claim
from core.models import TokenScope
from core.services import api_token_create
from customers.models import Customer
from planner.services import design_create
from quotes.documents import DOCUMENTS, document_render, document_request, documents_sweep
from quotes.models import Document, DocumentStatus, QuoteRevision
from quotes.services import quote_create
from tests.conftest import IN_CI, load_seed_catalog, require_service

REQUEST_64 = {"gpus": 64, "gpus_per_server": 8, "nic_speed": 400, "fabric": "rail",
              "leaf": "64x400"}  # fmt: skip


@pytest.fixture
def full_catalog(db):
    load_seed_catalog()


def make_quote(user, request=REQUEST_64, customer_name="极智算力实验室"):
    customer = Customer.objects.create(
        name_en="Acme AI Lab", name_zh=customer_name, team=user.membership.team
    )
    design = design_create(owner=user, name="Training cluster", request_data=request)
    return quote_create(user=user, design=design, customer=customer)


def pdf_text(content: bytes) -> tuple[PdfReader, str]:
    reader = PdfReader(io.BytesIO(content))
    return reader, "\n".join(page.extract_text() or "" for page in reader.pages)


@pytest.mark.slow
@pytest.mark.django_db
def test_chinese_proposal_states_the_engines_warnings_in_chinese(full_catalog, engineer):
    # 32 GPUs = 4 servers x 8 NICs on one 64-port leaf: 32 of its 64 ports idle, which the
    # engine warns about (more than a quarter free). The customer reads that in Chinese.
    quote = make_quote(engineer, request={**REQUEST_64, "gpus": 32})
    codes = [w["code"] for w in quote.current_revision.frozen_design.result["warnings"]]
    assert "unused_ports" in codes
    document = document_request(user=engineer, revision=quote.current_revision, language="zh-hans")
    document = document_render(document_id=document.pk)
    assert document.status == DocumentStatus.READY, document.error
    _reader, text = pdf_text(document.file.read())
    flat = "".join(text.split())  # the PDF wraps lines anywhere in Chinese text
    assert "每台64x400的64个端口中有32个空闲" in flat
    assert "ports free on each" not in text


@pytest.mark.slow
@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "headings"),
    [
        ("en", ["Bill of materials and prices", "Implementation plan", "Configuration guide"]),
        ("zh-hans", ["物料清单与报价", "实施计划", "配置指南"]),
    ],
)
def test_proposal_pdf_reads_back(full_catalog, engineer, language, headings):
    quote = make_quote(engineer)
    revision = quote.current_revision
    document = document_request(user=engineer, revision=revision, language=language)
    document = document_render(document_id=document.pk)
    assert document.status == DocumentStatus.READY, document.error
    content = document.file.read()
    assert hashlib.sha256(content).hexdigest() == document.sha256
    assert len(content) == document.size_bytes
    reader, text = pdf_text(content)
    assert len(reader.pages) == document.pages
    # Cover, contents, ten chapters each starting on a new page: at least 12 pages.
    assert document.pages >= 12
    assert quote.number in text
    for heading in headings:
        assert heading in text
    # The totals printed are the revision's, formatted with thousands separators.
    assert f"{revision.total:,.2f}" in text
    assert f"{revision.subtotal:,.2f}" in text
    # The topology drawing is in the PDF as vector graphics with its labels (SVG text).
    assert "64×400" in text or "64x400" in text
    # 64 GPUs x 1 rail each... 8 servers x 8 NICs = 64 server-leaf cables: more than fit the
    # page budget (60), so the cabling schedule travels as an attachment with one row per cable.
    attachments = reader.attachments
    [(name, [csv_bytes])] = attachments.items()
    assert name.endswith("-cabling.csv")
    rows = csv_bytes.decode("utf-8-sig").strip().splitlines()
    assert len(rows) == 1 + revision.frozen_design.result["cables_total"]


@pytest.mark.django_db
def test_implementation_plan_pdf(full_catalog, engineer):
    from datetime import date

    revision = make_quote(engineer).current_revision
    document = document_request(
        user=engineer, revision=revision, kind="plan", language="en", start_date=date(2026, 12, 7)
    )
    document = document_render(document_id=document.pk)
    _reader, text = pdf_text(document.file.read())
    assert "Implementation plan" in text
    assert "2026-12-07" in text  # a Monday: the first phase starts on the chosen day
    assert "POC kit" in text


@pytest.mark.django_db
def test_request_is_idempotent_and_a_failed_one_is_retried(full_catalog, engineer):
    revision = make_quote(engineer).current_revision
    first = document_request(user=engineer, revision=revision, language="en")
    again = document_request(user=engineer, revision=revision, language="en")
    assert again.pk == first.pk
    other = document_request(user=engineer, revision=revision, language="zh-hans")
    assert other.pk != first.pk
    Document.objects.filter(pk=first.pk).update(status=DocumentStatus.FAILED, attempts=3)
    retried = document_request(user=engineer, revision=revision, language="en")
    assert retried.pk == first.pk
    assert retried.status == DocumentStatus.QUEUED
    assert retried.attempts == 0
    assert Document.objects.count() == 2


@pytest.mark.django_db
def test_broken_data_fails_in_words_not_a_crash(full_catalog, engineer):
    revision = make_quote(engineer).current_revision
    from planner.models import FrozenDesign

    broken = FrozenDesign.objects.create(
        sha256="0" * 64, name="broken", result={"planes": "not a list"}, request={}
    )
    QuoteRevision.objects.filter(pk=revision.pk).update(frozen_design=broken)
    revision.refresh_from_db()
    document = document_request(user=engineer, revision=revision, language="en")
    document = document_render(document_id=document.pk)
    assert document.status == DocumentStatus.FAILED
    assert "could not be rendered" in document.error
    assert not document.file


@pytest.mark.django_db
def test_sweep_requeues_an_abandoned_render_then_gives_up(full_catalog, engineer, settings):
    from django.utils import timezone

    settings.JOB_MAX_ATTEMPTS = 2
    revision = make_quote(engineer).current_revision
    document = document_request(user=engineer, revision=revision, language="en")
    past = timezone.now() - timezone.timedelta(seconds=1)
    # A worker claimed it and died: status rendering, lease in the past.
    Document.objects.filter(pk=document.pk).update(
        status=DocumentStatus.RENDERING, attempts=1, lease_expires_at=past
    )
    assert documents_sweep() == {"requeued": 1, "failed": 0}
    assert Document.objects.get(pk=document.pk).status == DocumentStatus.QUEUED
    Document.objects.filter(pk=document.pk).update(
        status=DocumentStatus.RENDERING, attempts=2, lease_expires_at=past
    )
    assert documents_sweep() == {"requeued": 0, "failed": 1}
    failed = Document.objects.get(pk=document.pk)
    assert failed.status == DocumentStatus.FAILED
    assert "interrupted" in failed.error


@pytest.mark.django_db
def test_api_returns_202_then_status_then_download(full_catalog, engineer, other_engineer):
    quote = make_quote(engineer)
    _token, secret = api_token_create(user=engineer, name="crm", scope=TokenScope.READ_WRITE)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    response = client.post(
        f"/api/v1/quotes/{quote.pk}/documents/", {"language": "en"}, format="json"
    )
    assert response.status_code == 202
    job = response.json()
    assert job["status"] == "queued"
    assert response["Location"] == f"/api/v1/documents/{job['id']}/"
    assert client.get(f"/api/v1/documents/{job['id']}/download/").status_code == 404
    document_render(document_id=job["id"])  # what the worker does
    status = client.get(f"/api/v1/documents/{job['id']}/").json()
    assert status["status"] == "ready"
    assert status["progress"] == 100
    download = client.get(status["links"]["download"])
    assert download.status_code == 200
    assert download["Content-Type"] == "application/pdf"
    body = b"".join(download.streaming_content)
    assert hashlib.sha256(body).hexdigest() == status["sha256"]

    outsider = APIClient()
    outsider.force_authenticate(other_engineer)
    assert outsider.get(f"/api/v1/documents/{job['id']}/").status_code == 404
    assert outsider.get(f"/api/v1/documents/{job['id']}/download/").status_code == 404
    reader_token = api_token_create(user=engineer, name="ro", scope=TokenScope.READ)[1]
    read_only = APIClient()
    read_only.credentials(HTTP_AUTHORIZATION=f"Bearer {reader_token}")
    assert read_only.post(f"/api/v1/quotes/{quote.pk}/documents/", {}).status_code == 403


@pytest.mark.django_db(transaction=True)
@pytest.mark.worker
def test_worker_killed_mid_render_still_yields_one_document(
    full_catalog, engineer, settings, start_worker
):
    """Real worker, real broker (Redis in CI): kill it while it renders, sweep, start another;
    the document becomes ready exactly once."""

    if IN_CI:
        require_service(bool(settings.REDIS_URL), "needs Redis: REDIS_URL is not set")
    settings.JOB_LEASE_SECONDS = 5  # the worker gets it through its environment
    quote = make_quote(
        engineer,
        request={**REQUEST_64, "gpus": 16384, "leaf": "64x800"},
    )
    first = start_worker()
    document = document_request(user=engineer, revision=quote.current_revision, language="en")

    def status():
        return Document.objects.get(pk=document.pk).status

    deadline = time.monotonic() + 60
    while status() != DocumentStatus.RENDERING and time.monotonic() < deadline:
        time.sleep(0.05)
    assert status() == DocumentStatus.RENDERING, first.log_path.read_text()[-2000:]
    first.kill()
    assert status() == DocumentStatus.RENDERING  # stuck, until the lease runs out

    time.sleep(settings.JOB_LEASE_SECONDS + 1)
    assert documents_sweep()["requeued"] == 1
    second = start_worker()
    deadline = time.monotonic() + 120
    while status() != DocumentStatus.READY and time.monotonic() < deadline:
        time.sleep(0.2)
    document.refresh_from_db()
    assert document.status == DocumentStatus.READY, second.log_path.read_text()[-3000:]
    assert document.attempts == 2
    assert Document.objects.count() == 1
    content = document.file.read()
    assert hashlib.sha256(content).hexdigest() == document.sha256
    # Exactly one file for the document in storage, whatever the first attempt left behind.
    from django.core.files.storage import default_storage

    _dirs, files = default_storage.listdir(f"documents/{quote.number}")
    assert [f"documents/{quote.number}/{name}" for name in files] == [document.file.name]


# --- Immutable files (issue 18, item 1) ----------------------------------------------------------


def _download(client, document) -> bytes:
    response = client.get(f"/api/v1/documents/{document.pk}/download/")
    assert response.status_code == 200, response.content
    return b"".join(response.streaming_content)


def _stored_bytes(documents) -> dict[int, bytes]:
    from django.core.files.storage import default_storage

    result = {}
    for document in documents:
        with default_storage.open(document.file.name, "rb") as stored:
            result[document.pk] = stored.read()
    return result


@pytest.mark.slow
@pytest.mark.django_db
def test_documents_that_differ_get_files_of_their_own(full_catalog, engineer, monkeypatch):
    """Kind, language, start date, template version: every combination that differs is its own
    document with its own file, whose download is exactly the bytes its SHA-256 names; rendering
    one again leaves the others' bytes untouched (they once shared a file name and overwrote
    each other: the first plan's download had the second's SHA-256)."""
    from datetime import date

    import quotes.documents

    revision = make_quote(engineer).current_revision
    asks = [
        {"kind": "proposal", "language": "en"},
        {"kind": "proposal", "language": "zh-hans"},
        {"kind": "plan", "language": "en", "start_date": date(2026, 12, 7)},
        {"kind": "plan", "language": "en", "start_date": date(2027, 3, 1)},
    ]
    documents = []
    for ask in asks:
        document = document_request(user=engineer, revision=revision, **ask)
        documents.append(document_render(document_id=document.pk))
    monkeypatch.setattr(quotes.documents, "TEMPLATE_VERSION", "2099.1.1")
    newer = document_request(user=engineer, revision=revision, kind="proposal", language="en")
    documents.append(document_render(document_id=newer.pk))
    monkeypatch.undo()

    assert len({d.pk for d in documents}) == 5
    assert all(d.status == DocumentStatus.READY for d in documents), [d.error for d in documents]
    names = [d.file.name for d in documents]
    assert len(set(names)) == 5, names
    for document in documents:
        assert str(document.pk) in document.file.name.rsplit("/", 1)[1]
    client = APIClient()
    client.force_authenticate(engineer)
    served = {d.pk: _download(client, d) for d in documents}
    for document in documents:
        assert hashlib.sha256(served[document.pk]).hexdigest() == document.sha256
        assert len(served[document.pk]) == document.size_bytes
    assert len({d.sha256 for d in documents}) == 5
    _reader, text = pdf_text(served[documents[3].pk])
    assert "2027-03-01" in text  # the second plan's own start date, not the first's

    # Render the first plan again (asked for again after it failed): a new file of its own.
    before = _stored_bytes(documents)
    regenerated = documents[2]
    Document.objects.filter(pk=regenerated.pk).update(status=DocumentStatus.FAILED)
    document_request(
        user=engineer, revision=revision, kind="plan", language="en", start_date=date(2026, 12, 7)
    )
    regenerated = document_render(document_id=regenerated.pk)
    assert regenerated.status == DocumentStatus.READY
    after = _stored_bytes([d for d in documents if d.pk != regenerated.pk])
    assert after == {pk: content for pk, content in before.items() if pk != regenerated.pk}
    for document in documents:
        document.refresh_from_db()
        content = _download(client, document)
        assert hashlib.sha256(content).hexdigest() == document.sha256
    assert regenerated.file.name not in names[:2] + names[3:]


@pytest.mark.slow
@pytest.mark.django_db
def test_a_download_rechecks_the_hash_and_never_sends_wrong_bytes(full_catalog, engineer, client):
    from django.core.files.storage import default_storage

    revision = make_quote(engineer).current_revision
    document = document_request(user=engineer, revision=revision, language="en")
    document = document_render(document_id=document.pk)
    other = document_request(user=engineer, revision=revision, language="zh-hans")
    other = document_render(document_id=other.pk)
    other_bytes = _stored_bytes([other])[other.pk]
    # The stored bytes change behind the row's back (a disk fault, a hand-edited file).
    path = default_storage.path(document.file.name)
    with open(path, "r+b") as stored:
        stored.seek(100)
        stored.write(b"tampered")

    api = APIClient()
    api.force_authenticate(engineer)
    response = api.get(f"/api/v1/documents/{document.pk}/download/")
    assert response.status_code == 409
    assert response["Content-Type"] == "application/problem+json"
    assert "does not match its recorded SHA-256" in response.json()["detail"]
    assert b"%PDF" not in response.content
    client.force_login(engineer)
    page = client.get(reverse("quotes:document-download", args=[document.pk]))
    assert page.status_code in (404, 409)  # failed now: asking again renders it anew
    document.refresh_from_db()
    assert document.status == DocumentStatus.FAILED
    assert "SHA-256" in document.error

    again = document_request(user=engineer, revision=revision, language="en")
    assert again.pk == document.pk
    again = document_render(document_id=again.pk)
    assert again.status == DocumentStatus.READY
    assert hashlib.sha256(_download(api, again)).hexdigest() == again.sha256
    assert _download(api, other) == other_bytes  # the other document's bytes never moved


@pytest.mark.django_db
def test_acceptance_records_the_hash_of_the_bytes_served(client, quote, engineer, monkeypatch):
    """The customer downloads the proposal through the link; a newer proposal is rendered for
    the revision afterwards; the acceptance names the bytes the customer received."""
    import quotes.documents
    from quotes import services
    from quotes.models import CustomerDecision
    from quotes.pdf import RenderedDocument

    def render(revision, *, kind, language, start_date, progress):
        # This quote's test design is a stub the PDF templates cannot draw: stand-in bytes.
        version = quotes.documents.TEMPLATE_VERSION
        return RenderedDocument(f"%PDF-1.7 {revision.label} {language} {version}".encode(), 1)

    monkeypatch.setattr(quotes.documents, "render_document", render)
    link = services.revision_send(user=engineer, revision=quote.current_revision)
    language = quote.customer.preferred_language
    served = document_request(user=engineer, revision=link.revision, language=language)
    served = document_render(document_id=served.pk)
    response = client.get(reverse("share:document", args=[link.token]))
    assert response.status_code == 200
    content = b"".join(response.streaming_content)
    assert hashlib.sha256(content).hexdigest() == served.sha256

    monkeypatch.setattr(quotes.documents, "TEMPLATE_VERSION", "2099.1.1")
    newer = document_request(user=engineer, revision=link.revision, language=language)
    newer = document_render(document_id=newer.pk)
    assert newer.sha256 != served.sha256
    response = client.post(
        reverse("share:accept", args=[link.token]),
        {"name": "Li Wei", "email": "li.wei@example.com", "agree": "on"},
    )
    assert response.status_code == 302
    assert CustomerDecision.objects.get().pdf_sha256 == served.sha256


# --- Nothing stays stuck (issue 18, item 2) -------------------------------------------------------


@pytest.fixture
def sent(monkeypatch):
    """The ids of the render messages sent to the broker (captured, not sent)."""
    import core.jobs

    ids: list[int] = []

    def send(task: str, job_id: int) -> None:
        assert task == "quotes.tasks.render_document_task"
        ids.append(job_id)

    monkeypatch.setattr(core.jobs, "task_send", send)
    return ids


@pytest.fixture
def clock(monkeypatch):
    """Moves the clock forward: `clock(seconds)` from now on."""
    from django.utils import timezone

    real_now = timezone.now
    offset = {"seconds": 0.0}

    def now():
        return real_now() + timezone.timedelta(seconds=offset["seconds"])

    monkeypatch.setattr(timezone, "now", now)

    def advance(seconds: float) -> None:
        offset["seconds"] += seconds

    return advance


@pytest.mark.django_db
def test_sweep_sends_again_a_queued_job_whose_message_was_lost_whatever_its_history(
    full_catalog, engineer, settings, sent, clock, django_capture_on_commit_callbacks
):
    """Rendered once, its worker killed, re-queued by the sweep, and that message lost with the
    broker (a Redis restart without persistence): the job was queued forever."""
    revision = make_quote(engineer).current_revision
    with django_capture_on_commit_callbacks(execute=True):
        document = document_request(user=engineer, revision=revision, language="en")
    assert sent == [document.pk]
    assert (
        job_claim(kind=DOCUMENTS, job_id=document.pk) is not None
    )  # a worker takes it, then is killed
    clock(settings.JOB_LEASE_SECONDS + 1)
    with django_capture_on_commit_callbacks(execute=True):
        assert documents_sweep() == {"requeued": 1, "failed": 0}
    assert sent == [document.pk] * 2
    # That message is lost. Until it is stale, nothing is sent twice...
    with django_capture_on_commit_callbacks(execute=True):
        assert documents_sweep() == {"requeued": 0, "failed": 0}
    # ...then the sweep sends it again (after 10 minutes, the old rule's threshold, at the latest).
    clock(max(settings.JOB_QUEUE_STALE_SECONDS, 600) + 1)
    with django_capture_on_commit_callbacks(execute=True):
        assert documents_sweep() == {"requeued": 1, "failed": 0}
    assert sent == [document.pk] * 3
    document.refresh_from_db()
    assert document.status == DocumentStatus.QUEUED
    assert document.attempts == 1
    assert document_render(document_id=document.pk).status == DocumentStatus.READY


@pytest.mark.slow
@pytest.mark.django_db
def test_asking_again_for_a_stuck_document_queues_it_again(
    full_catalog, engineer, settings, sent, clock, django_capture_on_commit_callbacks
):
    revision = make_quote(engineer).current_revision
    with django_capture_on_commit_callbacks(execute=True):
        document = document_request(user=engineer, revision=revision, language="en")
        again = document_request(user=engineer, revision=revision, language="en")
    assert again.pk == document.pk
    assert sent == [document.pk]  # under way: asking again sends nothing
    # Its message was lost: asking again once it is stale sends it again.
    clock(settings.JOB_QUEUE_STALE_SECONDS + 1)
    with django_capture_on_commit_callbacks(execute=True):
        again = document_request(user=engineer, revision=revision, language="en")
    assert again.pk == document.pk
    assert sent == [document.pk] * 2
    # A worker takes it and is killed: once its lease ran out, asking again re-queues it.
    assert job_claim(kind=DOCUMENTS, job_id=document.pk) is not None
    with django_capture_on_commit_callbacks(execute=True):
        assert document_request(user=engineer, revision=revision, language="en").status == (
            DocumentStatus.RENDERING
        )
    assert sent == [document.pk] * 2
    clock(settings.JOB_LEASE_SECONDS + 1)
    with django_capture_on_commit_callbacks(execute=True):
        again = document_request(user=engineer, revision=revision, language="en")
    assert again.status == DocumentStatus.QUEUED
    assert sent == [document.pk] * 3
    assert Document.objects.count() == 1
    assert document_render(document_id=document.pk).status == DocumentStatus.READY


@pytest.mark.django_db
def test_a_render_whose_lease_was_taken_over_stores_nothing(
    full_catalog, engineer, settings, clock, monkeypatch
):
    """Worker A stalls past its lease; B takes the document over. A finishing first must not
    store its bytes (or mark the document ready under B); B's are the document's."""
    import quotes.documents
    from core.jobs import job_complete
    from quotes.pdf import RenderedDocument

    revision = make_quote(engineer).current_revision
    document = document_request(user=engineer, revision=revision, language="en")
    stalled = job_claim(kind=DOCUMENTS, job_id=document.pk)
    assert stalled is not None
    clock(settings.JOB_LEASE_SECONDS + 1)  # A's lease is not renewed: it runs out
    results = []

    def render(revision, *, kind, language, start_date, progress):
        # B renders; meanwhile A wakes up and finishes.
        results.append(job_complete(kind=DOCUMENTS, job_id=document.pk, owner=stalled.lease_owner,
                                    result=RenderedDocument(b"%PDF-1.7 from A", 1)))  # fmt: skip
        return RenderedDocument(b"%PDF-1.7 from B", 1)

    monkeypatch.setattr(quotes.documents, "render_document", render)
    document = document_render(document_id=document.pk)
    [from_a] = results
    assert from_a.status == DocumentStatus.RENDERING  # A stored nothing
    assert document.status == DocumentStatus.READY
    assert document.attempts == 2
    assert document.file.read() == b"%PDF-1.7 from B"
    assert document.sha256 == hashlib.sha256(b"%PDF-1.7 from B").hexdigest()
    from django.core.files.storage import default_storage

    _dirs, files = default_storage.listdir(f"documents/{revision.quote.number}")
    assert len(files) == 1


# The EZMAX brochure's 64-GPU example on one SN2410: 52 cables, few enough to print the cabling
# schedule; 16 of the 64 server ports ride QSFP28 cages broken out 4x25G on generic AOCs (the
# catalog sells no 10 m QSFP28-to-4xSFP28 AOC), which the quote must price.
BROCHURE = {"gpus": 64, "gpus_per_server": 8, "rails": 8, "nic": "MCX631102AN-ADAT",
            "leaf": "MSN2410-CB2F", "fabric": "tor"}  # fmt: skip


def flat(text: str) -> str:
    """Text without whitespace: the PDF wraps table cells anywhere."""
    return "".join(text.split())


@pytest.mark.slow
@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "server", "marker", "cable_end", "typical"),
    [
        ("en", "Server", "To be priced", "cable end", "Network power, typical"),
        ("zh-hans", "服务器", "待定价", "线缆端头", "网络设备功耗（典型）"),
    ],
)
def test_proposal_shows_how_links_are_built_and_the_gap_to_price(
    full_catalog, engineer, language, server, marker, cable_end, typical
):
    from django.utils import translation
    from django.utils.translation import ngettext

    from engine.text import from_dict
    from planner.i18n import translated

    quote = make_quote(engineer, request=BROCHURE)
    result = quote.current_revision.frozen_design.result
    document = document_request(user=engineer, revision=quote.current_revision, language=language)
    document = document_render(document_id=document.pk)
    assert document.status == DocumentStatus.READY, document.error
    _reader, text = pdf_text(document.file.read())
    text = flat(text)

    links = result["links"]
    [breakout] = [link for link in links if link["end_b"]["links_per_cage"] > 1]
    end_a, end_b = breakout["end_a"], breakout["end_b"]
    # Both ends: 16 server SFP28 cages, 4 leaf QSFP28 cages of 4 x 25G.
    assert (end_a["cages"], end_b["cages"], end_b["links_per_cage"]) == (16, 4, 4)
    assert flat(f"{server} · {end_a['form_factor']} × {end_a['cages']}") in text
    leaf = "Leaf" if language == "en" else "叶交换机"  # the tier named in the reader's language
    assert flat(f"{leaf} · {end_b['form_factor']} × {end_b['cages']} (4x25G)") in text
    # The generic assembly: its name in the document's language, count and the marker.
    [gap] = [line for line in result["bom"] if line["catalog_gap"]]
    with translation.override(language):
        name = translated(from_dict(gap["description_text"]))
        per_cable = ngettext("%(n)s link per cable", "%(n)s links per cable", 4) % {"n": 4}
    assert breakout["catalog_gap"]
    assert gap["quantity"] == breakout["cables"] == 4
    assert flat(f"{name} × {breakout['cables']} ({per_cable}) {marker}") in text
    # The SR optics: a module at each end and one patch cord per link.
    [optics] = [link for link in links if link["transceivers"]]
    [cord] = optics["fibre"]
    assert flat(f"{cord['sku']} × {cord['quantity']}") in text
    assert flat(f"{server}: {optics['transceiver_sku_a']} × {optics['transceivers_a']}") in text
    assert flat(f"{leaf}: {optics['transceiver_sku_b']} × {optics['transceivers_b']}") in text

    # The cabling schedule, one row per cable: each breakout cable carries 4 links at 25G from a
    # QSFP28 cage (the cable's own end in it) to SFP28 cages, and is marked to be priced.
    assert result["cables_total"] <= 60
    assert text.count("CMP-00000") == result["cables_total"]
    breakout_row = (
        re.escape(flat(f"QSFP28 · {cable_end}"))
        + ".*?"
        + re.escape(flat(f"4 × 25G AOC {breakout['length_m']:g} m {name} {marker}"))
    )
    assert len(re.findall(breakout_row, text)) == breakout["cables"]
    sr = optics["transceiver_sku_a"]
    assert text.count(flat(f"SFP28 · {sr}")) == 2 * optics["cables"]  # A and B end of each

    # The quote's line for it (described in the document's language): the marker for its SKU
    # and its unit price, no amount. Then power, typical and maximum.
    [line] = [line for line in quote.current_revision.lines.all() if line.to_be_priced]
    assert line.quantity == gap["quantity"]
    assert flat(f"{marker} {name} {line.quantity} {marker} —") in text
    assert flat(f"{typical} {result['power_w']:,} W") in text
    assert result["power_max_w"] > result["power_w"]
    assert flat(f"{result['power_w']:,} {result['power_max_w']:,}") in text  # the totals row


def test_the_default_timings_meet_the_recovery_limits():
    """Issue 18: a killed render is taken over within 60 s (lease + one sweep period), a job
    lost with the broker is sent again within 2 minutes (stale message + one sweep period), and
    the heartbeat renews the lease several times within its period."""
    from config.settings import base

    assert base.JOB_LEASE_SECONDS + base.JOB_SWEEP_SECONDS <= 60
    assert base.JOB_QUEUE_STALE_SECONDS + base.JOB_SWEEP_SECONDS <= 120
    assert base.JOB_HEARTBEAT_SECONDS <= base.JOB_LEASE_SECONDS / 3
    sweep = base.CELERY_BEAT_SCHEDULE["sweep-documents"]
    assert sweep["schedule"] == base.JOB_SWEEP_SECONDS


def test_every_time_limit_comes_from_the_one_settings_block():
    """The Celery limits are the JOB_* values, no task sets others, every job kind is swept at
    the same period, and the broker never redelivers a task that may still be running."""
    from config.celery import app
    from config.settings import base

    assert base.CELERY_TASK_SOFT_TIME_LIMIT == base.JOB_SOFT_TIME_LIMIT_SECONDS
    assert base.CELERY_TASK_TIME_LIMIT == base.JOB_TIME_LIMIT_SECONDS
    assert base.JOB_SOFT_TIME_LIMIT_SECONDS < base.JOB_TIME_LIMIT_SECONDS
    assert base.JOB_TIME_LIMIT_SECONDS < base.CELERY_VISIBILITY_TIMEOUT
    app.autodiscover_tasks(force=True)
    ours = [task for name, task in app.tasks.items() if not name.startswith("celery.")]
    # core: 6 (probe, probe sweep, webhook, due webhooks, keys, retention); quotes: 3 (render,
    # sweep, expiry); planner: 3 (export, export sweep, drawing a large design's first pages),
    # and the as-built check and its sweep.
    assert len(ours) == 14, sorted(app.tasks)
    for task in ours:  # a task's own limit would replace the settings' one
        assert task.soft_time_limit == base.JOB_SOFT_TIME_LIMIT_SECONDS, task.name
        assert task.time_limit == base.JOB_TIME_LIMIT_SECONDS, task.name
    sweeps = {"quotes.tasks.sweep_documents", "core.tasks.sweep_worker_probes",
              "planner.tasks.sweep_exports",
              "planner.asbuilt.tasks.sweep_asbuilt_checks"}  # fmt: skip
    scheduled = {e["task"]: e for e in base.CELERY_BEAT_SCHEDULE.values() if e["task"] in sweeps}
    assert set(scheduled) == sweeps
    assert {e["schedule"] for e in scheduled.values()} == {base.JOB_SWEEP_SECONDS}
