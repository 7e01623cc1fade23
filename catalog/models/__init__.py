"""The catalog: products with typed specifications, media rules and prices.

Every spec is typed (one-to-one spec models, child rows for port groups, breakouts and reaches):
the sizing engine reads them through `catalog.snapshot`, never from free text. Money is Decimal.
Validation lives in `clean()` so that the admin, the importer and the seed loader give the same
per-field errors. Modules: `products` (vendors, products, shared vocabularies), `specs`, `rules`
(media rules) and `prices`."""

from catalog.models.prices import (
    ContractPrice,
    Price,
    PriceList,
    PriceTier,
    SupportBasis,
)
from catalog.models.products import (
    CABLE_MEDIA_FOR_CATEGORY,
    CONNECTOR_CHOICES,
    CONNECTOR_MAX_LENGTH,
    FIBRE_TYPE_CHOICES,
    FORM_FACTOR_CHOICES,
    MULTIMODE_FIBRES,
    SELLABLE_LIFECYCLES,
    SPEC_FOR_CATEGORY,
    ZERO,
    Category,
    Currency,
    LifecycleChoices,
    MediaChoices,
    Product,
    Vendor,
    sku_validator,
    validate_not_negative,
    validate_positive,
)
from catalog.models.rules import (
    MediaRule,
    format_lengths,
    parse_lengths,
)
from catalog.models.specs import (
    CableKind,
    CableSpec,
    NicSpec,
    PatchPanelSpec,
    PortBreakout,
    PortGroup,
    ServerSpec,
    ServiceSpec,
    ServiceUnit,
    SwitchSpec,
    TransceiverReach,
    TransceiverSpec,
    breakout_error,
)

__all__ = [
    "CABLE_MEDIA_FOR_CATEGORY",
    "CONNECTOR_CHOICES",
    "CONNECTOR_MAX_LENGTH",
    "FIBRE_TYPE_CHOICES",
    "FORM_FACTOR_CHOICES",
    "MULTIMODE_FIBRES",
    "SELLABLE_LIFECYCLES",
    "SPEC_FOR_CATEGORY",
    "ZERO",
    "CableKind",
    "CableSpec",
    "Category",
    "ContractPrice",
    "Currency",
    "LifecycleChoices",
    "MediaChoices",
    "MediaRule",
    "NicSpec",
    "PatchPanelSpec",
    "PortBreakout",
    "PortGroup",
    "Price",
    "PriceList",
    "PriceTier",
    "Product",
    "ServerSpec",
    "ServiceSpec",
    "ServiceUnit",
    "SupportBasis",
    "SwitchSpec",
    "TransceiverReach",
    "TransceiverSpec",
    "Vendor",
    "breakout_error",
    "format_lengths",
    "parse_lengths",
    "sku_validator",
    "validate_not_negative",
    "validate_positive",
]
