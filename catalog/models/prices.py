"""Price lists, prices with their quantity tiers, and customers' contract prices."""

from __future__ import annotations

from decimal import Decimal

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords

from catalog.models.products import (
    Currency,
    Product,
    validate_not_negative,
)


class SupportBasis(models.TextChoices):
    SWITCH = "switch", _("Switch")
    GPU = "gpu", _("GPU")


class PriceList(models.Model):
    code = models.CharField(_("code"), max_length=40, unique=True)
    name = models.CharField(_("name"), max_length=120)
    currency = models.CharField(
        _("currency"), max_length=3, choices=Currency.choices, default=Currency.CNY
    )
    valid_from = models.DateField(_("valid from"))
    valid_until = models.DateField(_("valid until"), null=True, blank=True)
    is_default = models.BooleanField(_("default list"), default=False)
    is_sample = models.BooleanField(
        _("sample prices"), default=True, help_text=_("Prices are samples, not an offer.")
    )
    note = models.CharField(_("note"), max_length=200, blank=True)
    # VAT by line kind, in percent (13 means 13 %): quotes priced from this list start with them.
    goods_vat_percent = models.DecimalField(
        _("VAT on goods (%)"),
        max_digits=5,
        decimal_places=2,
        default=Decimal("13"),
        validators=[MinValueValidator(Decimal("0")), MaxValueValidator(Decimal("99.99"))],
    )
    services_vat_percent = models.DecimalField(
        _("VAT on services (%)"),
        max_digits=5,
        decimal_places=2,
        default=Decimal("6"),
        validators=[MinValueValidator(Decimal("0")), MaxValueValidator(Decimal("99.99"))],
    )
    freight_vat_percent = models.DecimalField(
        _("VAT on freight (%)"),
        max_digits=5,
        decimal_places=2,
        default=Decimal("9"),
        validators=[MinValueValidator(Decimal("0")), MaxValueValidator(Decimal("99.99"))],
    )
    support_basis = models.CharField(
        _("support priced per"),
        max_length=10,
        choices=SupportBasis.choices,
        default=SupportBasis.SWITCH,
        help_text=_("Support is quoted per switch-year or per GPU-year, from this list's price."),
    )
    history = HistoricalRecords()

    class Meta:
        verbose_name = _("price list")
        verbose_name_plural = _("price lists")
        ordering = ["-is_default", "currency", "-valid_from"]
        constraints = [
            models.UniqueConstraint(
                fields=["is_default"],
                condition=models.Q(is_default=True),
                name="catalog_one_default_price_list",
            ),
            models.CheckConstraint(
                condition=models.Q(valid_until__isnull=True)
                | models.Q(valid_until__gte=models.F("valid_from")),
                name="catalog_price_list_dates",
            ),
        ]

    def __str__(self) -> str:
        # A name that states its currency already ("CNY list (CNY, sample)") is not told twice.
        return self.name if self.currency in self.name else f"{self.name} ({self.currency})"

    def clean(self) -> None:
        if self.valid_from and self.valid_until and self.valid_until < self.valid_from:
            raise ValidationError({"valid_until": _("The list cannot end before it starts.")})


class Price(models.Model):
    """A product's list price on a price list (per unit, in the list's currency)."""

    price_list = models.ForeignKey(
        PriceList, on_delete=models.CASCADE, related_name="prices", verbose_name=_("price list")
    )
    product = models.ForeignKey(
        Product, on_delete=models.CASCADE, related_name="prices", verbose_name=_("product")
    )
    amount = models.DecimalField(
        _("list price"), max_digits=14, decimal_places=2, validators=[validate_not_negative]
    )
    is_sample = models.BooleanField(_("sample price"), default=True)
    note = models.CharField(_("note"), max_length=200, blank=True)
    history = HistoricalRecords()

    class Meta:
        verbose_name = _("list price")
        verbose_name_plural = _("list prices")
        ordering = ["price_list", "product__sku"]
        constraints = [
            models.UniqueConstraint(fields=["price_list", "product"], name="catalog_price_unique"),
            models.CheckConstraint(
                condition=models.Q(amount__gte=0), name="catalog_price_not_negative"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.product.sku}: {self.amount} {self.price_list.currency}"


class PriceTier(models.Model):
    """From `min_quantity` units on, each unit costs `unit_price`."""

    price = models.ForeignKey(
        Price, on_delete=models.CASCADE, related_name="tiers", verbose_name=_("price")
    )
    min_quantity = models.PositiveIntegerField(
        _("from quantity"), validators=[MinValueValidator(2)]
    )
    unit_price = models.DecimalField(
        _("unit price"), max_digits=14, decimal_places=2, validators=[validate_not_negative]
    )
    history = HistoricalRecords()

    class Meta:
        verbose_name = _("quantity tier")
        verbose_name_plural = _("quantity tiers")
        ordering = ["min_quantity"]
        constraints = [
            models.UniqueConstraint(fields=["price", "min_quantity"], name="catalog_tier_unique"),
            models.CheckConstraint(
                condition=models.Q(unit_price__gte=0), name="catalog_tier_not_negative"
            ),
        ]

    def __str__(self) -> str:
        return f"≥ {self.min_quantity}: {self.unit_price}"

    def clean(self) -> None:
        if self.price_id and self.unit_price is not None and self.unit_price > self.price.amount:
            raise ValidationError(
                {"unit_price": _("A quantity tier cannot cost more than the list price.")}
            )


class ContractPrice(models.Model):
    """A price agreed with one customer, overriding the list price while valid."""

    customer = models.ForeignKey(
        "customers.Customer",
        on_delete=models.CASCADE,
        related_name="contract_prices",
        verbose_name=_("customer"),
    )
    product = models.ForeignKey(
        Product, on_delete=models.CASCADE, related_name="contract_prices", verbose_name=_("product")
    )
    currency = models.CharField(
        _("currency"), max_length=3, choices=Currency.choices, default=Currency.CNY
    )
    amount = models.DecimalField(
        _("contract price"), max_digits=14, decimal_places=2, validators=[validate_not_negative]
    )
    valid_from = models.DateField(_("valid from"))
    valid_until = models.DateField(_("valid until"), null=True, blank=True)
    is_sample = models.BooleanField(_("sample price"), default=True)
    note = models.CharField(_("note"), max_length=200, blank=True)
    history = HistoricalRecords()

    class Meta:
        verbose_name = _("contract price")
        verbose_name_plural = _("contract prices")
        ordering = ["customer", "product__sku", "-valid_from"]
        constraints = [
            models.UniqueConstraint(
                fields=["customer", "product", "currency", "valid_from"],
                name="catalog_contract_price_unique",
            ),
            models.CheckConstraint(
                condition=models.Q(amount__gte=0), name="catalog_contract_not_negative"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.customer} · {self.product.sku}: {self.amount} {self.currency}"

    def clean(self) -> None:
        if self.valid_from and self.valid_until and self.valid_until < self.valid_from:
            raise ValidationError({"valid_until": _("The price cannot end before it starts.")})
