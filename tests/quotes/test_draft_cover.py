"""The draft mark on a draft's cover is the cover's own red band, never the running mark of the
other pages: the cover has no margin, so that mark sat above the sheet, cut in half (seen on
the 2026-11-27 proposal, page 1, as pictures)."""

import shutil
import subprocess

import pytest
from PIL import Image

from quotes.pdf import DRAFT_MARK, render_document
from tests.quotes.test_documents import full_catalog, make_quote  # noqa: F401 (a fixture)

# The sheet's first 5 mm at 60 dpi (12 rows): above the cover's blue band (8 mm), where only
# a running mark could print.
TOP_ROWS = 12


def _red_pixels_at_the_top(content: bytes, tmp_path) -> int:
    path = tmp_path / "proposal.pdf"
    path.write_bytes(content)
    subprocess.run(
        ["pdftoppm", "-r", "60", "-f", "1", "-l", "1", "-png", str(path), str(tmp_path / "p")],
        check=True,
    )
    image = Image.open(next(tmp_path.glob("p*.png"))).convert("RGB")
    top = image.crop((0, 0, image.width, TOP_ROWS)).tobytes()
    pixels = zip(top[0::3], top[1::3], top[2::3], strict=True)
    return sum(1 for r, g, b in pixels if r > 120 and r > 2 * g and r > 2 * b)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("pdftoppm") is None, reason="needs poppler-utils")
@pytest.mark.django_db
def test_the_cover_of_a_draft_carries_one_whole_mark(full_catalog, engineer, tmp_path):  # noqa: F811
    revision = make_quote(engineer).current_revision
    content = render_document(revision, kind="proposal", language="zh-hans").content
    assert _red_pixels_at_the_top(content, tmp_path) == 0
    text = subprocess.run(
        ["pdftotext", "-f", "1", "-l", "1", str(tmp_path / "proposal.pdf"), "-"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert " ".join(text.split()).count(DRAFT_MARK) == 1  # the cover's band
