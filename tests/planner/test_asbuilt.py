"""The as-built check: LLDP and CSV neighbour data generated from a design's own cabling (each
end reporting its neighbour, as lldpd on every switch and server would), with known faults
injected, and every upload problem named with its line."""

from __future__ import annotations

import csv
import io
import json
import struct
import zipfile

import pytest
from django.core.files.storage import default_storage
from hypothesis import given, settings
from hypothesis import strategies as st

from planner import services
from planner.asbuilt import reading
from planner.asbuilt import services as asbuilt_services
from planner.asbuilt.models import AsBuiltCheck
from planner.asbuilt.reading import MAX_UPLOAD_BYTES, parse_lldp
from planner.handover.cable_ids import legs
from planner.selectors import DesignNotFound
from tests.conftest import load_seed_catalog

# 48 GPUs = 6 servers x 8 rails on one 64-port 400G leaf: 48 cables on swp1-48, swp49-64 free.
REQUEST = {"gpus": 48, "gpus_per_server": 8, "nic_speed": 400, "fabric": "rail",
           "leaf": "64x400"}  # fmt: skip


@pytest.fixture(autouse=True)
def english(settings):
    settings.LANGUAGE_CODE = "en"


@pytest.fixture
def design(db, engineer):
    load_seed_catalog()
    return services.design_create(owner=engineer, name="Pilot", request_data=REQUEST)


def _links(design) -> list[tuple[str, str, str, str]]:
    return [leg for row in services.design_cabling(design=design) for leg in legs(row)]


def _faulty(links):
    """Two swaps (cables 0/1 and 10/11 exchange far ends), one missing (cable 20), one unexpected
    (leaf01 swp60 to swp61, two free ports). Returns the built links and what was done."""
    built = list(links)
    for i, j in ((0, 1), (10, 11)):
        (a1, p1, b1, q1), (a2, p2, b2, q2) = built[i], built[j]
        built[i], built[j] = (a1, p1, b2, q2), (a2, p2, b1, q1)
    del built[20]
    leaf = links[0][0]
    built.append((leaf, "swp60", leaf, "swp61"))
    return built


def _lldp(built) -> bytes:
    """One `lldpctl -f json` per device in an object keyed by device name: each end of each link
    reports the other. lldpd writes `interface` as an object when a device has one neighbour and
    as a list of one-key objects when it has several; both shapes occur here (servers have 8)."""
    per_device: dict[str, list[tuple[str, str, str]]] = {}
    for a, p, b, q in built:
        per_device.setdefault(a, []).append((p, b, q))
        per_device.setdefault(b, []).append((q, a, p))

    def entry(device: str, port: str) -> dict:
        return {"via": "LLDP", "rid": "1", "age": "0 day, 00:10:00",
                "chassis": {device: {"id": {"type": "mac", "value": "0c:42:a1:00:00:01"},
                                     "descr": "EZMAX", "capability": []}},
                "port": {"id": {"type": "ifname", "value": port}, "descr": port,
                         "ttl": "120"}}  # fmt: skip

    out = {}
    for device, ports in per_device.items():
        items = [{local: entry(nd, np)} for local, nd, np in ports]
        interface = items[0] if len(items) == 1 else items
        out[device] = {"lldp": {"interface": interface}}
    return json.dumps(out, indent=2).encode()


def _csv(built) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["device", "port", "neighbor_device", "neighbor_port"])
    for a, p, b, q in built:
        writer.writerow([a, p, b, q])
    return out.getvalue().encode()


def _run(engineer, design, data: bytes, filename: str) -> AsBuiltCheck:
    check = asbuilt_services.asbuilt_check_request(
        user=engineer, design_id=design.pk, filename=filename, data=data
    )
    return asbuilt_services.asbuilt_check_run(check_id=check.pk)


def _assert_faults_found(check: AsBuiltCheck, links) -> None:
    assert check.status == AsBuiltCheck.DONE, check.error
    result = check.result
    # 48 cables: 4 swapped (two pairs), 1 missing, 43 correct; one link the design lacks.
    assert result["cables_total"] == 48
    assert result["counts"] == {"correct": 43, "swapped": 4, "wrong_port": 0, "missing": 1,
                                "unexpected": 1}  # fmt: skip
    by_status: dict[str, list[dict]] = {}
    for row in result["punch"]:
        by_status.setdefault(row["status"], []).append(row)
    swapped = {(r["a_device"], r["a_port"]): r for r in by_status["swapped"]}
    assert set(swapped) == {(links[k][0], links[k][1]) for k in (0, 1, 10, 11)}
    assert swapped[links[0][:2]]["swapped_with"] == swapped[links[1][:2]]["cable_id"]
    (missing,) = by_status["missing"]
    assert (missing["b_device"], missing["b_port"]) == links[20][2:]
    (unexpected,) = by_status["unexpected"]
    assert {unexpected["a_port"], unexpected["b_port"]} == {"swp60", "swp61"}
    # One leaf rack and two compute racks (6 servers, 4 a rack); each cable counted in both of
    # its racks: the leaf's rack sees all 48 and the unexpected link.
    racks = {r["rack"]: r for r in result["racks"]}
    leaf_rack = missing["a_rack"]
    assert racks[leaf_rack]["correct"] + racks[leaf_rack]["swapped"] == 47
    assert racks[leaf_rack]["unexpected"] == 1


@pytest.mark.django_db
def test_lldp_finds_two_swaps_one_missing_one_unexpected(engineer, design):
    links = _links(design)
    check = _run(engineer, design, _lldp(_faulty(links)), "cluster.json")
    assert check.format == "lldp"
    _assert_faults_found(check, links)
    text = asbuilt_services.asbuilt_punch_csv(check=check)
    rows = list(csv.DictReader(io.StringIO(text.lstrip("\ufeff"))))
    assert len(rows) == 6  # 4 swapped + 1 missing + 1 unexpected
    assert sorted(r["status"] for r in rows).count("Swapped ends") == 4


@pytest.mark.django_db
def test_csv_finds_the_same(engineer, design):
    links = _links(design)
    check = _run(engineer, design, _csv(_faulty(links)), "neighbours.csv")
    assert check.format == "csv"
    _assert_faults_found(check, links)


@pytest.mark.django_db
def test_csv_with_old_mac_line_breaks_finds_the_same(engineer, design):
    # A lone CR ends each line (classic Mac OS): Schemathesis's upload of such a file was a 500.
    links = _links(design)
    check = _run(engineer, design, _csv(_faulty(links)).replace(b"\r\n", b"\r"), "n.csv")
    _assert_faults_found(check, links)


@pytest.mark.django_db
def test_a_field_past_the_csv_limit_is_refused_naming_its_line(engineer, design):
    header = b"device,port,neighbor_device,neighbor_port\n"
    long_row = b"leaf01,swp1,srv0001," + b"x" * (csv.field_size_limit() + 1) + b"\n"
    assert _problems(engineer, design, header + b"leaf01,swp2,srv0002,c1\n" + long_row) == [
        f"Line 3: This line cannot be read as CSV: a field is longer than "
        f"{csv.field_size_limit():,} characters."
    ]


@settings(max_examples=300, deadline=None)
@given(
    data=st.one_of(
        st.binary(max_size=400),
        # Text shaped like a neighbour file: commas, quotes, every kind of line break, NUL.
        st.text(alphabet=st.sampled_from(list('ab1,"\r\n\x00\t {}[]é交')), max_size=400).map(
            lambda text: ("device,port,neighbor_device,neighbor_port\n" + text).encode()
        ),
    ),
    filename=st.sampled_from(["n.csv", "leaf01.json", "x.txt"]),
)
def test_any_upload_is_read_or_refused_in_words(data, filename):
    # Pure reading (no database): whatever the bytes, the answer is neighbours or named
    # problems, never another exception (which the API turned into a 500).
    problems = []
    try:
        _kind, neighbours = reading.read_upload(data, filename=filename)
    except reading.UploadRejected as refused:
        problems, neighbours = refused.problems, []
        assert problems, data  # a refusal names at least one problem
    assert all(problem.code for problem in problems)
    assert all(n.device and n.port for n in neighbours)


@pytest.mark.django_db
def test_a_clean_build_is_all_correct_and_a_wrong_port_is_named(engineer, design):
    links = _links(design)
    check = _run(engineer, design, _csv(links), "clean.csv")
    assert check.result["counts"]["correct"] == 48
    assert check.result["punch"] == []
    moved = list(links)
    a, _, b, q = moved[5]
    moved[5] = (a, "swp62", b, q)  # plugged into a free port of the right leaf
    check = _run(engineer, design, _csv(moved), "moved.csv")
    (row,) = check.result["punch"]
    assert row["status"] == "wrong_port"
    assert f"{a}:swp62" in row["found"]


def test_single_lldpctl_document_takes_its_device_from_the_file_name():
    # lldpd 1.0's `lldpctl -f json` of a switch with one neighbour (interface as an object).
    text = json.dumps({"lldp": {"interface": {"swp1": {
        "via": "LLDP", "chassis": {"srv0001": {"id": {"type": "mac", "value": "aa"}}},
        "port": {"id": {"type": "mac", "value": "bb"}, "descr": "c1"}}}}}, indent=2)  # fmt: skip
    (item,) = parse_lldp(text, device="leaf01")
    assert (item.device, item.port, item.neighbor_device, item.neighbor_port) == (
        "leaf01", "swp1", "srv0001", "c1")  # fmt: skip
    assert item.line == 4  # the line of "swp1" in the indented text
    json0 = json.dumps({"lldp": [{"interface": [{"name": "swp2", "chassis": [
        {"name": [{"value": "srv0002"}]}], "port": [{"id": [{"type": "ifname",
        "value": "c2"}]}]}]}]})  # fmt: skip
    (item,) = parse_lldp(json0, device="leaf01")
    assert (item.port, item.neighbor_device, item.neighbor_port) == ("swp2", "srv0002", "c2")


def _problems(engineer, design, data: bytes, filename: str = "n.csv") -> list[str]:
    before = AsBuiltCheck.objects.count()
    with pytest.raises(asbuilt_services.AsBuiltUploadInvalid) as caught:
        asbuilt_services.asbuilt_check_request(
            user=engineer, design_id=design.pk, filename=filename, data=data
        )
    assert AsBuiltCheck.objects.count() == before  # nothing half-saved
    return caught.value.problems


@pytest.mark.django_db
def test_each_upload_error_names_its_line(engineer, design):
    links = _links(design)
    good = _csv(links).decode().splitlines()
    header = "device,port,neighbor_device,neighbor_port"
    leaf = links[0][0]
    assert _problems(engineer, design, b"a,b,c,d\n") == [
        f"Line 1: The first line must be the header {header}."]  # fmt: skip
    assert _problems(engineer, design, f"{header}\n{leaf},swp1,srv0001\n".encode()) == [
        "Line 2: 3 columns; a line has 4."]  # fmt: skip
    # Devices and ports the design lacks: the request takes the file (its format is right) and
    # the worker, which enumerates the cabling, fails the check naming each line; no punch list.
    unknown = "\n".join([*good[:3], f"leaf99,swp1,{leaf},swp63", f"{leaf},swp99,{leaf},swp64"])
    check = _run(engineer, design, unknown.encode(), "n.csv")
    assert check.status == AsBuiltCheck.FAILED
    assert asbuilt_services.upload_problems(check=check) == [
        "Line 4: The design has no device leaf99.",
        f"Line 5: The design's {leaf} has no port swp99.",
    ]
    assert "Line 4: The design has no device leaf99." in check.error
    assert "punch" not in check.result
    twice = "\n".join([*good[:3], good[1]])  # line 4 repeats line 2
    a, p, b, q = links[0]
    assert _problems(engineer, design, twice.encode()) == [
        f"Line 4: {a} {p} is listed already, on line 2."]  # fmt: skip
    shared = "\n".join([*good[:3], f"{leaf},swp50,{b},{q}"])  # srv c1 claimed by swp1 and swp50
    assert _problems(engineer, design, shared.encode()) == [
        f"Line 4: {b} {q} is already the neighbour of another port, on line 2."]  # fmt: skip
    broken = b'{\n  "lldp": {\n    "interface": [\n  }\n}'
    (problem,) = _problems(engineer, design, broken, "leaf01.json")
    assert problem.startswith("Line 4: This is not valid JSON")
    deep = b"[" * 100_000 + b"]" * 100_000  # deeper than Python's recursion limit
    assert _problems(engineer, design, deep, "leaf01.json") == [
        "Line 1: This is not lldpctl JSON output."]  # fmt: skip
    assert _problems(engineer, design, b"\xff\xfe", "x.csv") == [
        "Line 1: The file is not UTF-8 text."
    ]


def _stored() -> list[str]:
    return default_storage.listdir("asbuilt")[1] if default_storage.exists("asbuilt") else []


@pytest.mark.django_db
def test_a_file_over_20_mb_is_refused_and_nothing_is_stored(engineer, design):
    assert MAX_UPLOAD_BYTES == 20 * 1024 * 1024
    files_before = (
        default_storage.listdir("asbuilt")[1] if default_storage.exists("asbuilt") else []
    )
    data = _csv(_links(design)) + b"#" * MAX_UPLOAD_BYTES  # 1 byte over is enough; this is more
    assert _problems(engineer, design, data) == ["The file is larger than 20 MB."]
    files_after = _stored()
    assert files_after == files_before


@pytest.mark.django_db
def test_another_teams_design_is_not_found(other_engineer, design):
    with pytest.raises(DesignNotFound):
        asbuilt_services.asbuilt_check_request(
            user=other_engineer, design_id=design.pk, filename="n.csv", data=b"x"
        )


@pytest.mark.django_db
def test_breakout_cables_are_checked_lane_by_lane(engineer, design):
    # 512 GPUs at 400G on SN5600 leaves: 800G cages split 2x400G, so one cable carries two
    # servers' links (swp3s1+swp3s2 to srv0005+srv0006).
    big = services.design_create(owner=engineer, name="Breakout", request_data={
        "gpus": 512, "gpus_per_server": 8, "nic_speed": 400,
        "leaf": "MSN5600-VS2FC"})  # fmt: skip
    rows = list(services.design_cabling(design=big))
    breakout = [row for row in rows if row.links == 2]
    assert breakout
    links = _links(big)
    check = _run(engineer, big, _csv(links), "clean.csv")
    assert check.result["counts"]["correct"] == len(rows)
    # One lane of one breakout cable unplugged: that cable is missing a lane, nothing else.
    first = legs(breakout[0])[0]
    check = _run(engineer, big, _csv([link for link in links if link != first]), "lane.csv")
    (row,) = check.result["punch"]
    assert row["status"] == "missing"
    assert row["a_port"] == breakout[0].a_port


# --- Several files at once: one lldpctl output a switch, chosen together or in a ZIP -------------


def _lldp_files(built) -> list[tuple[str, bytes]]:
    """One `lldpctl -f json` file per device, named after it (leaf01.json), as lldpd on each
    switch and server writes it: the same documents `_lldp` keys by device name."""
    documents = json.loads(_lldp(built))
    return [
        (f"{device}.json", json.dumps(doc, indent=2).encode()) for device, doc in documents.items()
    ]


def _zip(members: list[tuple[str, bytes]]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in members:
            archive.writestr(name, data)
    return out.getvalue()


def _files_problems(engineer, design, files) -> list[str]:
    before = AsBuiltCheck.objects.count()
    with pytest.raises(asbuilt_services.AsBuiltUploadInvalid) as caught:
        asbuilt_services.asbuilt_check_request_files(
            user=engineer, design_id=design.pk, files=files
        )
    assert AsBuiltCheck.objects.count() == before  # nothing half-saved
    return caught.value.problems


@pytest.mark.django_db
def test_per_switch_files_uploaded_together_find_the_faults(engineer, design):
    links = _links(design)
    files = _lldp_files(_faulty(links))
    assert len(files) == 7  # the leaf and its 6 servers, each its own lldpctl output
    check = asbuilt_services.asbuilt_check_request_files(
        user=engineer, design_id=design.pk, files=files
    )
    assert check.original_name == f"{files[0][0]} and 6 more files"
    assert check.file.name.endswith(".zip")  # stored as one immutable file
    check = asbuilt_services.asbuilt_check_run(check_id=check.pk)
    _assert_faults_found(check, links)
    # Each finding names the file and line its links were reported on.
    (unexpected,) = [r for r in check.result["punch"] if r["status"] == "unexpected"]
    (where,) = unexpected["lines"]
    assert where.startswith(f"{links[0][0]}.json:")


@pytest.mark.django_db
def test_a_zip_of_per_switch_files_finds_the_same(engineer, design):
    links = _links(design)
    check = _run(engineer, design, _zip(_lldp_files(_faulty(links))), "built.zip")
    assert check.format == "lldp"
    _assert_faults_found(check, links)


@pytest.mark.django_db
def test_each_problem_of_several_files_names_the_file_and_line(engineer, design):
    header = "device,port,neighbor_device,neighbor_port"
    leaf = _links(design)[0][0]
    files = [
        ("a.csv", f"{header}\n{leaf},swp1,srv0001,c1\n".encode()),
        ("b.csv", f"{header}\n{leaf},swp2,srv0001,c1\n".encode()),  # c1 is a.csv's already
    ]
    assert _files_problems(engineer, design, files) == [
        "b.csv, line 2: srv0001 c1 is already the neighbour of another port, in a.csv on line 2."
    ]
    files = [
        ("leaf01.json", b'{\n  "lldp": {\n    "interface": [\n  }\n}'),
        ("a.csv", b"a,b,c,d\n"),
        ("a.csv", f"{header}\n".encode()),
    ]
    problems = _files_problems(engineer, design, files)
    assert problems[0].startswith("leaf01.json, line 4: This is not valid JSON")
    assert problems[1:] == [
        f"a.csv, line 1: The first line must be the header {header}.",
        "a.csv: Another file of the upload has the same name.",
    ]
    half = MAX_UPLOAD_BYTES // 2 + 1  # two files, each under the cap, together over it
    assert _files_problems(engineer, design, [("a.csv", b"#" * half), ("b.csv", b"#" * half)]) == [
        "The files together are larger than 20 MB."
    ]


@pytest.mark.django_db
def test_a_zip_is_refused_naming_the_member_for_folders_archives_and_bombs(
    engineer, design, monkeypatch
):
    good = _lldp_files(_links(design))
    # A path inside the archive (zip-slip, or just a folder): refused, never unpacked.
    assert _problems(engineer, design, _zip([("switches/leaf01.json", good[0][1])]), "b.zip") == [
        "switches/leaf01.json: Files in folders are not read: put each switch's file at the top "
        "of the archive."
    ]
    assert _problems(engineer, design, _zip([*good[:1], ("inner.zip", _zip(good))]), "b.zip") == [
        "inner.zip: An archive inside the archive is not read."
    ]
    assert _problems(engineer, design, _zip([("notes.txt", b"hello")]), "b.zip") == [
        "notes.txt: Only .json (lldpctl) and .csv files are read."
    ]
    # A ZIP bomb: 21 MB of spaces compress to about 21 kB (deflate's 1,032:1 at best), under
    # the 20 MB upload cap, but unpacked it is over: refused from the declared sizes.
    bomb = _zip([good[0], ("leaf02.json", b" " * (MAX_UPLOAD_BYTES + 1024 * 1024))])
    assert len(bomb) < 100_000
    assert _problems(engineer, design, bomb, "b.zip") == [
        "leaf02.json: The archive's files come to more than 20 MB unpacked; it is not read."
    ]
    # A member whose header understates its size: unpacking stops at the stated size and the
    # checksum no longer matches, so it is refused too, naming it.
    liar = bytearray(_zip([("leaf01.json", good[0][1] + b" " * 4096)]))
    real = len(good[0][1]) + 4096
    for offset in (22, liar.rfind(b"PK\x01\x02") + 24):  # local header's and directory's sizes
        assert struct.unpack_from("<I", liar, offset)[0] == real
        struct.pack_into("<I", liar, offset, 10)
    assert _problems(engineer, design, bytes(liar), "b.zip") == [
        "leaf01.json: This member of the ZIP archive cannot be unpacked."
    ]
    assert _problems(engineer, design, b"PK\x03\x04 not really", "b.zip") == [
        "This is not a ZIP archive that can be read."
    ]
    monkeypatch.setattr(reading, "MAX_FILES", 3)
    assert _problems(engineer, design, _zip(good[:4]), "b.zip") == [
        "4 files; one upload takes at most 3."
    ]
    assert _stored() == []
