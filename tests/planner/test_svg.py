"""The topology and cable-length drawings: standalone, well-formed SVG that stays small and
readable from 8 GPUs to 131,072 (no database: the engine runs on the seed catalog)."""

import json
import xml.etree.ElementTree as ET

import pytest

from catalog.services import SEED_PATH
from catalog.snapshot import snapshot_from_seed
from engine.request import parse_request
from engine.result import design_result
from engine.sizing import size
from planner.svg import FONT, MAX_BOXES, lengths_svg, topology_svg

NS = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def snapshot():
    return snapshot_from_seed(json.loads(SEED_PATH.read_text(encoding="utf-8")))


def result(snapshot, **request):
    base = {"gpus_per_server": 8, "nic_speed": 400, "fabric": "rail", "leaf": "64x400"}
    return design_result(size(parse_request({**base, **request}, snapshot), snapshot))


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == f"{NS}svg"
    width, height = int(root.get("width")), int(root.get("height"))
    assert root.get("viewBox") == f"0 0 {width} {height}"
    assert root.get("font-family") == FONT
    assert "CJK" in FONT
    assert "style=" not in svg  # the page's CSP forbids inline styles
    return root


def texts(root: ET.Element) -> list[str]:
    return [t.text or "" for t in root.iter(f"{NS}text")]


def test_eight_gpus_one_leaf(snapshot):
    root = parse(topology_svg(result(snapshot, gpus=8)))
    labels = texts(root)
    assert "L1" in labels
    assert "1 server" in labels
    assert any(t.startswith("8 links · 400G") for t in labels)


def test_1024_gpus_every_switch_and_bundle_labelled(snapshot):
    data = result(snapshot, gpus=1024, spine="64x400")
    root = parse(topology_svg(data))
    labels = texts(root)
    assert "Spine · 16 × 64x400" in labels
    assert "Leaf · 32 × 64x400" in labels
    # 32 leaves are drawn as 4 scalable units of 8; the bundles carry count, speed and media.
    assert [t for t in labels if t.startswith("SU ")] == [f"SU {i}" for i in range(1, 5)] * 2
    # Each link group is a bundle: 4 servers per rack, leaves mid-row; the slots up to the DAC's
    # 3 m reach get DAC, the rest of the 1,024 server links the 10 m AOC, and the 1,024 uplinks
    # the 30 m AOC to the spine row.
    server_groups = [g for g in data.links if g.a == "server"]
    assert sum(g.count for g in server_groups) == 1024
    for group in data.links:
        media = group.media.upper()
        label = f"{group.count:,} links · 400G · {media} {group.length_m:g} m"
        assert label in labels
    assert "1,024 links · 400G · AOC 30 m" in labels


@pytest.mark.parametrize("gpus", [16_384, 131_072])
def test_large_clusters_stay_small_and_grouped(snapshot, gpus):
    data = result(snapshot, gpus=gpus, leaf="64x800" if gpus > 16_384 else "64x400")
    svg = topology_svg(data)
    root = parse(svg)
    assert len(svg) < 60_000
    rects = list(root.iter(f"{NS}rect"))
    assert len(rects) < 8 * MAX_BOXES
    labels = texts(root)
    # A long row draws its first MAX_BOXES - 2 switches, the last, and between them "+N" over
    # "more" for the N left out: of 256 cores (1,024 at 131,072 GPUs), 256 - 11 = 245 hidden.
    top = data.switches["core"]
    assert f"+{top - (MAX_BOXES - 1):,}" in labels
    assert "more" in labels
    leaves = data.switches["leaf"]
    assert any(t.startswith(f"Leaf · {leaves:,} ×") for t in labels)
    links = next(link for link in data.links if link.a == "server")
    assert any(t.startswith(f"{links.count:,} links") for t in labels)


def test_planes_and_translated_labels_are_escaped(snapshot):
    data = result(snapshot, gpus=256, storage={"storage_nodes": 16})
    svg = topology_svg(data, {"storage_plane": "存储平面 <A&B>", "leaf": "叶"})
    root = parse(svg)
    assert any(t.startswith("存储平面 <A&B>") for t in texts(root))
    assert "&lt;A&amp;B&gt;" in svg
    assert any(t.startswith("叶 · ") for t in texts(root))


def test_lengths_histogram(snapshot):
    data = result(snapshot, gpus=1024)
    root = parse(lengths_svg(data, {"title": "线缆长度"}))
    labels = texts(root)
    bins = data.planes[0].lengths
    for length in {b.length_m for b in bins}:
        assert f"{length:g} m" in labels
    # The 1,024 leaf-spine links make the tallest bar: the axis peak and that bar.
    assert max(b.links for b in bins) == 1024
    assert labels.count("1,024") == 2
