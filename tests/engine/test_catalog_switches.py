"""Never an invented switch where the catalog sells one that serves (issue 26, item 1). With the
leaf left open the search also sizes inline specs of the usual sizes ("64x400", "48x25"): they
stand in when no catalog switch can, and their price is only estimated from catalog switches of
their class. Ranked by that estimate beside catalog designs whose optics were still to price,
they won 65 of 600 default designs of a sweep (ENGINE_VERSION 5): a quote built on a switch
nobody sells. Now a design on catalog switches is offered whenever one sizes."""

from __future__ import annotations

import itertools

import pytest

from bench.priced_sweep import random_requests
from engine.errors import DesignError
from engine.request import RequestError, parse_request
from engine.search import alternatives
from engine.sizing import size
from tests.engine.seed import seed_catalog_and_prices


@pytest.fixture(scope="module")
def seed():
    return seed_catalog_and_prices()


def _inline(design) -> list[str]:
    return [tier.switch for tier in design.compute.tiers if tier.sku is None]


def test_a_200g_hdr_cluster_is_built_on_switches_the_catalog_sells(seed):
    catalog, prices = seed
    # 1,760 GPUs on ConnectX-6 HDR (200G QSFP56), rail, leaf open: under ENGINE_VERSION 5 the
    # default was 24 + 8 inline "64x400" switches, because its estimated price undercut the
    # catalog switches' real one while both designs still had 200G optics to price.
    request = parse_request(
        {"gpus": 1760, "gpus_per_server": 8, "nic": "MCX653105A-ECAT", "fabric": "rail"}, catalog
    )
    design = size(request, catalog, prices)
    assert _inline(design) == []
    assert not design.cost_estimated
    assert all(_inline(option) == [] for option in alternatives(request, catalog, prices))


def _sizes(data: dict[str, object], catalog, prices) -> bool:
    try:
        size(parse_request(data, catalog), catalog, prices)
    except (RequestError, DesignError):
        return False
    return True


@pytest.mark.slow
def test_an_inline_switch_only_where_no_catalog_switch_serves(seed):
    """The sweep's requests with the switches left open: wherever an option uses an inline
    switch, sizing the same request with each catalog switch as its leaf is refused: checked
    independently of the search, one catalog switch at a time."""
    catalog, prices = seed
    checked = inline = 0
    for data in itertools.islice(random_requests(catalog, seed=2026), 400):
        if checked >= 60:
            break
        for key in ("leaf", "spine", "oversubscription"):
            data.pop(key, None)
        try:
            request = parse_request(data, catalog)
            options = alternatives(request, catalog, prices)
        except (RequestError, DesignError):
            continue
        checked += 1
        if not any(_inline(option) for option in options):
            continue
        inline += 1
        served = [
            s.sku for s in catalog.switches if _sizes({**data, "leaf": s.sku}, catalog, prices)
        ]
        assert served == [], (data, [_inline(o) for o in options])
    assert checked == 60
    print(f"{checked} open requests, {inline} on inline switches (no catalog switch serves)")


def test_a_broken_out_leg_takes_the_catalogs_modules_when_only_its_harness_is_missing(seed):
    """Issue 26, item 1, for optics: 100G leaves (SN2700, QSFP28) under 400G spines (SN4700,
    QSFP-DD) break each spine port out to four 100G legs. The catalog sells both ends on single-
    mode (QDD-400G-DR4, four 100G-DR lanes; MMS1V70-CM, 100G-DR1) but no MPO-12/APC to 4 x LC
    harness. Before, the stand-in went to the first media in the documented order, multimode:
    a 100G-SR1 module at each leaf and a 4 x 100G-SR1 breakout module at each spine port, none
    of them sold (4,096 + 1,024 parts to price). Now the media with the fewest parts standing
    in: the catalog's modules, and only the harness to price."""
    catalog, prices = seed
    request = {"gpus": 4096, "gpus_per_server": 8, "nic": "MCX623106AN-CDAT", "fabric": "tor",
               "leaf": "MSN2700-CS2F", "spine": "MSN4700-WS2FC"}  # fmt: skip
    design = size(parse_request(request, catalog), catalog, prices)
    legs = [line for line in design.bom if line.tier == "leaf-spine"]
    modules = {line.sku: line.quantity for line in legs if line.category == "transceiver"}
    # 4,096 GPUs / 8 = 512 servers, 16 a leaf (32 x 100G, 1:1): 256 leaves, 16 uplinks each:
    # 4,096 legs, one DR1 at each leaf end, one DR4 (4 legs) per spine port: 1,024.
    assert modules == {"MMS1V70-CM": 4096, "QDD-400G-DR4": 1024}
    stand_ins = [line for line in legs if line.catalog_gap]
    assert stand_ins
    assert all("harness" in line.description for line in stand_ins)
    assert sum(line.quantity for line in stand_ins) == 1024  # a harness per spine port
