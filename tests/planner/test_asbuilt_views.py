"""The as-built pages through Django's test client: upload, the punch list once the worker has
compared (run here in-process, as the worker would), its CSV, upload errors, other teams."""

from __future__ import annotations

import csv
import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from planner.asbuilt import services as asbuilt_services
from planner.asbuilt.models import AsBuiltCheck
from planner.asbuilt.reading import parse_lldp
from tests.planner.test_asbuilt import _csv, _faulty, _links, _lldp, _lldp_files, _zip
from tests.planner.test_asbuilt import design as design  # the fixture, re-exported
from tests.planner.test_asbuilt import english as english  # the fixture, re-exported


@pytest.mark.django_db
def test_upload_then_punch_list_and_csv(client, design, teammate):
    client.force_login(teammate)
    handover = client.get(reverse("planner:handover", args=[design.pk])).content.decode()
    assert reverse("planner:asbuilt", args=[design.pk]) in handover
    data = _lldp(_faulty(_links(design)))
    response = client.post(
        reverse("planner:asbuilt", args=[design.pk]),
        {"file": SimpleUploadedFile("cluster.json", data, content_type="application/json")},
    )
    check = AsBuiltCheck.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("planner:asbuilt-check", args=[design.pk, check.pk])
    waiting = client.get(response["Location"], HTTP_HX_REQUEST="true").content.decode()
    assert 'hx-trigger="every 1s"' in waiting  # queued: the partial polls
    asbuilt_services.asbuilt_check_run(check_id=check.pk)
    page = client.get(response["Location"]).content.decode()
    assert "hx-trigger" not in page
    assert page.count('<tr data-status="swapped">') == 4
    assert page.count('<tr data-status="missing">') == 1
    assert page.count('<tr data-status="unexpected">') == 1
    download = client.get(reverse("planner:asbuilt-punch-csv", args=[design.pk, check.pk]))
    rows = list(csv.DictReader(io.StringIO(download.content.decode().lstrip("\ufeff"))))
    assert [row["status"] for row in rows].count("Missing") == 1
    assert len(rows) == 6


@pytest.mark.django_db
def test_an_upload_error_names_its_line_and_stores_nothing(client, design, engineer):
    client.force_login(engineer)
    lines = _csv(_links(design)).decode().splitlines()
    lines[3] = lines[1]  # line 4 repeats line 2: a format problem, found in the request
    response = client.post(
        reverse("planner:asbuilt", args=[design.pk]),
        {"file": SimpleUploadedFile("n.csv", "\n".join(lines).encode())},
    )
    assert response.status_code == 400
    a, p = lines[1].split(",")[:2]
    assert f"Line 4: {a} {p} is listed already, on line 2." in response.content.decode()
    assert not AsBuiltCheck.objects.exists()


@pytest.mark.django_db
def test_an_unknown_device_fails_the_check_in_the_worker_naming_its_line(client, design, engineer):
    client.force_login(engineer)
    lines = _csv(_links(design)).decode().splitlines()
    lines[3] = "leaf01,swp63,nosuchserver,c1"  # a free port of the leaf
    response = client.post(
        reverse("planner:asbuilt", args=[design.pk]),
        {"file": SimpleUploadedFile("n.csv", "\n".join(lines).encode())},
    )
    assert response.status_code == 302  # the format is right: stored and queued
    check = AsBuiltCheck.objects.get()
    asbuilt_services.asbuilt_check_run(check_id=check.pk)
    page = client.get(response["Location"]).content.decode()
    assert 'data-testid="asbuilt-upload-problems"' in page
    assert "Line 4: The design has no device nosuchserver." in page
    assert 'data-testid="asbuilt-punch"' not in page


@pytest.mark.django_db
def test_other_teams_get_404(client, design, engineer, other_engineer):
    check = asbuilt_services.asbuilt_check_request(
        user=engineer, design_id=design.pk, filename="n.csv", data=_csv(_links(design))
    )
    asbuilt_services.asbuilt_check_run(check_id=check.pk)
    client.force_login(other_engineer)
    for url in (
        reverse("planner:asbuilt", args=[design.pk]),
        reverse("planner:asbuilt-check", args=[design.pk, check.pk]),
        reverse("planner:asbuilt-punch-csv", args=[design.pk, check.pk]),
    ):
        assert client.get(url).status_code == 404, url
    upload = SimpleUploadedFile("n.csv", _csv(_links(design)))
    response = client.post(reverse("planner:asbuilt", args=[design.pk]), {"file": upload})
    assert response.status_code == 404
    assert AsBuiltCheck.objects.count() == 1


@pytest.mark.django_db
def test_several_switch_files_in_one_upload_then_the_punch_list(client, design, engineer):
    client.force_login(engineer)
    form = client.get(reverse("planner:asbuilt", args=[design.pk])).content.decode()
    assert 'name="file" id="asbuilt-file" required multiple' in form
    files = _lldp_files(_faulty(_links(design)))
    response = client.post(
        reverse("planner:asbuilt", args=[design.pk]),
        {"file": [SimpleUploadedFile(name, data) for name, data in files]},
    )
    assert response.status_code == 302
    check = AsBuiltCheck.objects.get()
    assert check.neighbours == sum(len(parse_lldp(d.decode(), device="x")) for _, d in files)
    asbuilt_services.asbuilt_check_run(check_id=check.pk)
    page = client.get(response["Location"]).content.decode()
    assert page.count('<tr data-status="swapped">') == 4
    assert page.count('<tr data-status="missing">') == 1
    assert page.count('<tr data-status="unexpected">') == 1


@pytest.mark.django_db
def test_a_bad_member_of_a_zip_is_named_on_the_form(client, design, engineer):
    client.force_login(engineer)
    files = _lldp_files(_links(design))
    broken = [*files[:2], ("leaf09.json", b'{\n  "lldp": [\n}')]
    response = client.post(
        reverse("planner:asbuilt", args=[design.pk]),
        {"file": SimpleUploadedFile("switches.zip", _zip(broken))},
    )
    assert response.status_code == 400
    assert "leaf09.json, line 3: This is not valid JSON" in response.content.decode()
    assert not AsBuiltCheck.objects.exists()
