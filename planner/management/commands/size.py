import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import DatabaseError

from catalog.selectors import price_map
from core.errors import DomainError
from engine.serialize import format_text
from planner.alternatives import alternatives_to_json
from planner.meaning.read_model import engine_estimate, estimate_text, estimate_to_json
from planner.services import design_alternatives, design_size

# CLI option -> request field. The request file and the API use the field names.
OPTIONS: tuple[tuple[str, type, str], ...] = (
    ("gpus", int, "number of GPUs"),
    ("gpus-per-server", int, "GPUs per server (default 8)"),
    ("rails", int, "compute NIC ports per server (default: GPUs per server)"),
    ("nic-speed", int, "compute NIC port speed in Gbps"),
    ("nic", str, "catalog NIC SKU (gives ports, speed and form factor)"),
    ("fabric", str, "rail | rail-plane | tor"),
    ("leaf", str, "leaf switch: PORTSxSPEED (e.g. 64x400) or a catalog SKU"),
    ("spine", str, "spine switch (default: as leaf)"),
    ("core", str, "core switch (default: as spine)"),
    ("oversubscription", float, "downlink:uplink target, e.g. 1, 3, 7 (default 1)"),
    ("media", str, "auto | copper | optical | mmf | smf"),
    ("rails-per-plane", int, "rail-plane: rails sharing one spine plane"),
    ("servers-per-su", int, "servers per scalable unit (default: as many as a leaf serves)"),
    ("min-spines", int, "fewest spines of a two-tier fabric (default 2; 1 allows a single spine)"),
    ("oversubscription-tolerance", float, "how far above the target a design may go (0.1: 10 %)"),
    ("planes", int, "rail: identical compute planes the server ports split over (default: open)"),
    ("uplink-speed", int, "leaf-spine speed in Gbps (default: the cheapest both tiers run)"),
    ("build", str, "growth (default: partial units get every uplink) | today (least to buy now)"),
    ("servers-per-rack", int, "servers per rack"),
    ("rack-width-m", float, "rack width in metres"),
    ("racks-per-row", int, "racks per row"),
    ("leaf-placement", str, "tor | mor | eor | network-rack"),
    ("spine-row-distance-m", float, "distance to the spine/core row in metres"),
    ("cable-slack-m", float, "slack added to every cable in metres"),
    ("max-rack-power-w", int, "warn above this power per rack"),
)


class Command(BaseCommand):
    help = "Size a GPU-cluster network from options or a request file, and print the design."

    def add_arguments(self, parser: CommandParser) -> None:
        for name, kind, text in OPTIONS:
            parser.add_argument(f"--{name}", type=kind, help=text)
        parser.add_argument("--dual-homing", action="store_true", help="tor: two leaves per rack")
        parser.add_argument("--request", type=Path, help="a JSON request file (API field names)")
        parser.add_argument("--format", choices=["text", "json"], default="text")
        parser.add_argument(
            "--job",
            type=Path,
            help="a JSON training job (parameters, tensor_parallel, ...): adds the estimated "
            "communication time per step",
        )
        parser.add_argument(
            "--alternatives",
            action="store_true",
            help="print up to three alternatives (lowest cost, most resilient, most growth)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        data: dict[str, Any] = {}
        if options["request"]:
            data = _read_request(options["request"])
        for name, _kind, _text in OPTIONS:
            value = options[name.replace("-", "_")]
            if value is not None:
                data[name.replace("-", "_")] = value
        if options["dual_homing"]:
            data["dual_homing"] = True
        if "gpus" not in data:
            raise CommandError("--gpus (or a --request file with gpus) is required.")
        try:
            if options["alternatives"]:
                self._alternatives(data, options["format"])
                return
            sized = design_size(request_data=data)
            job = _read_request(options["job"], "job") if options["job"] else None
            comms = engine_estimate(design=sized.design, data=job) if job is not None else None
        except DomainError as exc:
            raise CommandError(str(exc).replace("\n", " ")) from exc
        except DatabaseError as exc:
            raise CommandError(
                f"The catalog database is not ready ({exc}); run `manage.py migrate` and "
                "`manage.py load_catalog` first."
            ) from exc
        if options["format"] == "json":
            body = (
                sized.result
                if comms is None
                else {**sized.result, "comms": estimate_to_json(comms)}
            )
            self.stdout.write(json.dumps(body, indent=2, ensure_ascii=False))
        else:
            self.stdout.write(format_text(sized.design))
            if comms is not None:
                self.stdout.write(estimate_text(comms))

    def _alternatives(self, data: dict[str, Any], output: str) -> None:
        options = design_alternatives(request_data=data, prices=price_map())
        rows = alternatives_to_json(options)
        if output == "json":
            self.stdout.write(json.dumps(rows, indent=2, ensure_ascii=False))
            return
        for row, option in zip(rows, options, strict=True):
            self.stdout.write(f"== {row['label']}: {row['cost_per_gpu'] or '-'} per GPU ==")
            self.stdout.write(format_text(option.design))


def _read_request(path: Path, what: str = "request") -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise CommandError(f"Cannot read {path}: {exc.strerror}.") from exc
    except json.JSONDecodeError as exc:
        raise CommandError(f"{path} is not valid JSON (line {exc.lineno}: {exc.msg}).") from exc
    if not isinstance(data, dict):
        raise CommandError(f"{path} must hold a JSON object of {what} fields.")
    return data
