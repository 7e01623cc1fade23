"""POST /api/v1/designs/{id}/as-built/ answers 202 with the check; its GET has the punch list
once the worker (run here in process) is done; upload problems are a 400 naming every line."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from planner.asbuilt import services as asbuilt_services
from tests.planner.test_asbuilt import _csv, _faulty, _links, _lldp, _lldp_files, _zip
from tests.planner.test_asbuilt import design as design  # the fixture, re-exported
from tests.planner.test_asbuilt import english as english  # the fixture, re-exported


def _api(user) -> APIClient:
    api = APIClient()
    api.force_authenticate(user)
    return api


@pytest.mark.django_db
def test_multipart_upload_is_202_and_the_result_comes_when_done(design, engineer):
    url = f"/api/v1/designs/{design.pk}/as-built/"
    upload = SimpleUploadedFile("cluster.json", _lldp(_faulty(_links(design))))
    response = _api(engineer).post(url, {"file": upload}, format="multipart")
    assert response.status_code == 202, response.content
    body = response.json()
    assert response["Location"] == body["links"]["self"]
    assert body["status"] == "queued"
    assert body["result"] is None
    asbuilt_services.asbuilt_check_run(check_id=body["id"])
    done = _api(engineer).get(body["links"]["self"]).json()
    assert done["status"] == "done"
    # As in test_asbuilt: two swapped pairs, one missing cable, one link the design lacks.
    assert done["result"]["counts"] == {"correct": 43, "swapped": 4, "wrong_port": 0,
                                        "missing": 1, "unexpected": 1}  # fmt: skip
    assert len(done["result"]["punch"]) == 6


@pytest.mark.django_db
def test_a_zip_of_per_switch_files_over_the_api(design, engineer):
    url = f"/api/v1/designs/{design.pk}/as-built/"
    upload = SimpleUploadedFile("switches.zip", _zip(_lldp_files(_faulty(_links(design)))))
    response = _api(engineer).post(url, {"file": upload}, format="multipart")
    assert response.status_code == 202, response.content
    asbuilt_services.asbuilt_check_run(check_id=response.json()["id"])
    done = _api(engineer).get(response["Location"]).json()
    assert done["result"]["counts"] == {"correct": 43, "swapped": 4, "wrong_port": 0,
                                        "missing": 1, "unexpected": 1}  # fmt: skip
    nested = SimpleUploadedFile("switches.zip", _zip([("a/leaf01.json", b"{}")]))
    refused = _api(engineer).post(url, {"file": nested}, format="multipart")
    assert refused.status_code == 400
    assert refused.json()["errors"]["file"] == [
        "a/leaf01.json: Files in folders are not read: put each switch's file at the top of "
        "the archive."
    ]


@pytest.mark.django_db
def test_json_body_with_problems_is_400_naming_each_line(design, engineer, other_engineer):
    lines = _csv(_links(design)).decode().splitlines()
    lines[2] = "leaf01,swp1,srv0001,c1,extra"
    lines[5] = "spine9,swp1,srv0001,c1"
    body = {"filename": "n.csv", "content": "\n".join(lines)}
    url = f"/api/v1/designs/{design.pk}/as-built/"
    response = _api(engineer).post(url, body, format="json")
    assert response.status_code == 400
    assert response["Content-Type"] == "application/problem+json"
    # The first problem stops the CSV reading: line 3 has five columns.
    assert response.json()["errors"]["file"] == ["Line 3: 5 columns; a line has 4."]
    del lines[2]
    # srv0001 c1 is line 2's neighbour already: found from the file alone, in the request.
    response = _api(engineer).post(url, {**body, "content": "\n".join(lines)}, format="json")
    assert response.json()["errors"]["file"] == [
        "Line 5: srv0001 c1 is already the neighbour of another port, on line 2."
    ]
    # A device the design lacks needs its cabling to be known: 202, and the check fails naming it.
    lines[4] = "spine9,swp1,spine9,swp2"
    response = _api(engineer).post(url, {**body, "content": "\n".join(lines)}, format="json")
    assert response.status_code == 202, response.content
    asbuilt_services.asbuilt_check_run(check_id=response.json()["id"])
    status = _api(engineer).get(response["Location"]).json()
    assert (status["status"], status["result"]) == ("failed", None)
    assert "Line 5: The design has no device spine9." in status["error"].splitlines()
    assert _api(other_engineer).post(url, body, format="json").status_code == 404
