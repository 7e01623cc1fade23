"""Topology labels that read (issue 27, item 4): drawn in real Chromium with the Noto CJK fonts
the pages and PDFs use, from 8 to 1,000,000 GPUs, in English and in Chinese, at the page's
width (980 px) and the PDF's (700 px), no label runs into another on its line or out of the
box it names, and none leaves the drawing. Chromium measures each label (`getBBox`), not the
drawing code's own estimate of its width."""

import json

import pytest
from django.utils import translation

from catalog.services import SEED_PATH
from catalog.snapshot import snapshot_from_seed
from engine.request import parse_request
from engine.result import design_result
from engine.sizing import size
from planner.presenters import topology_labels
from planner.svg import topology_svg

pytestmark = pytest.mark.browser

BASE = {"gpus_per_server": 8, "nic_speed": 400, "fabric": "rail"}
SIZES = {
    8: {"leaf": "64x400"},
    64: {"leaf": "64x400"},
    1024: {"leaf": "64x400", "spine": "64x400"},
    16_384: {"leaf": "64x400"},
    131_072: {"leaf": "64x800"},
    1_000_000: {"leaf": "64x800", "planes": 8},
}
# Half a pixel: anti-aliasing, not a collision.
TOLERANCE_PX = 0.5

MEASURE = """() => {
  const svg = document.querySelector('svg');
  const box = (el) => { const b = el.getBBox(); return {x: b.x, y: b.y, w: b.width, h: b.height}; };
  return {
    width: svg.viewBox.baseVal.width,
    texts: [...svg.querySelectorAll('text')]
      .map((t) => ({text: t.firstChild ? t.firstChild.nodeValue : '', ...box(t)}))
      .filter((t) => t.text.trim()),
    rects: [...svg.querySelectorAll('rect')].slice(1).map(box),  // [0] is the white page
  };
}"""


def _same_line(a: dict, b: dict) -> bool:
    """Two labels share a line when their boxes overlap by more than half the smaller height
    (a title and the subtitle under it overlap a little by their fonts' line boxes only)."""
    overlap = min(a["y"] + a["h"], b["y"] + b["h"]) - max(a["y"], b["y"])
    return overlap > 0.5 * min(a["h"], b["h"])


def _collisions(drawing: dict) -> list[str]:
    problems = []
    texts, width = drawing["texts"], drawing["width"]
    for t in texts:
        if t["x"] < -TOLERANCE_PX or t["x"] + t["w"] > width + TOLERANCE_PX:
            problems.append(f"{t['text']!r} leaves the drawing")
    for i, a in enumerate(texts):
        for b in texts[i + 1 :]:
            apart = (
                a["x"] + a["w"] <= b["x"] + TOLERANCE_PX or b["x"] + b["w"] <= a["x"] + TOLERANCE_PX
            )
            if _same_line(a, b) and not apart:
                problems.append(f"{a['text']!r} runs into {b['text']!r}")
    for r in drawing["rects"]:
        for t in texts:
            centre_x, centre_y = t["x"] + t["w"] / 2, t["y"] + t["h"] / 2
            inside = r["x"] <= centre_x <= r["x"] + r["w"] and r["y"] <= centre_y <= r["y"] + r["h"]
            if inside and (
                t["x"] < r["x"] - TOLERANCE_PX or t["x"] + t["w"] > r["x"] + r["w"] + TOLERANCE_PX
            ):
                problems.append(f"{t['text']!r} runs out of its box")
    return problems


def test_labels_never_overlap_nor_leave_their_boxes(page):
    catalog = snapshot_from_seed(json.loads(SEED_PATH.read_text(encoding="utf-8")))
    results = {
        gpus: design_result(size(parse_request({**BASE, "gpus": gpus, **extra}, catalog), catalog))
        for gpus, extra in SIZES.items()
    }
    problems: list[str] = []
    drawn = 0
    for language in ("en", "zh-hans"):
        with translation.override(language):
            labels = topology_labels()
        for width in (980, 700):
            for gpus, result in results.items():
                page.set_content(topology_svg(result, labels, width=width))
                drawing = page.evaluate(MEASURE)
                assert len(drawing["texts"]) >= 5  # headings, tiers, boxes: something to check
                drawn += 1
                problems += [
                    f"{gpus:,} GPUs, {language}, {width} px: {p}" for p in _collisions(drawing)
                ]
    assert drawn == len(SIZES) * 2 * 2
    assert not problems, "\n".join(problems[:40])
