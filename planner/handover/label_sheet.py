"""The cable-label sheet drawn straight into PDF: the same A4 sheet of 3 x 8 labels of 70 x
37.125 mm as `labels.labels_html` lays out, without an HTML layout engine.

Why: every label sits at a fixed place and its lines are wrapped at fixed character counts, so
there is nothing to lay out; WeasyPrint spent about 5 ms a label laying out and drawing boxes
(a 1,024-GPU sheet of 5,304 labels took 26-30 s of CPU, bench.handover). Here a label is a few
PDF operators: its QR code as filled runs of modules (vector, sharp at any printer resolution),
its text lines in one embedded font, a dotted cutting guide.

Fonts: Noto Sans CJK SC Bold for the label's words (Latin and Chinese in one face) and Noto Sans
Mono CJK SC for the id, from Debian's fonts-noto-cjk (the Dockerfile and CI install it), embedded
as subsets (fontTools) of their CID-keyed CFF outlines, Identity-H encoded (a code is the
glyph's CID) with a ToUnicode map so the text can be searched and extracted. Without the fonts
`available()` is False and the caller uses the HTML render."""

from __future__ import annotations

import functools
import io
import os
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

FONT_DIRS = ("/usr/share/fonts/opentype/noto", "/usr/share/fonts/noto-cjk")
BOLD_FILE, REGULAR_FILE = "NotoSansCJK-Bold.ttc", "NotoSansCJK-Regular.ttc"
SANS_SC, MONO_SC = "Noto Sans CJK SC", "Noto Sans Mono CJK SC"

PT_PER_MM = 72 / 25.4
PAGE_W_MM, PAGE_H_MM = 210.0, 297.0
LABEL_W_MM, LABEL_H_MM = 70.0, 37.125
COLUMNS, ROWS = 3, 8
# As labels.labels_html's CSS: text 24 mm from the label's left edge and 2.5 mm from its top,
# 6.3 pt bold at 1.3 line height; the QR code 20 mm square at (2.5, 2.5) mm; the id in 5.6 pt
# monospace from (2.5, 24) mm.
TEXT_X_MM, TEXT_TOP_MM, TEXT_PT, LINE = 24.0, 2.5, 6.3, 1.3
QR_X_MM, QR_Y_MM, QR_MM = 2.5, 2.5, 20.0
ID_X_MM, ID_TOP_MM, ID_PT = 2.5, 24.0, 5.6
GUIDE_GREY = 0xBB / 255  # the dotted cutting guide, #bbb, 0.1 mm


def _find(name: str) -> str | None:
    for folder in FONT_DIRS:
        path = os.path.join(folder, name)
        if os.path.exists(path):
            return path
    return None


def available() -> bool:
    return _find(BOLD_FILE) is not None and _find(REGULAR_FILE) is not None


@dataclass
class _Face:
    """One face of a font collection: its characters' CIDs and advances, and what was used."""

    path: str
    number: int
    cids: dict[int, int]  # code point -> CID
    advances: dict[int, int]  # CID -> advance, in 1/1000 em (the fonts' units per em)
    metrics: dict[str, int]
    used: dict[int, str] = field(default_factory=dict)  # CID -> the text it stands for

    def encode(self, text: str) -> bytes:
        """`text` as a PDF hex string of 2-byte CIDs (Identity-H); a character the face lacks
        is its .notdef (CID 0)."""
        out = []
        for char in text:
            cid = self.cids.get(ord(char), 0)
            if cid:
                self.used.setdefault(cid, char)
            out.append(f"{cid:04x}")
        return ("<" + "".join(out) + ">").encode()


@functools.lru_cache(maxsize=4)
def _face_tables(
    path: str, family: str
) -> tuple[int, dict[int, int], dict[int, int], dict[str, int]]:
    """The collection's face of `family`: its number, character map and advances (read once a
    process: a few tenths of a second for a CJK face)."""
    from fontTools.ttLib import TTCollection

    collection = TTCollection(path, lazy=True)
    for number, font in enumerate(collection.fonts):
        if font["name"].getDebugName(1) == family:
            cmap = font.getBestCmap()
            hmtx = font["hmtx"].metrics
            cids = {code: int(name[3:]) for code, name in cmap.items() if name.startswith("cid")}
            advances = {int(name[3:]): hmtx[name][0] for name in set(cmap.values())
                        if name.startswith("cid")}  # fmt: skip
            head, hhea, os2 = font["head"], font["hhea"], font["OS/2"]
            metrics = {
                "xmin": head.xMin, "ymin": head.yMin, "xmax": head.xMax, "ymax": head.yMax,
                "ascent": hhea.ascent, "descent": hhea.descent,
                "cap": getattr(os2, "sCapHeight", hhea.ascent),
            }  # fmt: skip
            return number, cids, advances, metrics
    raise LookupError(f"{family} is not in {path}")


def _face(file: str, family: str) -> _Face:
    path = _find(file)
    if path is None:
        raise FileNotFoundError(file)
    number, cids, advances, metrics = _face_tables(path, family)
    return _Face(path=path, number=number, cids=cids, advances=advances, metrics=metrics)


def _subset_cff(face: _Face) -> bytes:
    """The face's CFF outlines cut down to the glyphs used. The subset keeps each glyph's CID
    (a CID-keyed font's glyph names are `cidNNNNN`), so the page's codes stay valid."""
    from fontTools import subset
    from fontTools.ttLib import TTFont

    font = TTFont(face.path, fontNumber=face.number)
    options = subset.Options()
    options.layout_features = []
    options.name_IDs = []
    options.notdef_outline = True
    subsetter = subset.Subsetter(options)
    subsetter.populate(glyphs=[".notdef", *(f"cid{cid:05d}" for cid in sorted(face.used))])
    subsetter.subset(font)
    data: bytes = font["CFF "].compile(font)
    return data


def _to_unicode(face: _Face) -> bytes:
    entries = sorted(face.used.items())
    lines = [
        "/CIDInit /ProcSet findresource begin", "12 dict begin", "begincmap",
        "/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def",
        "/CMapName /Adobe-Identity-UCS def", "/CMapType 2 def",
        "1 begincodespacerange", "<0000> <FFFF>", "endcodespacerange",
    ]  # fmt: skip
    for start in range(0, len(entries), 100):  # at most 100 entries a block
        block = entries[start : start + 100]
        lines.append(f"{len(block)} beginbfchar")
        lines.extend(f"<{cid:04x}> <{char.encode('utf-16-be').hex()}>" for cid, char in block)
        lines.append("endbfchar")
    lines += ["endcmap", "CMapName currentdict /CMap defineresource pop", "end", "end"]
    return "\n".join(lines).encode()


def _qr_runs(value: str) -> tuple[int, list[tuple[int, int, int]]]:
    """The QR code's size in modules (quiet zone included) and its dark modules as horizontal
    runs (row, first column, length): one rectangle a run instead of one a module."""
    from planner.handover.labels import QR_BORDER, qr_matrix

    matrix = qr_matrix(value)
    runs: list[tuple[int, int, int]] = []
    for row, modules in enumerate(matrix):
        column, width = 0, len(modules)
        while column < width:
            if modules[column]:
                start = column
                while column < width and modules[column]:
                    column += 1
                runs.append((row + QR_BORDER, start + QR_BORDER, column - start))
            else:
                column += 1
    return len(matrix) + 2 * QR_BORDER, runs


def _n(value: float) -> str:
    return f"{value:.3f}".rstrip("0").rstrip(".")


@dataclass(frozen=True)
class Label:
    qr: str  # the value the QR code carries (the cable id)
    lines: Sequence[str]  # the words beside the QR code, one a line
    id_lines: Sequence[str]  # the id under both, one a line


def _qr_form(value: str) -> tuple[int, bytes]:
    """The QR code of `value` as a form's content in module units (integers: short to write,
    exact), the origin at its bottom left: its size in modules and the operators."""
    size, runs = _qr_runs(value)
    rects = " ".join(f"{column} {size - row - 1} {length} 1 re" for row, column, length in runs)
    return size, f"0 g {rects} f".encode()


def _label_ops(
    label: Label, x_mm: float, top_mm: float, sans: _Face, mono: _Face, qr: tuple[str, int]
) -> list[bytes]:
    """`qr`: the name of the QR code's form on this page and its size in modules."""
    k = PT_PER_MM
    left, top = x_mm * k, (PAGE_H_MM - top_mm) * k  # PDF's origin is the page's bottom left
    ops = [
        # The cutting guide: a 0.1 mm dotted grey frame.
        f"{_n(GUIDE_GREY)} G {_n(0.1 * k)} w [{_n(0.3 * k)}] 0 d "
        f"{_n(left)} {_n(top - LABEL_H_MM * k)} {_n(LABEL_W_MM * k)} {_n(LABEL_H_MM * k)} re S"
        .encode()
    ]  # fmt: skip
    name, size = qr
    module = QR_MM * k / size
    qx, qy = left + QR_X_MM * k, top - QR_Y_MM * k - QR_MM * k
    ops.append(f"q {_n(module)} 0 0 {_n(module)} {_n(qx)} {_n(qy)} cm /{name} Do Q".encode())
    # Text: the first baseline one ascent below the line box's top, as CSS places it.
    body = [f"BT /F1 {_n(TEXT_PT)} Tf".encode()]
    leading = TEXT_PT * LINE
    ascent = sans.metrics["ascent"] / 1000 * TEXT_PT
    half_leading = (
        leading - (sans.metrics["ascent"] - sans.metrics["descent"]) / 1000 * TEXT_PT
    ) / 2
    y = top - TEXT_TOP_MM * k - half_leading - ascent
    body.append(f"{_n(left + TEXT_X_MM * k)} {_n(y)} Td {_n(leading)} TL".encode())
    for index, line in enumerate(label.lines):
        body.append((b"" if index == 0 else b"T* ") + sans.encode(line) + b" Tj")
    id_leading = ID_PT * LINE
    id_ascent = mono.metrics["ascent"] / 1000 * ID_PT
    id_half = (id_leading - (mono.metrics["ascent"] - mono.metrics["descent"]) / 1000 * ID_PT) / 2
    id_y = top - ID_TOP_MM * k - id_half - id_ascent
    body.append(
        f"/F2 {_n(ID_PT)} Tf 1 0 0 1 {_n(left + ID_X_MM * k)} {_n(id_y)} Tm {_n(id_leading)} TL"
        .encode()
    )  # fmt: skip
    for index, line in enumerate(label.id_lines):
        body.append((b"" if index == 0 else b"T* ") + mono.encode(line) + b" Tj")
    body.append(b"ET")
    return ops + body


def _font_objects(document: object, face: _Face, resource: str) -> object:
    """The Type 0 font of a face, with its CID font, descriptor, subset and ToUnicode map."""
    import pydyf

    assert isinstance(document, pydyf.PDF)
    tag = "".join(chr(65 + b % 26) for b in secrets.token_bytes(6))  # a subset's name prefix
    base = f"/{tag}+{resource}"
    cff = pydyf.Stream([_subset_cff(face)], {"Subtype": "/CIDFontType0C"}, compress=True)
    document.add_object(cff)
    metrics = face.metrics
    descriptor = pydyf.Dictionary({
        "Type": "/FontDescriptor", "FontName": base, "Flags": 4,
        "FontBBox": pydyf.Array([metrics[key] for key in ("xmin", "ymin", "xmax", "ymax")]),
        "ItalicAngle": 0, "Ascent": metrics["ascent"], "Descent": metrics["descent"],
        "CapHeight": metrics["cap"], "StemV": 80, "FontFile3": cff.reference,
    })  # fmt: skip
    document.add_object(descriptor)
    widths = pydyf.Array()
    for cid in sorted(face.used):
        widths.extend([cid, pydyf.Array([face.advances.get(cid, 1000)])])
    cid_font = pydyf.Dictionary({
        "Type": "/Font", "Subtype": "/CIDFontType0", "BaseFont": base,
        "CIDSystemInfo": pydyf.Dictionary({"Registry": pydyf.String("Adobe"),
                                           "Ordering": pydyf.String("Identity"),
                                           "Supplement": 0}),
        "FontDescriptor": descriptor.reference, "DW": 1000, "W": widths,
    })  # fmt: skip
    document.add_object(cid_font)
    to_unicode = pydyf.Stream([_to_unicode(face)], compress=True)
    document.add_object(to_unicode)
    font = pydyf.Dictionary({
        "Type": "/Font", "Subtype": "/Type0", "BaseFont": base, "Encoding": "/Identity-H",
        "DescendantFonts": pydyf.Array([cid_font.reference]), "ToUnicode": to_unicode.reference,
    })  # fmt: skip
    document.add_object(font)
    return font.reference


def sheet_pdf(
    labels: Sequence[Label],
    *,
    progress: Callable[[int], None] | None = None,
    every: int = 240,
) -> bytes:
    """The labels on A4 pages, 24 a page in rows of three. `progress(labels_done)` is called
    every `every` labels (and at the end)."""
    import pydyf

    sans, mono = _face(BOLD_FILE, SANS_SC), _face(REGULAR_FILE, MONO_SC)
    document = pydyf.PDF()
    fonts = pydyf.Dictionary()
    document.add_object(fonts)
    per_page = COLUMNS * ROWS
    width, height = PAGE_W_MM * PT_PER_MM, PAGE_H_MM * PT_PER_MM
    pages = [labels[i : i + per_page] for i in range(0, len(labels), per_page)] or [[]]
    done = 0
    # Each QR code is a form drawn by every label carrying it (both ends of a cable): made once.
    forms: dict[str, tuple[Any, int]] = {}
    for page_labels in pages:
        ops: list[bytes] = []
        xobjects = pydyf.Dictionary()
        for slot, label in enumerate(page_labels):
            if label.qr not in forms:
                size, content = _qr_form(label.qr)
                form = pydyf.Stream(
                    [content],
                    {"Type": "/XObject", "Subtype": "/Form",
                     "BBox": pydyf.Array([0, 0, size, size])},
                    compress=True,
                )  # fmt: skip
                document.add_object(form)
                forms[label.qr] = (form, size)
            form, size = forms[label.qr]
            name = f"Q{form.number}"
            xobjects[name] = form.reference
            row, column = divmod(slot, COLUMNS)
            ops.extend(
                _label_ops(label, column * LABEL_W_MM, row * LABEL_H_MM, sans, mono, (name, size))
            )
            done += 1
            if progress is not None and done % every == 0:
                progress(done)
        content = pydyf.Stream([b"\n".join(ops)], compress=True)
        document.add_object(content)
        resources = pydyf.Dictionary({"Font": fonts.reference, "XObject": xobjects})
        page = pydyf.Dictionary({
            "Type": "/Page", "Parent": document.pages.reference,
            "MediaBox": pydyf.Array([0, 0, _n(width), _n(height)]),
            "Contents": content.reference, "Resources": resources,
        })  # fmt: skip
        document.add_page(page)
    # The fonts last: their subsets hold exactly the glyphs the pages used.
    fonts["F1"] = _font_objects(document, sans, "NotoSansCJKsc-Bold")
    fonts["F2"] = _font_objects(document, mono, "NotoSansMonoCJKsc-Regular")
    out = io.BytesIO()
    document.write(out, compress=True)
    if progress is not None and done % every:
        progress(done)
    return out.getvalue()


__all__ = ["Label", "available", "sheet_pdf"]
