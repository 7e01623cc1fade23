"""Vendors and products, and the vocabularies their specifications share."""

from __future__ import annotations

from decimal import Decimal
from enum import Enum

from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator
from django.db import models
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords

from engine.catalog import Connector, FibreType, FormFactor, Lifecycle, MediaKind

ZERO = Decimal("0")

sku_validator = RegexValidator(
    r"^[A-Za-z0-9][A-Za-z0-9._+-]*$",
    _("A SKU may contain letters, digits, '.', '_', '+' and '-' only."),
)


def validate_positive(value: Decimal | float | int) -> None:
    if value is None:
        return
    if value <= 0:
        raise ValidationError(_("Must be greater than 0 (got %(value)s)."), params={"value": value})


def validate_not_negative(value: Decimal | float | int) -> None:
    if value is None:
        return
    if value < 0:
        raise ValidationError(_("Must not be negative (got %(value)s)."), params={"value": value})


def _choices(enum: type[Enum]) -> list[tuple[str, str]]:
    return [(member.value, member.value) for member in enum]


FORM_FACTOR_CHOICES = _choices(FormFactor)
FIBRE_TYPE_CHOICES = _choices(FibreType)
CONNECTOR_CHOICES = _choices(Connector)
# Long enough for every connector, "MPO-12/APC" included.
CONNECTOR_MAX_LENGTH = 12


class LifecycleChoices(models.TextChoices):
    PLANNED = Lifecycle.PLANNED.value, _("Planned")
    AVAILABLE = Lifecycle.AVAILABLE.value, _("Available")
    END_OF_SALE = Lifecycle.END_OF_SALE.value, _("End of sale")


SELLABLE_LIFECYCLES = (LifecycleChoices.PLANNED, LifecycleChoices.AVAILABLE)


class MediaChoices(models.TextChoices):
    DAC = MediaKind.DAC.value, _("Passive copper (DAC)")
    AEC = MediaKind.AEC.value, _("Active copper (AEC)")
    AOC = MediaKind.AOC.value, _("Active optical cable (AOC)")
    MMF = MediaKind.MMF.value, _("Multimode fibre")
    SMF = MediaKind.SMF.value, _("Single-mode fibre")
    UTP = MediaKind.UTP.value, _("Twisted pair (RJ45)")


class Category(models.TextChoices):
    NIC = "nic", _("Network adapter (NIC)")
    TRANSCEIVER = "transceiver", _("Transceiver")
    COPPER_CABLE = "copper_cable", _("Copper cable (DAC, AEC)")
    AOC = "aoc", _("Active optical cable (AOC)")
    FIBRE = "fibre", _("Fibre (MPO, LC)")
    PATCH_PANEL = "patch_panel", _("Patch panel (MPO cassette, LC panel)")
    SWITCH = "switch", _("Switch")
    SERVICE = "service", _("Service")
    CUSTOMER_SUPPLIED = "customer_supplied", _("Customer-supplied")


# Which spec a category needs (the related name on Product), and which media a cable may have.
SPEC_FOR_CATEGORY: dict[str, str] = {
    Category.NIC: "nic_spec",
    Category.TRANSCEIVER: "transceiver_spec",
    Category.COPPER_CABLE: "cable_spec",
    Category.AOC: "cable_spec",
    Category.FIBRE: "cable_spec",
    Category.PATCH_PANEL: "patch_panel_spec",
    Category.SWITCH: "switch_spec",
    Category.SERVICE: "service_spec",
    Category.CUSTOMER_SUPPLIED: "server_spec",
}
CABLE_MEDIA_FOR_CATEGORY: dict[str, tuple[str, ...]] = {
    Category.COPPER_CABLE: (MediaChoices.DAC, MediaChoices.AEC, MediaChoices.UTP),
    Category.AOC: (MediaChoices.AOC,),
    Category.FIBRE: (MediaChoices.MMF, MediaChoices.SMF),
}
MULTIMODE_FIBRES = (FibreType.OM3.value, FibreType.OM4.value, FibreType.OM5.value)


class Currency(models.TextChoices):
    CNY = "CNY", _("Chinese yuan (CNY)")
    USD = "USD", _("US dollar (USD)")


def _localized(en: str, zh: str) -> str:
    language = (get_language() or "en").lower()
    if language.startswith("zh"):
        return zh or en
    return en or zh


class Vendor(models.Model):
    code = models.CharField(_("code"), max_length=40, unique=True)
    name = models.CharField(_("name"), max_length=120)
    is_own_brand = models.BooleanField(
        _("EZMAX brand"), default=False, help_text=_("EZMAX's own products, not a partner's.")
    )
    history = HistoricalRecords()

    class Meta:
        verbose_name = _("vendor")
        verbose_name_plural = _("vendors")
        ordering = ["-is_own_brand", "code"]

    def __str__(self) -> str:
        return self.name


class Product(models.Model):
    sku = models.CharField(_("SKU"), max_length=64, unique=True, validators=[sku_validator])
    category = models.CharField(_("category"), max_length=20, choices=Category.choices)
    vendor = models.ForeignKey(
        Vendor, on_delete=models.PROTECT, related_name="products", verbose_name=_("vendor")
    )
    name_en = models.CharField(_("name (English)"), max_length=200)
    name_zh = models.CharField(_("name (Chinese)"), max_length=200, blank=True)
    description_en = models.TextField(_("description (English)"), blank=True)
    description_zh = models.TextField(_("description (Chinese)"), blank=True)
    lifecycle = models.CharField(
        _("lifecycle"),
        max_length=16,
        choices=LifecycleChoices.choices,
        default=LifecycleChoices.AVAILABLE,
    )
    source = models.CharField(
        _("source"),
        max_length=300,
        blank=True,
        help_text=_("Datasheet or brochure the specs come from."),
    )
    cost = models.DecimalField(
        _("cost"),
        max_digits=14,
        decimal_places=2,
        null=True,
        blank=True,
        validators=[validate_not_negative],
        help_text=_("Purchase cost per unit, for margin. Visible only with the 'view cost' right."),
    )
    cost_currency = models.CharField(
        _("cost currency"), max_length=3, choices=Currency.choices, default=Currency.CNY
    )
    cost_is_sample = models.BooleanField(_("sample cost"), default=True)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)
    history = HistoricalRecords()

    class Meta:
        verbose_name = _("product")
        verbose_name_plural = _("products")
        ordering = ["category", "sku"]
        permissions = [("view_cost", _("Can view cost and margin"))]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(cost__isnull=True) | models.Q(cost__gte=0),
                name="catalog_product_cost_not_negative",
            )
        ]

    def __str__(self) -> str:
        return f"{self.sku} · {self.name}"

    @property
    def name(self) -> str:
        """The name in the active language (falls back to the other one)."""
        return _localized(self.name_en, self.name_zh)

    @property
    def description(self) -> str:
        return _localized(self.description_en, self.description_zh)

    @property
    def spec(self) -> models.Model | None:
        related = SPEC_FOR_CATEGORY.get(self.category)
        if not related:
            return None
        try:
            return getattr(self, related)  # type: ignore[no-any-return]
        except models.ObjectDoesNotExist:
            return None
