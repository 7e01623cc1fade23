"""A quote line's description in both languages, whatever language the quote is created in: the
document's language is chosen when it is rendered (`QuoteLine.description_in`).

- A catalog product or service: the catalog's `name_en` and `name_zh` (a blank Chinese name stays
  blank, and readers fall back to the English one).
- A text the code writes (a catalog gap's generic part, a growth note, freight): written once
  in each language through gettext.
- A text typed by hand (the quote page's one description box, the API's `description`): it is in
  whatever language its writer typed, so it is stored as both; the API can also write
  `description_en` and `description_zh` one at a time."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from django.utils import translation

from catalog.models import Product
from engine.text import Text
from planner.i18n import translated

ENGLISH = "en"
CHINESE = "zh-hans"


@dataclass(frozen=True)
class Descriptions:
    en: str
    zh: str

    def fields(self) -> dict[str, Any]:
        """The `QuoteLine` fields that hold them."""
        return {"description": self.en, "description_zh": self.zh}


def typed(text: str) -> Descriptions:
    """A text typed by hand, in one language we do not know: the same in both."""
    return Descriptions(en=text, zh=text)


def in_both(write: Callable[[], str]) -> Descriptions:
    """`write()` run once in English and once in Chinese; the Chinese is left blank when it comes
    out the same (no translation), so readers see that it falls back."""
    with translation.override(ENGLISH):
        en = str(write())
    with translation.override(CHINESE):
        zh = str(write())
    return Descriptions(en=en, zh="" if zh == en else zh)


def text_descriptions(message: Text) -> Descriptions:
    """An engine text (a generic part's name) in both languages."""
    return in_both(lambda: translated(message))


def catalog_descriptions(skus: Iterable[str]) -> dict[str, Descriptions]:
    """The catalog's names of `skus` (missing products are left out), in one query."""
    wanted = {sku for sku in skus if sku}
    if not wanted:
        return {}
    rows = Product.objects.filter(sku__in=wanted).values_list("sku", "name_en", "name_zh")
    return {sku: Descriptions(en=en or sku, zh=zh) for sku, en, zh in rows}


def catalog_description(sku: str, *, default: str = "") -> Descriptions:
    """One product's names; `default` (else the SKU) in both when the catalog has no such SKU."""
    found = catalog_descriptions([sku]).get(sku)
    return found if found is not None else typed(default or sku)


__all__ = [
    "CHINESE",
    "ENGLISH",
    "Descriptions",
    "catalog_description",
    "catalog_descriptions",
    "in_both",
    "text_descriptions",
    "typed",
]
