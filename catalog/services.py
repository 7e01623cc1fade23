"""Writes to the catalog. The seed loader upserts by SKU inside one transaction: every row goes
through the model's `full_clean()`, errors are collected per SKU and field, and one error rolls
the whole load back. A second load of the same data changes nothing (no saves, no history)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any, TypeVar

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models, transaction

from catalog.models import (
    CableSpec,
    Category,
    MediaRule,
    NicSpec,
    PatchPanelSpec,
    PortBreakout,
    PortGroup,
    Price,
    PriceList,
    PriceTier,
    Product,
    ServerSpec,
    ServiceSpec,
    SwitchSpec,
    TransceiverReach,
    TransceiverSpec,
    Vendor,
    format_lengths,
)
from catalog.snapshot import SEED_FORMAT

SEED_PATH = Path(settings.BASE_DIR) / "catalog" / "seed" / "catalog.json"

CREATED = "created"
UPDATED = "updated"
UNCHANGED = "unchanged"
DELETED = "deleted"

M = TypeVar("M", bound=models.Model)


class CatalogDataError(Exception):
    """The data did not validate; `errors` lists one message per SKU (or rule) and field."""

    def __init__(self, errors: Sequence[str]) -> None:
        super().__init__(f"{len(errors)} error(s): " + "; ".join(errors[:5]))
        self.errors = list(errors)


@dataclass
class LoadResult:
    counts: dict[str, Counter[str]] = field(default_factory=dict)

    def add(self, kind: str, status: str) -> None:
        self.counts.setdefault(kind, Counter())[status] += 1

    @property
    def changed(self) -> bool:
        return any(c[CREATED] or c[UPDATED] or c[DELETED] for c in self.counts.values())

    def lines(self) -> list[str]:
        return [
            f"{kind}: {c[CREATED]} created, {c[UPDATED]} updated, "
            f"{c[UNCHANGED]} unchanged, {c[DELETED]} deleted"
            for kind, c in self.counts.items()
        ]


def _dec(value: object) -> Decimal:
    return Decimal(str(value))


def _same(current: object, wanted: object) -> bool:
    if isinstance(wanted, models.Model):
        return isinstance(current, models.Model) and current.pk == wanted.pk
    return current == wanted


def _messages(exc: ValidationError) -> list[str]:
    if hasattr(exc, "error_dict"):
        return [
            f"{name}: {' '.join(str(m) for m in errors)}"
            for name, errors in exc.message_dict.items()
        ]
    return [" ".join(str(m) for m in exc.messages)]


def upsert(
    model: type[M],
    lookup: Mapping[str, Any],
    values: Mapping[str, Any],
    *,
    user: Any = None,
) -> tuple[M, str]:
    """Create or update one row, validated by `full_clean()`; saves only when something changed.

    The uniqueness checks that involve a lookup field are left out: the row was just looked up
    by those very fields in this transaction (and the database's constraints still hold). They
    cost a query each, for every one of the seed's ~1,300 rows; every other check stays."""
    try:
        obj = model._default_manager.get(**lookup)
    except model.DoesNotExist:  # type: ignore[attr-defined]
        obj = model(**lookup, **values)
        status = CREATED
    else:
        changed = [name for name, value in values.items() if not _same(getattr(obj, name), value)]
        if not changed:
            return obj, UNCHANGED
        for name in changed:
            setattr(obj, name, values[name])
        status = UPDATED
    _validate(obj, keys=set(lookup))
    if user is not None:
        obj._history_user = user  # type: ignore[attr-defined]
    obj.save()
    return obj, status


def _validate(obj: models.Model, *, keys: set[str]) -> None:
    """`full_clean()` without its unique checks on `keys`: every field, every check constraint
    and every uniqueness over other fields still run."""
    obj.full_clean(validate_unique=False, validate_constraints=False)
    obj.validate_unique(exclude=keys)
    checked = [
        constraint
        for constraint in obj._meta.constraints
        if not (isinstance(constraint, models.UniqueConstraint) and keys & set(constraint.fields))
    ]
    errors: dict[str, Any] = {}
    for constraint in checked:
        try:
            constraint.validate(type(obj), obj)
        except ValidationError as exc:
            errors = exc.update_error_dict(errors)
    if errors:
        raise ValidationError(errors)


def _delete_others(
    queryset: models.QuerySet[Any], keep: Sequence[int], kind: str, result: LoadResult
) -> None:
    for obj in queryset.exclude(pk__in=keep):
        obj.delete()
        result.add(kind, DELETED)


# --- Seed loading ------------------------------------------------------------------------


def _product_values(entry: Mapping[str, Any], vendor: Vendor) -> dict[str, Any]:
    name = entry.get("name") or {}
    description = entry.get("description") or {}
    cost = entry.get("cost") or {}
    return {
        "category": entry["category"],
        "vendor": vendor,
        "lifecycle": entry["lifecycle"],
        "name_en": name.get("en", ""),
        "name_zh": name.get("zh", ""),
        "description_en": description.get("en", ""),
        "description_zh": description.get("zh", ""),
        "source": entry.get("source", ""),
        "cost": _dec(cost["amount"]) if cost.get("amount") is not None else None,
        "cost_currency": cost.get("currency", "CNY"),
        "cost_is_sample": "sample" in str(cost.get("note", "sample")),
    }


def _load_nic(product: Product, spec: Mapping[str, Any], result: LoadResult, user: Any) -> None:
    values = {
        "ports": int(spec["ports"]),
        "speed_gbps": int(spec["speed_gbps"]),
        "form_factor": spec["form_factor"],
        "pcie_gen": int(spec["pcie_gen"]),
        "pcie_lanes": int(spec["pcie_lanes"]),
        "rocev2": bool(spec["rocev2"]),
        "sriov_vfs": int(spec["sriov_vfs"]),
        "power_w": _dec(spec["power_w"]),
    }
    _obj, status = upsert(NicSpec, {"product": product}, values, user=user)
    result.add("specs", status)


def _load_transceiver(
    product: Product, spec: Mapping[str, Any], result: LoadResult, user: Any
) -> None:
    values = {
        "form_factor": spec["form_factor"],
        "speed_gbps": int(spec["speed_gbps"]),
        "standard": spec["standard"],
        "media": spec["media"],
        "connector": spec["connector"],
        "power_w": _dec(spec["power_w"]),
        "links_per_module": int(spec.get("links_per_module", 1)),
        "breakout_ways": int(spec.get("breakout_ways", 1)),
    }
    transceiver, status = upsert(TransceiverSpec, {"product": product}, values, user=user)
    result.add("specs", status)
    reaches = spec.get("reaches") or {}
    if not reaches:
        raise ValidationError({"reaches": "A transceiver needs at least one reach."})
    keep = []
    for fibre_type, reach in reaches.items():
        row, status = upsert(
            TransceiverReach,
            {"transceiver": transceiver, "fibre_type": fibre_type},
            {"reach_m": _dec(reach)},
            user=user,
        )
        keep.append(row.pk)
        result.add("reaches", status)
    _delete_others(transceiver.reaches.all(), keep, "reaches", result)


def _load_cable(product: Product, spec: Mapping[str, Any], result: LoadResult, user: Any) -> None:
    values = {
        "kind": spec.get("kind", "assembly"),
        "media": spec["media"],
        "end_a": spec.get("end_a") or "",
        "end_b": spec.get("end_b") or "",
        "speed_gbps": int(spec.get("speed_gbps", 0)),
        "length_m": _dec(spec["length_m"]),
        "breakout_ways": int(spec.get("breakout_ways", 1)),
        "fibre_type": spec.get("fibre_type") or "",
        "connector": spec.get("connector") or "",
        "strands": int(spec.get("strands", 0)),
        "power_w": _dec(spec.get("power_w", 0)),
        "leg_connector": spec.get("leg_connector") or "",
    }
    _obj, status = upsert(CableSpec, {"product": product}, values, user=user)
    result.add("specs", status)


def _load_patch_panel(
    product: Product, spec: Mapping[str, Any], result: LoadResult, user: Any
) -> None:
    values = {
        "connector": spec["connector"],
        "ports": int(spec["ports"]),
        "rack_units": int(spec["rack_units"]),
        "insertion_loss_db": _dec(spec["insertion_loss_db"]),
        "fibre_type": spec.get("fibre_type") or "",
    }
    _obj, status = upsert(PatchPanelSpec, {"product": product}, values, user=user)
    result.add("specs", status)


def _load_switch(product: Product, spec: Mapping[str, Any], result: LoadResult, user: Any) -> None:
    values = {
        "switching_capacity_gbps": int(spec["switching_capacity_gbps"]),
        "power_typical_w": _dec(spec["power_typical_w"]),
        "power_max_w": _dec(spec["power_max_w"]),
        "rack_units": int(spec["rack_units"]),
    }
    switch, status = upsert(SwitchSpec, {"product": product}, values, user=user)
    result.add("specs", status)
    groups = spec.get("port_groups") or []
    if not groups:
        raise ValidationError({"port_groups": "A switch needs at least one port group."})
    keep_groups = []
    for position, group in enumerate(groups):
        port_group, status = upsert(
            PortGroup,
            {"switch": switch, "position": position},
            {
                "count": int(group["count"]),
                "speed_gbps": int(group["speed_gbps"]),
                "form_factor": group["form_factor"],
            },
            user=user,
        )
        keep_groups.append(port_group.pk)
        result.add("port groups", status)
        keep_breakouts = []
        for breakout in group.get("breakouts", []):
            try:
                row, status = upsert(
                    PortBreakout,
                    {
                        "port_group": port_group,
                        "ways": int(breakout["ways"]),
                        "speed_gbps": int(breakout["speed_gbps"]),
                    },
                    {},
                    user=user,
                )
            except ValidationError as exc:
                raise ValidationError(
                    {f"port_groups[{position}].breakouts": _messages(exc)}
                ) from exc
            keep_breakouts.append(row.pk)
            result.add("breakouts", status)
        _delete_others(port_group.breakouts.all(), keep_breakouts, "breakouts", result)
    _delete_others(switch.port_groups.all(), keep_groups, "port groups", result)


def _load_service(product: Product, spec: Mapping[str, Any], result: LoadResult, user: Any) -> None:
    _obj, status = upsert(ServiceSpec, {"product": product}, {"unit": spec["unit"]}, user=user)
    result.add("specs", status)


def _load_server(product: Product, spec: Mapping[str, Any], result: LoadResult, user: Any) -> None:
    values = {
        "gpus": int(spec["gpus"]),
        "gpu_model": spec["gpu_model"],
        "nic_slots": int(spec["nic_slots"]),
    }
    _obj, status = upsert(ServerSpec, {"product": product}, values, user=user)
    result.add("specs", status)


SPEC_LOADERS = {
    Category.NIC: _load_nic,
    Category.TRANSCEIVER: _load_transceiver,
    Category.COPPER_CABLE: _load_cable,
    Category.AOC: _load_cable,
    Category.FIBRE: _load_cable,
    Category.PATCH_PANEL: _load_patch_panel,
    Category.SWITCH: _load_switch,
    Category.SERVICE: _load_service,
    Category.CUSTOMER_SUPPLIED: _load_server,
}


def _load_product(
    entry: Mapping[str, Any], vendors: Mapping[str, Vendor], result: LoadResult, user: Any
) -> None:
    vendor_code = entry["vendor"]
    if vendor_code not in vendors:
        raise ValidationError({"vendor": f"Unknown vendor {vendor_code!r}."})
    category = entry["category"]
    if category not in SPEC_LOADERS:
        raise ValidationError({"category": f"Unknown category {category!r}."})
    product, status = upsert(
        Product, {"sku": entry["sku"]}, _product_values(entry, vendors[vendor_code]), user=user
    )
    result.add("products", status)
    SPEC_LOADERS[category](product, entry.get("spec") or {}, result, user)


def _load_price_list(
    entry: Mapping[str, Any],
    products: Mapping[str, Product],
    result: LoadResult,
    user: Any,
    failed: frozenset[str] = frozenset(),
) -> list[str]:
    """Upsert one price list and its prices. Rows for products whose own row failed are skipped:
    that product's error is already reported, once, on its row."""
    errors: list[str] = []
    code = entry["code"]
    if entry.get("default"):
        PriceList.objects.filter(is_default=True).exclude(code=code).update(is_default=False)
    price_list, status = upsert(
        PriceList,
        {"code": code},
        {
            "name": entry["name"],
            "currency": entry["currency"],
            "valid_from": date.fromisoformat(entry["valid_from"]),
            "valid_until": (
                date.fromisoformat(entry["valid_until"]) if entry.get("valid_until") else None
            ),
            "is_default": bool(entry.get("default", False)),
            "is_sample": bool(entry.get("sample", True)),
            "note": entry.get("note", ""),
        },
        user=user,
    )
    result.add("price lists", status)
    for row in entry.get("prices", []):
        sku = row.get("sku", "?")
        if sku in failed:
            continue
        try:
            if sku not in products:
                raise ValidationError({"sku": f"No product {sku!r} in the catalog."})
            price, status = upsert(
                Price,
                {"price_list": price_list, "product": products[sku]},
                {
                    "amount": _dec(row["amount"]),
                    "is_sample": bool(row.get("sample", entry.get("sample", True))),
                    "note": row.get("note", entry.get("note", "")),
                },
                user=user,
            )
            result.add("prices", status)
            keep = []
            for tier in row.get("tiers", []):
                tier_row, status = upsert(
                    PriceTier,
                    {"price": price, "min_quantity": int(tier["min_quantity"])},
                    {"unit_price": _dec(tier["unit_price"])},
                    user=user,
                )
                keep.append(tier_row.pk)
                result.add("price tiers", status)
            _delete_others(price.tiers.all(), keep, "price tiers", result)
        except ValidationError as exc:
            errors.extend(f"{code} / {sku}: {m}" for m in _messages(exc))
        except (KeyError, TypeError, ArithmeticError, ValueError) as exc:
            errors.append(f"{code} / {sku}: malformed price row ({exc!r})")
    return errors


def catalog_load(data: Mapping[str, Any], *, user: Any = None, dry_run: bool = False) -> LoadResult:
    """Upsert vendors, media rules, products with specs, price lists and prices from seed data.

    Raises CatalogDataError with every error found; nothing is saved then. A dry run validates
    every row the same way, reports what would change, and saves nothing either way."""
    with transaction.atomic():
        result = _catalog_load(data, user=user)
        if dry_run:
            transaction.set_rollback(True)
    return result


def _catalog_load(data: Mapping[str, Any], *, user: Any) -> LoadResult:
    if data.get("format") != SEED_FORMAT:
        raise CatalogDataError([f"format: expected {SEED_FORMAT!r}, got {data.get('format')!r}"])
    result = LoadResult()
    errors: list[str] = []

    vendors: dict[str, Vendor] = {}
    for entry in data.get("vendors", []):
        try:
            vendor, status = upsert(
                Vendor,
                {"code": entry["code"]},
                {"name": entry["name"], "is_own_brand": bool(entry.get("own_brand", False))},
                user=user,
            )
            vendors[vendor.code] = vendor
            result.add("vendors", status)
        except (ValidationError, KeyError) as exc:
            errors.append(f"vendor {entry.get('code', '?')}: {exc}")

    for entry in data.get("media_rules", []):
        label = f"media rule {entry.get('speed_gbps')}G {entry.get('media')}"
        try:
            _rule, status = upsert(
                MediaRule,
                {"speed_gbps": int(entry["speed_gbps"]), "media": entry["media"]},
                {
                    "max_reach_m": _dec(entry["max_reach_m"]),
                    "stock_lengths_m": format_lengths(
                        [_dec(v) for v in entry.get("stock_lengths_m", [])]
                    ),
                    "source": entry.get("source", ""),
                },
                user=user,
            )
            result.add("media rules", status)
        except ValidationError as exc:
            errors.extend(f"{label}: {m}" for m in _messages(exc))
        except (KeyError, TypeError, ArithmeticError, ValueError) as exc:
            errors.append(f"{label}: malformed ({exc!r})")

    seen: set[str] = set()
    failed: set[str] = set()
    for entry in data.get("products", []):
        sku = str(entry.get("sku", "?"))
        if sku in seen:
            errors.append(f"{sku}: sku: listed twice.")
            continue
        seen.add(sku)
        try:
            with transaction.atomic():
                _load_product(entry, vendors, result, user)
        except ValidationError as exc:
            failed.add(sku)
            errors.extend(f"{sku}: {m}" for m in _messages(exc))
        except (KeyError, TypeError, ArithmeticError, ValueError) as exc:
            failed.add(sku)
            errors.append(f"{sku}: malformed or missing field ({exc!r})")

    products = {p.sku: p for p in Product.objects.filter(sku__in=seen)}
    for entry in data.get("price_lists", []):
        try:
            errors.extend(_load_price_list(entry, products, result, user, frozenset(failed)))
        except ValidationError as exc:
            errors.extend(f"price list {entry.get('code', '?')}: {m}" for m in _messages(exc))
        except (KeyError, TypeError, ValueError) as exc:
            errors.append(f"price list {entry.get('code', '?')}: malformed ({exc!r})")

    if errors:
        raise CatalogDataError(errors)
    return result


def catalog_load_file(
    path: Path | str = SEED_PATH, *, user: Any = None, dry_run: bool = False
) -> LoadResult:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise CatalogDataError([f"{path}: {exc}"]) from exc
    if not isinstance(data, dict):
        raise CatalogDataError([f"{path}: the top level must be an object"])
    return catalog_load(data, user=user, dry_run=dry_run)
