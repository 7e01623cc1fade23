"""Issue 26's sweep: 1,000 random requests on the seed catalog and its prices (sizes 8 to
131,072 GPUs, every fabric and media policy, every catalog switch and NIC, or only a NIC speed),
each design read as an architect reads a BOM:

- no stand-in where the catalog sells a part that fits the same ends, media and run;
- no stand-in with lanes or fibres that do not exist: a breakout leg keeps its cage's lane rate
  and the far cage must take it; an 800G parallel module takes 16 fibres (MPO-16);
- no stand-in module in a broken-out cage where the catalog sells a parallel module that splits
  into the far end's catalog modules (a QDD-400G-DR4 to four MMS1V70-CM): then only the harness
  may stand in, on runs a splitter reaches (50 m, NVIDIA's limit for splitter cables; past it
  the engine still draws a stand-in module with its harness onto an LC trunk, 14 of these
  1,000 designs, which a harness into an LC panel would replace);
- the share of fully priced designs: against a ratchet for the requests as drawn (a named leaf
  the catalog sells no optic for stays unpriced), and against the issue's 90 % goal for the
  designs the tool proposes, with the switches, ratio and media left to the engine.

The lane figures below are written out again from ../shared/reference/ports-cages-and-plugs.md
("Form factors and what they accept") rather than imported from engine.lanes, so a wrong table
there cannot agree with itself here."""

from __future__ import annotations

import itertools
from collections import Counter
from decimal import Decimal

import pytest

from bench.priced_sweep import catalog_prices, fully_priced, random_requests, seed_catalog
from engine.catalog import CableSpec, CatalogSnapshot, Connector, FormFactor, TransceiverSpec
from engine.design import Design
from engine.errors import DesignError
from engine.generic import SPLITTER_MAX_M
from engine.request import RequestError, parse_request
from engine.search import alternatives
from engine.sizing import size
from tests.engine.test_outputs import assert_labels_true

pytestmark = pytest.mark.slow

REQUESTS = 1000

# Cage: (lanes, fastest lane rate in Gb/s), from the reference's table.
CAGE = {
    FormFactor.SFP_PLUS: (1, 10),
    FormFactor.SFP28: (1, 25),
    FormFactor.SFP56: (1, 50),
    FormFactor.QSFP28: (4, 25),
    FormFactor.QSFP56: (4, 50),
    FormFactor.QSFP112: (4, 100),
    FormFactor.QSFP_DD: (8, 50),
    FormFactor.OSFP: (8, 100),
}
# The share of designs with every line priced, measured on this commit's seed: 645 of these
# 1,000 (64.5 %; 46.5 % before 200G NICs could take a whole 400G cage on a QSFP56 module and
# NVIDIA's MFP7E fibres ran point to point; 43.0 % before the seed's second round of real parts).
# A floor a change may raise and must not lower; the switches named as drawn, so a leaf the
# catalog sells no optic for stays unpriced.
PRICED_FLOOR = 0.64
# Issue 26's goal for the designs the tool proposes (the switches and media left open).
DEFAULT_PRICED_GOAL = 0.90


def _lane_rate(cage: FormFactor, speed_gbps: int) -> int:
    _lanes, fastest = CAGE[cage]
    # A cage runs its speed on its fastest lanes: 400G QSFP-DD is 8 x 50G, 400G OSFP 4 x 100G.
    return fastest if speed_gbps >= fastest else speed_gbps


def _breakout_exists(cable: CableSpec) -> bool:
    """A copper or AOC breakout: each leg has lanes/ways of the bundled end's lanes, at its
    rate; the leg's cage must signal that rate on that many lanes."""
    if cable.breakout_ways <= 1 or cable.end_a is None or cable.end_b is None:
        return True
    rate = _lane_rate(cable.end_a, cable.speed_gbps)
    lanes = cable.speed_gbps // rate
    leg_lanes, remainder = divmod(lanes, cable.breakout_ways)
    far_lanes, far_fastest = CAGE[cable.end_b]
    return not remainder and leg_lanes >= 1 and rate <= far_fastest and leg_lanes <= far_lanes


def _lanes_of(standard: str) -> int:
    """The optical lanes one link of `standard` takes: the figure ending its name (SR4: 4,
    SR8: 8, SR2: 2), one when there is none or it is 1 (SR, DR, FR1, LR)."""
    kind = standard.upper().split("BASE-")[-1]
    digits = kind[len(kind.rstrip("0123456789")) :]
    return int(digits) if digits else 1


def _module_exists(module: TransceiverSpec) -> bool:
    # 800G parallel optics run 8 x 100G lanes: 16 fibres, MPO-16 (IEEE 802.3df SR8/DR8).
    parallel = module.connector in (Connector.MPO12, Connector.MPO12_APC, Connector.MPO16)
    if module.speed_gbps >= 800 and module.links_per_module == 1 and parallel:
        return module.connector == Connector.MPO16
    # Every link a module carries takes its own lanes, and a cage has only so many (the
    # reference's table: QSFP-DD and OSFP eight, QSFP four): "4 x 100GBASE-SR4" would need
    # sixteen lanes of a QSFP-DD's eight, "8 x 100GBASE-FR4" thirty-two of an OSFP's.
    per_link = module.standard.split("x", 1)[-1] if module.links_per_module > 1 else module.standard
    lanes, _rate = CAGE[module.form_factor]
    return module.links_per_module * _lanes_of(per_link) <= lanes


def _catalog_would_fit(part: object, catalog: CatalogSnapshot, length_m: float) -> str | None:
    """A catalog part of the stand-in's own shape that reaches, if the catalog sells one."""
    if isinstance(part, CableSpec) and part.speed_gbps:
        for cable in catalog.cables:
            same = (cable.media, cable.end_a, cable.end_b, cable.speed_gbps,
                    cable.breakout_ways) == (part.media, part.end_a, part.end_b,
                                             part.speed_gbps, part.breakout_ways)  # fmt: skip
            if same and cable.length_m >= length_m - 1e-9:
                return cable.sku
    if isinstance(part, TransceiverSpec):
        for module in catalog.transceivers:
            same = (module.form_factor, module.speed_gbps, module.media, module.standard,
                    module.links_per_module) == (part.form_factor, part.speed_gbps, part.media,
                                                 part.standard, part.links_per_module)  # fmt: skip
            if same and any(r.reach_m >= length_m - 1e-9 for r in module.reaches):
                return module.sku
    return None


def _kind(standard: str) -> str:
    """A standard's optics family without speed, lane count or ports: "4x100GBASE-DR" and
    "400GBASE-DR4" are both "DR"; "25GBASE-SR" and "100GBASE-SR4" both "SR"."""
    return standard.upper().split("BASE-")[-1].rstrip("0123456789").rstrip("-")


def _catalog_would_split(part: TransceiverSpec, far: TransceiverSpec | None) -> str | None:
    """For a stand-in module serving `links_per_module` links of a broken-out cage whose far
    module is a catalog part: a catalog parallel module of the same cage, speed and family that
    its vendor sells split that many ways (`breakout_ways`), whose one lane group per link is
    the far module's speed."""
    if far is None or not far.sku or part.links_per_module < 2:
        return None
    for module in seed_catalog().transceivers:
        if (module.form_factor, module.speed_gbps, module.media) != (
            part.form_factor,
            part.speed_gbps,
            part.media,
        ) or module.links_per_module != 1:
            continue
        ways = part.links_per_module
        if module.breakout_ways % ways or module.speed_gbps // ways != far.speed_gbps:
            continue
        if _kind(module.standard) == _kind(far.standard) == _kind(part.standard):
            return f"{module.sku} split {ways} ways to {far.sku}"
    return None


def _stand_ins(design: Design) -> list[tuple[object, float]]:
    out: list[tuple[object, float]] = []
    for plane in design.planes:
        for group in plane.links:
            choice = group.choice
            if choice is None or not choice.gaps:
                continue
            for part in (choice.cable, choice.transceiver_a, choice.transceiver_b):
                if part is not None and not part.sku:
                    out.append((part, group.length_m))
    return out


def _split_stand_ins(design: Design) -> list[tuple[TransceiverSpec, TransceiverSpec | None]]:
    """Each stand-in module of a broken-out cage with the module at the link's far end."""
    out: list[tuple[TransceiverSpec, TransceiverSpec | None]] = []
    for plane in design.planes:
        for group in plane.links:
            choice = group.choice
            if choice is None or not choice.gaps:
                continue
            pairs = ((choice.transceiver_a, choice.transceiver_b),
                     (choice.transceiver_b, choice.transceiver_a))  # fmt: skip
            if group.length_m > SPLITTER_MAX_M:
                continue
            for module, far in pairs:
                if module is not None and not module.sku:
                    out.append((module, far))
    return out


def _read_as_an_architect(design: Design, catalog: CatalogSnapshot, problems: Counter[str]) -> None:
    for part, length_m in _stand_ins(design):
        name = getattr(part, "name", "")
        if isinstance(part, CableSpec) and not _breakout_exists(part):
            problems[f"lanes that do not exist: {name}"] += 1
        if isinstance(part, TransceiverSpec) and not _module_exists(part):
            problems[f"fibres that do not exist: {name}"] += 1
        sku = _catalog_would_fit(part, catalog, length_m)
        if sku is not None:
            problems[f"stand-in {name} where {sku} fits"] += 1
    for part, far in _split_stand_ins(design):
        split = _catalog_would_split(part, far)
        if split is not None:
            problems[f"stand-in {part.name} where {split}"] += 1


def _sweep(*, open_choices: tuple[str, ...]) -> tuple[int, int, Counter[str]]:
    """REQUESTS designs read as an architect reads them: (designs, fully priced, problems)."""
    catalog = seed_catalog()
    prices = catalog_prices(catalog)
    designs = priced = 0
    problems: Counter[str] = Counter()
    for data in itertools.islice(random_requests(catalog), REQUESTS * 3):
        for key in open_choices:
            data.pop(key, None)
        try:
            design = size(parse_request(data, catalog), catalog, prices)
        except (RequestError, DesignError):
            continue  # refused in words (the engine's errors are tested on their own)
        designs += 1
        priced += fully_priced(design)
        _read_as_an_architect(design, catalog, problems)
        if designs == REQUESTS:
            break
    return designs, priced, problems


def test_a_thousand_random_requests_read_as_an_architect_would() -> None:
    designs, priced, problems = _sweep(open_choices=())
    assert designs == REQUESTS
    assert not problems, problems.most_common(10)
    assert priced / designs >= PRICED_FLOOR, f"{priced} of {designs} fully priced"


def test_a_thousand_default_designs_are_priced_in_full() -> None:
    # The goal, on the designs the tool proposes: the switches, the oversubscription
    # and the media left to the engine, as the wizard leaves them (the sizes, fabrics, NICs and
    # speeds as drawn). Measured on this commit: 905 of 1,000 (90.5 %); the rest wait for
    # 100G-to-4 x 25G AOCs and SR4 breakouts (25G NICs under QSFP28 leaves) and MPO-to-LC
    # harnesses, which no public part number confirms yet.
    designs, priced, problems = _sweep(open_choices=("leaf", "spine", "oversubscription", "media"))
    assert designs == REQUESTS
    assert not problems, problems.most_common(10)
    assert priced / designs >= DEFAULT_PRICED_GOAL, f"{priced} of {designs} fully priced"


def test_alternatives_labels_are_true_over_random_requests() -> None:
    # The labels over the options the search offers (lowest cost = lowest fully priced cost
    # per GPU, most resilient = fewest servers lost to the worst single failure, most growth =
    # most GPUs on today's spines), with the switch left open as the wizard now leaves it.
    catalog = seed_catalog()
    prices = catalog_prices(catalog)
    checked = 0
    for data in itertools.islice(random_requests(catalog, seed=2026), 400):
        data.pop("leaf", None)
        data.pop("spine", None)
        if int(str(data["gpus"])) > 16_384:
            continue  # the search sizes dozens of candidates each: keep the test quick
        try:
            options = alternatives(parse_request(data, catalog), catalog, prices)
        except (RequestError, DesignError):
            continue
        assert_labels_true(options)
        assert all(o.cost is not None for o in options)
        best = options[0]
        if "lowest_cost" in best.labels:
            assert best.unpriced_lines == 0
            assert Decimal(best.cost or 0) > 0
        checked += 1
        if checked == 40:
            break
    assert checked == 40
