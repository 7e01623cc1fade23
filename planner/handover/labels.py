"""Cable labels: a printable A4 sheet (PDF) and the same data as CSV for label printers.

The sheet is a 3 x 8 grid of 70 x 37.125 mm labels (the common A4 "24 per sheet" stock, no
margins), two labels per cable, one for each end: the end it goes on first, then the far end,
the cable id, its length and a QR code of the id (segno). The PDF is drawn straight
(`label_sheet`: 1,024 GPUs' 5,304 labels in about 5 s of CPU, bench.handover) when the Noto CJK
fonts are installed, else rendered from `labels_html` by WeasyPrint (about 26 s). A sheet
beyond `MAX_LABEL_CABLES` is better printed from the CSV by a label printer."""

from __future__ import annotations

import base64
import csv
import io
import struct
import zlib
from collections.abc import Callable, Iterable, Iterator
from html import escape

from planner.handover import label_sheet
from planner.handover.cable_ids import Cable
from planner.handover.label_sheet import Label

LABEL_COLUMNS = (
    "cable_id", "label", "plane", "a_rack", "a_device", "a_port", "b_rack", "b_device", "b_port",
    "length_m", "media", "speed_gbps", "cable",
)  # fmt: skip
LABELS_PER_PAGE = 24  # 3 x 8
# A synchronous render must end inside the web server's 60 s timeout: about 7 ms a label on a
# loaded two-core machine (bench.handover), two labels a cable. 1,024 GPUs with storage and
# out-of-band planes have 2,652 cables; larger designs print from the CSV until the sheet
# renders in a worker.
MAX_LABEL_CABLES = 3_000


class TooManyLabels(Exception):
    """The design has more cables than one synchronous label sheet renders in time."""

    def __init__(self, cables: int) -> None:
        self.cables = cables
        super().__init__(f"{cables} cables; at most {MAX_LABEL_CABLES} on one label sheet")


def _formula_safe(value: object) -> object:
    # Label printers' software opens CSV in spreadsheets too: no cell may start a formula.
    if isinstance(value, str) and value.startswith(("=", "+", "-", "@", "\t", "\r")):
        return "'" + value
    return value


def label_row(cable: Cable) -> list[object]:
    row = cable.row
    return [
        cable.id, row.label, row.plane, cable.a_rack, row.a_device, row.a_port, cable.b_rack,
        row.b_device, row.b_port, row.length_m, row.media.value, row.speed_gbps, row.cable,
    ]  # fmt: skip


def labels_csv_chunks(cables: Iterable[Cable]) -> Iterator[str]:
    """CSV text, a row at a time (streams in constant memory)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(LABEL_COLUMNS)
    yield "\ufeff" + buffer.getvalue()
    for cable in cables:
        buffer.seek(0)
        buffer.truncate()
        writer.writerow([_formula_safe(value) for value in label_row(cable)])
        yield buffer.getvalue()


# A fixed mask: segno's search for the best of eight masks costs three quarters of the encoding
# time, and any mask gives a valid code (the search only evens out dark and light areas).
QR_MASK = 2
QR_BORDER = 2  # modules of quiet zone; the label's own white margin adds the rest


def qr_matrix(value: str) -> tuple[bytearray, ...]:
    """The QR code of `value` (segno, error correction M or better), one row per module row."""
    import segno  # imported late: the pages work before the lock files carry it

    qr = segno.make(value, error="m", micro=False, mask=QR_MASK)
    return tuple(qr.matrix)


def qr_png(value: str) -> bytes:
    """The QR code of `value` as an 8-bit grey PNG, one pixel per module. Written here with
    zlib: segno's own PNG writer takes ten times as long, and a sheet holds thousands."""
    matrix = qr_matrix(value)
    size = len(matrix) + 2 * QR_BORDER
    white = b"\xff"
    blank = b"\x00" + white * size
    pad = white * QR_BORDER
    rows = [blank] * QR_BORDER
    rows += [b"\x00" + pad + bytes(0 if m else 255 for m in modules) + pad for modules in matrix]
    rows += [blank] * QR_BORDER

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data)
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", size, size, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"".join(rows)))
        + chunk(b"IEND", b"")
    )


# The labels are floats filling the page three a line (3 x 70 mm = 210 mm, 8 x 37.125 mm =
# 297 mm), not absolutely placed boxes with a `style` attribute each: WeasyPrint parses every
# style attribute as a style sheet of its own and lays out each absolute box apart, which took
# 40% of the sheet's time (bench.handover: 1,024 GPUs' 5,304 labels). The page box is a
# millimetre wider than A4 so that rounding never pushes the third label to the next line (what
# passes the sheet's edge is cut by the page, and nothing is there).
_CSS = """
@page { size: A4; margin: 0; }
body { margin: 0; font-family: "DejaVu Sans", "Noto Sans CJK SC", sans-serif; font-size: 6.3pt;
       line-height: 1.3; }
.p { width: 211mm; height: 297mm; page-break-after: always; overflow: hidden; }
.l { float: left; position: relative; width: 70mm; height: 37.125mm;
     padding: 2.5mm 2mm 0 24mm; box-sizing: border-box; overflow: hidden; white-space: pre;
     border: 0.1mm dotted #bbb; font-weight: bold; }
.l img { position: absolute; left: 2.5mm; top: 2.5mm; width: 20mm; height: 20mm;
         image-rendering: pixelated; }
.i { position: absolute; left: 2.5mm; top: 24mm; font-family: "DejaVu Sans Mono", monospace;
     font-size: 5.6pt; font-weight: normal; }
"""
# Characters a line holds: 44 mm beside the QR code at 6.3 pt (about 1.2 mm a character), and
# the label's full 65 mm under it in 5.6 pt monospace (1.19 mm a character).
END_CHARS_PER_LINE = 34
ID_CHARS_PER_LINE = 54


def _wrapped(value: str, width: int) -> str:
    return "\n".join(value[i : i + width] for i in range(0, len(value), width))


def labels_html(
    cables: Iterable[Cable],
    *,
    captions: dict[str, str],
    progress: Callable[[int], None] | None = None,
    copies: int = 2,
) -> str:
    """The sheet as HTML: two labels per cable, each end's label naming its own end first.
    `captions` holds the translated words (`this_end`, `far_end`, `length`). A label is a
    pre-formatted text block beside its QR code (an image) and the id under both: WeasyPrint
    lays out a few boxes per label, not one per line, which makes a 5,000-label sheet several
    times faster than a grid of nested boxes."""
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><style>{_CSS}</style></head><body>"]
    count = 0
    this_end, far_end = captions["this_end"], captions["far_end"]
    for index, cable in enumerate(cables):
        row = cable.row
        qr = base64.b64encode(qr_png(cable.id)).decode()
        a = f"{cable.a_rack} {row.a_device} {row.a_port}"
        b = f"{cable.b_rack} {row.b_device} {row.b_port}"
        details = (
            f"{captions['length']} {row.length_m:g} m · {row.media.value.upper()} · {row.label}"
        )
        identifier = escape(_wrapped(cable.id, ID_CHARS_PER_LINE))
        # Few lines, each a line box WeasyPrint lays out: the layout time is per line.
        for near, far in ((a, b), (b, a))[:copies]:
            if count % LABELS_PER_PAGE == 0:
                parts.append("</div><div class='p'>" if count else "<div class='p'>")
            body = escape(
                _wrapped(f"{this_end}: {near}", END_CHARS_PER_LINE)
                + "\n"
                + _wrapped(f"{far_end}: {far}", END_CHARS_PER_LINE)
                + "\n"
                + _wrapped(details, END_CHARS_PER_LINE)
            )
            parts.append(
                "<div class='l'>"
                f"<img src='data:image/png;base64,{qr}'>{body}"
                f"<div class='i'>{identifier}</div></div>"
            )
            count += 1
        if progress is not None and index % 256 == 0:
            progress(index)
    parts.append("</div></body></html>" if count else "</body></html>")
    return "".join(parts)


def sheet_labels(
    cables: Iterable[Cable], *, captions: dict[str, str], copies: int = 2
) -> list[Label]:
    """The labels of the sheet, in order, with the very lines `labels_html` writes: each end's
    label names its own end first."""
    out: list[Label] = []
    this_end, far_end = captions["this_end"], captions["far_end"]
    for cable in cables:
        row = cable.row
        a = f"{cable.a_rack} {row.a_device} {row.a_port}"
        b = f"{cable.b_rack} {row.b_device} {row.b_port}"
        details = (
            f"{captions['length']} {row.length_m:g} m · {row.media.value.upper()} · {row.label}"
        )
        identifier = _wrapped(cable.id, ID_CHARS_PER_LINE).split("\n")
        for near, far in ((a, b), (b, a))[:copies]:
            lines = "\n".join((
                _wrapped(f"{this_end}: {near}", END_CHARS_PER_LINE),
                _wrapped(f"{far_end}: {far}", END_CHARS_PER_LINE),
                _wrapped(details, END_CHARS_PER_LINE),
            )).split("\n")  # fmt: skip
            out.append(Label(qr=cable.id, lines=lines, id_lines=identifier))
    return out


def labels_pdf(
    cables: list[Cable],
    *,
    captions: dict[str, str],
    progress: Callable[[int], None] | None = None,
    copies: int = 2,
) -> bytes:
    """The A4 label sheet as PDF bytes: `copies` labels a cable (2: one for each end; 1: the
    A end's label only, for a wrap-around label printed once). Raises `TooManyLabels` past
    `MAX_LABEL_CABLES`. Drawn straight into PDF (`label_sheet`, several times faster than an
    HTML render) when the Noto CJK fonts are installed, else rendered from `labels_html`.
    `progress(labels_done)` is called as it goes."""
    if len(cables) > MAX_LABEL_CABLES:
        raise TooManyLabels(len(cables))
    if label_sheet.available():
        labels = sheet_labels(cables, captions=captions, copies=copies)
        return label_sheet.sheet_pdf(labels, progress=progress)
    from weasyprint import HTML  # imported late: loading WeasyPrint costs a second at start-up

    html = labels_html(cables, captions=captions, progress=progress, copies=copies)
    pdf: bytes = HTML(string=html).write_pdf()
    return pdf


__all__ = [
    "LABEL_COLUMNS",
    "MAX_LABEL_CABLES",
    "TooManyLabels",
    "label_row",
    "labels_csv_chunks",
    "labels_html",
    "labels_pdf",
    "qr_png",
    "sheet_labels",
]
