"""How many default designs a quote can be sent for without pricing a part by hand (issue 26,
item 2): a sweep of random valid requests sized against the seed catalog, pure engine, no DB.

A design is fully priced when no BOM line is a catalog gap (a generic stand-in the engine names
when the catalog sells nothing that fits a link) and no line lacks a price. The table lists the
gap parts by how many designs need them, with what a buyer would ask a supplier for (form factor,
speed, media, length), so the seed can be extended with the real parts that close them.

    .venv/bin/python -m bench.priced_sweep [REQUESTS [SEED_FILE]]

Not part of `make bench` (whose suites bench/__main__.py lists): 1,000 designs took 18 to 79 s on
a shared 2-core machine, depending on its load, against the ~60 s a suite may take there. `run()`
gives the bench's figures should it join."""

from __future__ import annotations

import json
import math
import random
import sys
import time
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

from catalog.snapshot import snapshot_from_seed
from engine.catalog import CableSpec, CatalogSnapshot, PatchPanelSpec, Product, TransceiverSpec
from engine.design import Design
from engine.errors import DesignError
from engine.fabric import uplink_speeds
from engine.ports import SwitchModel, catalog_model
from engine.request import RequestError, parse_request
from engine.request.model import Fabric, MediaPolicy
from engine.sizing import size

SEED_PATH = Path(__file__).resolve().parents[1] / "catalog" / "seed" / "catalog.json"
REQUESTS = 1000
RANDOM_SEED = 26  # the number: any fixed seed makes two runs comparable
GPUS_PER_SERVER = 8
MAX_GPUS = 131_072
MAX_OVERSUBSCRIPTION = 3
# `fabric` left out: the engine compares the styles (the request's open choice).
FABRICS: tuple[str | None, ...] = (*(f.value for f in Fabric), None)
MEDIA = tuple(policy.value for policy in MediaPolicy)
TOP_GAPS = 40


def seed_catalog(path: Path = SEED_PATH) -> CatalogSnapshot:
    return snapshot_from_seed(json.loads(path.read_text(encoding="utf-8")))


def catalog_prices(catalog: CatalogSnapshot) -> dict[str, Decimal]:
    """The default list's prices, as `planner.services.catalog_prices` reads them (that module
    needs Django; this sweep does not)."""
    return {sku: p.price for sku, p in catalog.by_sku().items() if p.price is not None}


def _main_speed(model: SwitchModel) -> int:
    """The speed of the switch's largest port group, as the engine's own switch pool judges a
    leaf: a 48 x 1G management switch with four 100G uplinks is no 100G leaf."""
    return max(model.port_groups, key=lambda g: (g.count, g.speed_gbps)).speed_gbps


def random_requests(
    catalog: CatalogSnapshot, seed: int = RANDOM_SEED
) -> Iterator[dict[str, object]]:
    """Endless valid-looking requests, the same sequence for the same seed and catalog switches
    and NICs. Sizes are log-uniform over 1 to 16,384 servers of 8 GPUs (8 to 131,072 GPUs), so
    small clusters are drawn as often as large ones. The NIC is a catalog NIC or only a speed
    one of them runs; the leaf a catalog switch that serves that speed on its main ports; the
    spine the leaf's model or another catalog switch sharing an uplink speed with the leaf."""
    rng = random.Random(seed)
    switches = [catalog_model(spec) for spec in catalog.switches]
    nic_speeds = sorted({nic.speed_gbps for nic in catalog.nics})
    max_servers = MAX_GPUS // GPUS_PER_SERVER
    while True:
        servers = max(1, min(max_servers, round(math.exp(rng.uniform(0, math.log(max_servers))))))
        nic = rng.choice([*catalog.nics, None])
        speed = nic.speed_gbps if nic is not None else rng.choice(nic_speeds)
        leaves = [m for m in switches if m.logical_ports(speed) and _main_speed(m) >= speed]
        if not leaves:
            continue
        leaf = rng.choice(leaves)
        spines = [m for m in switches if m is not leaf and uplink_speeds(leaf, m, speed)]
        spine = rng.choice([None, *spines])
        request: dict[str, object] = {
            "gpus": servers * GPUS_PER_SERVER,
            "gpus_per_server": GPUS_PER_SERVER,
            "leaf": leaf.label,
            "media": rng.choice(MEDIA),
            "oversubscription": rng.randint(1, MAX_OVERSUBSCRIPTION),
        }
        if nic is not None:
            request["nic"] = nic.sku
        else:
            request["nic_speed"] = speed
        fabric = rng.choice(FABRICS)
        if fabric is not None:
            request["fabric"] = fabric
        if spine is not None:
            request["spine"] = spine.label
        yield request


@dataclass(frozen=True, order=True)
class GapPart:
    """A generic part as a buyer would ask for it."""

    category: str
    description: str
    form_factor: str = ""
    speed_gbps: int = 0
    media: str = ""
    length_m: float = 0.0


def _gap_part(category: str, part: Product) -> GapPart:
    if isinstance(part, TransceiverSpec):
        return GapPart(
            category,
            part.name,
            form_factor=part.form_factor.value,
            speed_gbps=part.speed_gbps,
            media=f"{part.media.value} {part.connector.value}",
        )
    if isinstance(part, CableSpec):
        ends = "/".join(e.value for e in (part.end_a, part.end_b) if e is not None)
        media = part.media.value
        if part.connector is not None:
            media += f" {part.connector.value}"
        return GapPart(
            category,
            part.name,
            form_factor=ends,
            speed_gbps=part.speed_gbps,
            media=media,
            length_m=part.length_m,
        )
    if isinstance(part, PatchPanelSpec):
        return GapPart(category, part.name, media=part.connector.value)
    return GapPart(category, part.name)


def gap_parts(design: Design) -> set[GapPart]:
    """Every generic part (catalog gap) of the design, as a buyer would ask for it."""
    parts: dict[str, GapPart] = {}
    for plane in design.planes:
        for group in plane.links:
            choice = group.choice
            if choice is None or not choice.gaps:
                continue
            for category, part in (
                ("transceiver", choice.transceiver_a),
                ("transceiver", choice.transceiver_b),
                ("cable", choice.cable),
                ("cable", choice.cord),
                ("patch_panel", choice.panel),
            ):
                if part is not None and not part.sku:
                    parts[part.name] = _gap_part(category, part)
    out: set[GapPart] = set()
    for line in design.bom:
        if line.catalog_gap:
            out.add(parts.get(line.description, GapPart(line.category, line.description)))
    return out


def fully_priced(design: Design) -> bool:
    return not any(line.catalog_gap for line in design.bom) and design.unpriced_lines == 0


@dataclass
class SweepResult:
    designs: int = 0
    refused: int = 0
    priced: int = 0
    seconds: float = 0.0
    seed: int = RANDOM_SEED
    gaps: Counter[GapPart] = field(default_factory=Counter)  # designs needing each part
    by_trait: Counter[str] = field(default_factory=Counter)  # designs, by request trait
    priced_by_trait: Counter[str] = field(default_factory=Counter)  # fully priced ones

    @property
    def share(self) -> float:
        return self.priced / self.designs if self.designs else 0.0


def _traits(request: Mapping[str, object]) -> list[str]:
    speed = request.get("nic_speed") or request.get("nic")
    return [
        f"leaf {request['leaf']}",
        f"nic {speed}",
        f"media {request['media']}",
        f"fabric {request.get('fabric', '(open)')}",
    ]


def sweep(catalog: CatalogSnapshot, count: int = REQUESTS, seed: int = RANDOM_SEED) -> SweepResult:
    """Size requests until `count` designs came out; refused requests are counted and skipped."""
    prices = catalog_prices(catalog)
    result = SweepResult(seed=seed)
    start = time.perf_counter()
    for data in random_requests(catalog, seed):
        if result.designs >= count:
            break
        try:
            design = size(parse_request(data, catalog), catalog, prices)
        except (RequestError, DesignError):
            result.refused += 1
            continue
        result.designs += 1
        traits = _traits(data)
        result.by_trait.update(traits)
        if fully_priced(design):
            result.priced += 1
            result.priced_by_trait.update(traits)
            continue
        result.gaps.update(gap_parts(design))
    result.seconds = time.perf_counter() - start
    return result


def report(result: SweepResult, top: int = TOP_GAPS) -> str:
    lines = [
        f"{result.designs} designs sized ({result.refused} requests refused), "
        f"seed {result.seed}, {result.seconds:.1f} s",
        f"fully priced: {result.priced} of {result.designs} ({result.share:.1%})",
        "",
        f"{'designs':>7}  {'category':<11} {'form factor':<16} {'speed':>5} "
        f"{'media':<16} {'length':>6}  description",
    ]
    for part, designs in sorted(result.gaps.items(), key=lambda kv: (-kv[1], kv[0]))[:top]:
        length = f"{part.length_m:g} m" if part.length_m else ""
        speed = f"{part.speed_gbps}G" if part.speed_gbps else ""
        lines.append(
            f"{designs:>7}  {part.category:<11} {part.form_factor:<16} {speed:>5} "
            f"{part.media:<16} {length:>6}  {part.description}"
        )
    lines += ["", f"{'designs':>7}  {'priced':>6}  request trait"]
    for trait, designs in sorted(result.by_trait.items()):
        share = result.priced_by_trait[trait] / designs
        lines.append(f"{designs:>7}  {share:>6.0%}  {trait}")
    return "\n".join(lines)


def run() -> list[tuple[str, float] | tuple[str, float, str]]:
    """The figures `python -m bench` prints, should the sweep join it."""
    result = sweep(seed_catalog())
    return [
        (f"priced sweep, {result.designs} designs", result.seconds, "s"),
        ("fully priced designs", result.share * 100, "%"),
    ]


def main(argv: list[str]) -> int:
    """`[REQUESTS [SEED_FILE]]`: another seed file (an older copy) measures a before and after."""
    count = int(argv[0]) if argv else REQUESTS
    path = Path(argv[1]) if len(argv) > 1 else SEED_PATH
    print(report(sweep(seed_catalog(path), count)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
