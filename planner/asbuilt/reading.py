"""The cabling as built: neighbour data read from the built cluster, checked against the design.

Pure Python. Two inputs are read:

- `lldpctl -f json` output (lldpd's JSON). lldpd names neither the local system nor, in that
  command, anything but its interfaces, so a single document belongs to the device the upload
  names (its file name), and several switches' outputs come as one object keyed by device name.
  Both shapes lldpd writes are read: `interface` as an object of interfaces (one neighbour) or as
  a list of one-key objects (several), and `-f json0`'s lists of `name`d entries.
- A CSV of `device,port,neighbor_device,neighbor_port`.

Every observation keeps the line it came from, so each problem names its line.

The check works on links (a breakout cable carries one link per lane, `cable_ids.legs`) and
reports per cable: correct, swapped ends (its far end and another cable's are exchanged), wrong
port, missing (neither end sees a neighbour), and the observed links the design does not have
and no other finding explains (unexpected)."""

from __future__ import annotations

import csv
import io
import json
import re
import zipfile
import zlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from _csv import Reader

MAX_UPLOAD_BYTES = 20 * 1024 * 1024
MAX_PROBLEMS = 50  # an upload that is wrong everywhere is told its first fifty problems
# Files in one upload (several files, or a ZIP's members): one lldpctl output a switch, and a
# 131,072-GPU rail design has some 6,000 switches; 10,000 leaves room for servers' own outputs
# while a ZIP's directory of that many entries (46 bytes and the name each) stays small.
MAX_FILES = 10_000
ZIP_MAGIC = b"PK\x03\x04"  # a local file header: every ZIP with a member starts with it
ZIP_EMPTY = b"PK\x05\x06"  # the end-of-directory record of an archive with no member
CSV_HEADER = ("device", "port", "neighbor_device", "neighbor_port")
_SWITCH_PORT = re.compile(r"^swp(\d+)(?:s(\d+))?$")

Endpoint = tuple[str, str]


class Status(StrEnum):
    CORRECT = "correct"
    SWAPPED = "swapped"
    WRONG_PORT = "wrong_port"
    MISSING = "missing"
    UNEXPECTED = "unexpected"


# A cable with several lanes takes the worst of them, in this order.
_SEVERITY = (Status.WRONG_PORT, Status.SWAPPED, Status.MISSING, Status.CORRECT)


class InputFormat(StrEnum):
    LLDP = "lldp"
    CSV = "csv"


@dataclass(frozen=True, kw_only=True)
class Neighbour:
    """One port and the neighbour it reports (or the CSV says it has). `source` names the file
    it came from when an upload has several (its name, or its ZIP member's); "" for one file."""

    line: int
    device: str
    port: str
    neighbor_device: str
    neighbor_port: str
    source: str = ""

    @property
    def where(self) -> tuple[str, int]:
        return (self.source, self.line)

    @property
    def local(self) -> Endpoint:
        return (self.device, self.port)

    @property
    def remote(self) -> Endpoint:
        return (self.neighbor_device, self.neighbor_port)


@dataclass(frozen=True, kw_only=True)
class Problem:
    """One thing wrong with an upload. `code` picks the sentence the caller shows (translated
    there); `params` fills it."""

    code: str
    line: int | None = None
    params: Mapping[str, object] = field(default_factory=dict)
    source: str = ""  # the file (or ZIP member) it is in, when an upload has several

    def to_json(self) -> dict[str, object]:
        return {"code": self.code, "line": self.line, "params": dict(self.params),
                "source": self.source}  # fmt: skip

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Problem:
        return cls(
            code=str(data["code"]),
            line=data.get("line"),
            params=dict(data.get("params") or {}),
            source=str(data.get("source") or ""),
        )


class UploadRejected(Exception):
    def __init__(self, problems: list[Problem]) -> None:
        super().__init__(", ".join(problem.code for problem in problems))
        self.problems = problems


def _problem(code: str, line: int | None, **params: object) -> Problem:
    return Problem(code=code, line=line, params=params)


def _reject(code: str, line: int | None = None, **params: object) -> UploadRejected:
    return UploadRejected([Problem(code=code, line=line, params=params)])


# --- Reading -------------------------------------------------------------------------------------


def detect_format(data: bytes, filename: str) -> InputFormat:
    head = data.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    if filename.lower().endswith(".json") or head in (b"{", b"["):
        return InputFormat.LLDP
    return InputFormat.CSV


def decode(data: bytes) -> str:
    if len(data) > MAX_UPLOAD_BYTES:
        raise _reject("too_large", size_mb=MAX_UPLOAD_BYTES // (1024 * 1024))
    if not data.strip():
        raise _reject("empty")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise _reject("not_utf8", data.count(b"\n", 0, exc.start) + 1) from None
    return text


def parse_csv(text: str) -> list[Neighbour]:
    # newline="": the csv module reads line breaks itself, a lone CR (old Mac files) included;
    # StringIO's default split only at LF and csv refused the CR left inside a line.
    reader = csv.reader(io.StringIO(text, newline=""))
    out: list[Neighbour] = []
    header: tuple[str, ...] | None = None
    for row in _rows(reader):
        line = reader.line_num
        if not any(cell.strip() for cell in row):
            continue
        cells = tuple(cell.strip() for cell in row)
        if header is None:
            header = tuple(cell.lower() for cell in cells)
            if header != CSV_HEADER:
                raise _reject("bad_header", line, expected=",".join(CSV_HEADER))
            continue
        if len(cells) != len(CSV_HEADER):
            raise _reject("columns", line, count=len(cells), expected=len(CSV_HEADER))
        if not all(cells):
            raise _reject("blank_field", line)
        out.append(
            Neighbour(
                line=line,
                device=cells[0],
                port=cells[1],
                neighbor_device=cells[2],
                neighbor_port=cells[3],
            )
        )
    if header is None:
        raise _reject("empty")
    return out


class _Lines:
    """Line numbers for a JSON text: json does not keep positions, so each interface is found
    again by its quoted name, searching forward from the last one (lldpd writes them in order)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.cursor = 0
        self.line = 1  # the line `cursor` is on: counted forward only, never from the start

    def find(self, key: str) -> int:
        needle = json.dumps(key)
        position = self.text.find(needle, self.cursor)
        if position < 0:  # out of order: rare, so counting from the start is affordable
            position = self.text.find(needle)
            return self.line if position < 0 else self.text.count("\n", 0, position) + 1
        self.line += self.text.count("\n", self.cursor, position)
        self.cursor = position + len(needle)
        return self.line


def parse_lldp(text: str, *, device: str = "") -> list[Neighbour]:
    """`device`: whose `lldpctl -f json` this is, for a single document (the file's name)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _reject("bad_json", exc.lineno, reason=exc.msg) from None
    except RecursionError:  # nested deeper than any lldpctl output: hostile or broken
        raise _reject("not_lldp", 1) from None
    lines = _Lines(text)
    if isinstance(data, dict) and "lldp" in data:
        if not device:
            raise _reject("no_device", 1)
        return list(_document(device, data, lines))
    if isinstance(data, dict) and data:
        out: list[Neighbour] = []
        for name, document in data.items():
            line = lines.find(name)
            if not isinstance(document, dict) or "lldp" not in document:
                raise _reject("not_lldp", line)
            out.extend(_document(str(name), document, lines))
        return out
    raise _reject("not_lldp", 1)


def _one(value: Any) -> Any:
    """json0 wraps every value in a list of one."""
    while isinstance(value, list) and len(value) == 1:
        value = value[0]
    return value


def _interfaces(lldp: Any, lines: _Lines) -> Iterator[tuple[str, Any, int]]:
    lldp = _one(lldp)
    if not isinstance(lldp, dict):
        raise _reject("not_lldp", lines.find("lldp"))
    interfaces = lldp.get("interface")
    if interfaces is None:
        return  # a switch with no neighbours
    if isinstance(interfaces, dict):
        interfaces = [{name: entry} for name, entry in interfaces.items()]
    if not isinstance(interfaces, list):
        raise _reject("not_lldp", lines.find("interface"))
    for item in interfaces:
        if isinstance(item, dict) and "name" in item and isinstance(item.get("name"), str):
            yield item["name"], item, lines.find(item["name"])  # json0
        elif isinstance(item, dict) and len(item) == 1:
            ((name, entry),) = item.items()
            yield str(name), entry, lines.find(str(name))
        else:
            raise _reject("not_lldp", lines.find("interface"))


def _document(device: str, document: Mapping[str, Any], lines: _Lines) -> Iterator[Neighbour]:
    for ifname, entry, line in _interfaces(document["lldp"], lines):
        if not isinstance(entry, dict):
            raise _reject("not_lldp", line)
        neighbor = _chassis_name(entry.get("chassis"))
        port = _port_name(entry.get("port"))
        if not neighbor:
            raise _reject("no_neighbor_name", line, port=ifname)
        if not port:
            raise _reject("no_neighbor_port", line, port=ifname)
        yield Neighbour(
            line=line, device=device, port=ifname, neighbor_device=neighbor, neighbor_port=port
        )


def _chassis_name(chassis: Any) -> str:
    chassis = _one(chassis)
    if not isinstance(chassis, dict):
        return ""
    if "name" in chassis:  # json0, or a chassis without a system name keyed by id
        name = _one(chassis["name"])
        return str(name.get("value", "")) if isinstance(name, dict) else str(name or "")
    names = [key for key in chassis if key not in ("id", "descr", "mgmt-ip", "capability")]
    return str(names[0]) if len(names) == 1 else ""


def _rows(reader: Reader) -> Iterator[list[str]]:
    """The reader's rows. What the csv module refuses (short of strict mode, only a field past
    its size limit) is refused naming the line, not a crash."""
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error:
            limit = f"{csv.field_size_limit():,}"
            raise _reject("bad_csv", max(reader.line_num, 1), limit=limit) from None
        yield row


def _port_name(port: Any) -> str:
    """The neighbour's port: its id when that is an interface name, else its description."""
    port = _one(port)
    if not isinstance(port, dict):
        return ""
    ident = _one(port.get("id"))
    if isinstance(ident, dict) and ident.get("type") in ("ifname", "local"):
        return str(ident.get("value", ""))
    descr = _one(port.get("descr"))
    if isinstance(descr, dict):
        descr = descr.get("value", "")
    return str(descr or "")


def _read_one(data: bytes, *, filename: str) -> tuple[InputFormat, list[Neighbour]]:
    text = decode(data)
    kind = detect_format(data, filename)
    if kind == InputFormat.LLDP:
        stem = filename.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        return kind, parse_lldp(text, device=stem)
    return kind, parse_csv(text)


def is_zip(data: bytes) -> bool:
    return data.startswith((ZIP_MAGIC, ZIP_EMPTY))


def read_upload(data: bytes, *, filename: str) -> tuple[InputFormat, list[Neighbour]]:
    """One uploaded file: lldpctl JSON, CSV, or a ZIP of per-switch files (`read_zip`). Only
    the format is checked (and, across the files, that no port or neighbour is listed twice):
    whether the design has each device and port is the worker's check (`check_known`)."""
    if is_zip(data):
        return read_zip(data)
    kind, neighbours = _read_one(data, filename=filename)
    check_duplicates(neighbours)
    return kind, neighbours


def read_files(files: Sequence[tuple[str, bytes]]) -> tuple[InputFormat, list[Neighbour]]:
    """Several files at once (one lldpctl output a switch, named after it: leaf01.json), each
    neighbour keeping its file's name; every file's first problem is reported, naming the file.
    The caller has bounded their total size."""
    if len(files) > MAX_FILES:
        raise _reject("too_many_files", count=len(files), limit=MAX_FILES)
    problems: list[Problem] = []
    neighbours: list[Neighbour] = []
    kinds: set[InputFormat] = set()
    seen: set[str] = set()
    for name, data in files:
        if name in seen:
            problems.append(Problem(code="duplicate_file", source=name))
            continue
        seen.add(name)
        try:
            kind, found = _read_one(data, filename=name)
        except UploadRejected as rejected:
            problems.extend(replace(problem, source=name) for problem in rejected.problems)
        else:
            kinds.add(kind)
            neighbours.extend(replace(item, source=name) for item in found)
        if len(problems) >= MAX_PROBLEMS:
            break
    if problems:
        raise UploadRejected(problems[:MAX_PROBLEMS])
    if not files:
        raise _reject("empty")
    check_duplicates(neighbours)
    # The stored format: lldpctl JSON when any file is (a CSV alongside is read all the same).
    return (InputFormat.LLDP if InputFormat.LLDP in kinds else InputFormat.CSV), neighbours


def _member_problem(info: zipfile.ZipInfo) -> str:
    """Why a ZIP member is not read, or ""."""
    name = info.filename
    if info.is_dir() or "/" in name or "\\" in name:
        return "zip_folder"  # a path: each switch's file belongs at the archive's top
    if info.flag_bits & 0x1:
        return "zip_encrypted"
    if name.lower().endswith(".zip"):
        return "zip_nested"
    if not name.lower().endswith((".json", ".csv")):
        return "zip_member_type"
    return ""


def read_zip(data: bytes) -> tuple[InputFormat, list[Neighbour]]:
    """A ZIP of per-switch files (leaf01.json, leaf02.json ...) at the archive's top level. A
    ZIP bomb is refused before it is unpacked, and again while it is: the members' declared
    sizes must add up to at most MAX_UPLOAD_BYTES, and since a member's header can lie, each is
    read at most up to what remains of that budget plus one byte. Folders, archives inside the
    archive, encrypted members, other file types and more than MAX_FILES members are refused,
    each problem naming its member."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError):
        raise _reject("bad_zip") from None
    if not infos:
        raise _reject("empty")
    if len(infos) > MAX_FILES:
        raise _reject("too_many_files", count=len(infos), limit=MAX_FILES)
    problems: list[Problem] = []
    declared = 0
    for info in infos:
        code = _member_problem(info)
        if code:
            problems.append(Problem(code=code, source=info.filename))
        declared += info.file_size
        if declared > MAX_UPLOAD_BYTES and not any(
            p.code == "too_large_unpacked" for p in problems
        ):
            problems.append(
                Problem(
                    code="too_large_unpacked",
                    source=info.filename,
                    params={"size_mb": MAX_UPLOAD_BYTES // (1024 * 1024)},
                )
            )
        if len(problems) >= MAX_PROBLEMS:
            break
    if problems:
        raise UploadRejected(problems[:MAX_PROBLEMS])
    files: list[tuple[str, bytes]] = []
    unpacked = 0
    for info in infos:
        try:
            with archive.open(info) as member:
                content = member.read(MAX_UPLOAD_BYTES - unpacked + 1)
        except (zipfile.BadZipFile, zlib.error, NotImplementedError, RuntimeError, EOFError,
                ValueError):  # fmt: skip
            raise UploadRejected([Problem(code="bad_zip_member", source=info.filename)]) from None
        unpacked += len(content)
        if unpacked > MAX_UPLOAD_BYTES:  # the header understated it
            raise UploadRejected([Problem(code="too_large_unpacked", source=info.filename,
                params={"size_mb": MAX_UPLOAD_BYTES // (1024 * 1024)})])  # fmt: skip
        files.append((info.filename, content))
    return read_files(files)


def _first(where: tuple[str, int]) -> dict[str, object]:
    return {"first": where[1], "first_source": where[0]}


def check_duplicates(neighbours: list[Neighbour]) -> None:
    """No port listed twice; no neighbour port claimed by two ports (across every file of the
    upload). Read from the upload alone, so the request checks it. Raises with every problem
    found (up to MAX_PROBLEMS)."""
    problems: list[Problem] = []
    seen_local: dict[Endpoint, tuple[str, int]] = {}
    seen_remote: dict[Endpoint, tuple[tuple[str, int], Endpoint]] = {}
    for item in neighbours:
        first = seen_local.setdefault(item.local, item.where)
        if first != item.where:
            problems.append(
                Problem(code="duplicate_port", line=item.line, source=item.source,
                        params={"device": item.device, "port": item.port, **_first(first)})
            )  # fmt: skip
        earlier = seen_remote.setdefault(item.remote, (item.where, item.local))
        if earlier[1] != item.local:
            problems.append(
                Problem(code="duplicate_neighbor", line=item.line, source=item.source,
                        params={"device": item.neighbor_device, "port": item.neighbor_port,
                                **_first(earlier[0])})
            )  # fmt: skip
        if len(problems) >= MAX_PROBLEMS:
            break
    if problems:
        raise UploadRejected(problems[:MAX_PROBLEMS])


def pack_files(files: Sequence[tuple[str, bytes]]) -> bytes:
    """Several uploaded files as one ZIP (compressed), stored as the check's one immutable file
    and read again by the worker with `read_zip`."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in files:
            archive.writestr(name, data)
    return out.getvalue()
