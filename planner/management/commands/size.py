import json
from decimal import Decimal
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import DatabaseError

from catalog.selectors import price_map
from core.errors import DomainError
from planner.engine.serialize import format_text
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
        except DomainError as exc:
            raise CommandError(str(exc).replace("\n", " ")) from exc
        except DatabaseError as exc:
            raise CommandError(
                f"The catalog database is not ready ({exc}); run `manage.py migrate` and "
                "`manage.py load_catalog` first."
            ) from exc
        if options["format"] == "json":
            self.stdout.write(json.dumps(sized.result, indent=2, ensure_ascii=False))
        else:
            self.stdout.write(format_text(sized.design))

    def _alternatives(self, data: dict[str, Any], output: str) -> None:
        options = design_alternatives(request_data=data, prices=price_map())
        rows = []
        for option in options:
            result = option.result
            cost = result.get("cost")
            rows.append(
                {
                    "label": result["label"],
                    "cost_per_gpu": (
                        str((Decimal(cost) / result["gpus"]).quantize(Decimal("0.01")))
                        if cost is not None
                        else None
                    ),
                    "cost_estimated": result["cost_estimated"],
                    "unpriced_lines": result["unpriced_lines"],
                    "tradeoffs": result["notes"],
                    "design": result,
                }
            )
        if output == "json":
            self.stdout.write(json.dumps(rows, indent=2, ensure_ascii=False))
            return
        for row, option in zip(rows, options, strict=True):
            self.stdout.write(f"== {row['label']}: {row['cost_per_gpu'] or '-'} per GPU ==")
            self.stdout.write(format_text(option.design))


def _read_request(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise CommandError(f"Cannot read {path}: {exc.strerror}.") from exc
    except json.JSONDecodeError as exc:
        raise CommandError(f"{path} is not valid JSON (line {exc.lineno}: {exc.msg}).") from exc
    if not isinstance(data, dict):
        raise CommandError(f"{path} must hold a JSON object of request fields.")
    return data
