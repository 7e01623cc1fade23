import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import DatabaseError
from django.utils import translation

from catalog.selectors import price_map
from core.errors import DomainError
from engine.request import REQUEST_FIELDS, FieldKind, RequestField
from engine.serialize import format_text
from planner.alternatives import alternatives_to_json
from planner.meaning.read_model import engine_estimate, estimate_text, estimate_to_json
from planner.services import design_alternatives, design_size

# Each request field (engine.request.REQUEST_FIELDS, the API's fields too) is an option named
# after it with dashes; the request file and the API use the field names.
OPTION_TYPES: dict[FieldKind, type] = {
    FieldKind.INTEGER: int,
    FieldKind.NUMBER: float,
    # Choices and ratios as typed: the engine reads "RAIL" or "3:1" and names a bad value.
    FieldKind.CHOICE: str,
    FieldKind.TEXT: str,
    FieldKind.RATIO: str,
}
PLANE_EXAMPLE = '{"nic_speed": 100}'
POOLS_EXAMPLE = '[{"gpus": 256, "nic_speed": 200}]'


class Command(BaseCommand):
    help = "Size a GPU-cluster network from options or a request file, and print the design."

    def add_arguments(self, parser: CommandParser) -> None:
        for spec in REQUEST_FIELDS:
            # argparse %-formats help texts.
            text = spec.help.replace("%", "%%")
            if spec.kind is FieldKind.BOOLEAN:
                parser.add_argument(spec.option, action="store_true", help=text)
            elif spec.kind is FieldKind.POOLS:
                parser.add_argument(spec.option, metavar="JSON", help=text)
            elif spec.kind is FieldKind.PLANE:
                # Alone: the plane with its defaults; with a JSON object: those options.
                parser.add_argument(spec.option, nargs="?", const="true", metavar="JSON", help=text)
            else:
                parser.add_argument(spec.option, type=OPTION_TYPES[spec.kind], help=text)
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
        parser.add_argument(
            "--lang",
            choices=[code for code, _name in settings.LANGUAGES],
            help="the language of the design and its errors (default: from LANG, else the site's)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        with translation.override(options["lang"] or language_from_environment()):
            self._handle(options)

    def _handle(self, options: Mapping[str, Any]) -> None:
        data: dict[str, Any] = {}
        if options["request"]:
            data = _read_request(options["request"])
        data.update(request_options(options))
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


def request_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """The request fields given as options (a flag left off is not given: the request file's
    value, else the engine's default)."""
    data: dict[str, Any] = {}
    for spec in REQUEST_FIELDS:
        value = options.get(spec.name)
        if value is None or value is False:
            continue
        if spec.kind is FieldKind.PLANE:
            value = _plane(spec, value)
        elif spec.kind is FieldKind.POOLS:
            value = _pools(spec, value)
        data[spec.name] = value
    return data


def language_from_environment(environ: Mapping[str, str] = os.environ) -> str:
    """The language a shell asks for, as POSIX reads it (LC_ALL, then LC_MESSAGES, then LANG):
    Chinese for zh_*, English for any other locale it names, the site's language when none is
    set (or only the C / POSIX default). Found: the CLI's errors came in Chinese in an English
    shell."""
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = environ.get(name, "")
        if value and value not in ("C", "POSIX") and not value.startswith("C."):
            return "zh-hans" if value.lower().startswith("zh") else "en"
    return str(settings.LANGUAGE_CODE)


def _plane(spec: RequestField, value: str) -> object:
    if value == "true":
        return True
    try:
        plane = json.loads(value)
    except json.JSONDecodeError:
        plane = None
    if not isinstance(plane, dict):
        raise CommandError(
            f"{spec.option} takes a JSON object of plane options, e.g. '{PLANE_EXAMPLE}'; "
            f"got {value!r}."
        )
    return plane


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


def _pools(spec: RequestField, value: str) -> object:
    try:
        pools = json.loads(value)
    except json.JSONDecodeError:
        pools = None
    if isinstance(pools, dict):
        pools = [pools]  # one pool may be given alone
    if not isinstance(pools, list):
        raise CommandError(
            f"{spec.option} takes a JSON list of pools, e.g. '{POOLS_EXAMPLE}'; got {value!r}."
        )
    return pools
