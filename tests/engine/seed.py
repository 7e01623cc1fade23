"""The seed catalog as the engine sees it (no database), with the CNY list's prices."""

from __future__ import annotations

import json
from decimal import Decimal

from catalog.services import SEED_PATH
from catalog.snapshot import snapshot_from_seed
from engine.catalog import CatalogSnapshot


def seed_catalog_and_prices() -> tuple[CatalogSnapshot, dict[str, Decimal]]:
    data = json.loads(SEED_PATH.read_text(encoding="utf-8"))
    price_list = next(p for p in data["price_lists"] if p["code"] == "CNY-2026")
    prices = {p["sku"]: Decimal(str(p["amount"])) for p in price_list["prices"]}
    return snapshot_from_seed(data), prices
