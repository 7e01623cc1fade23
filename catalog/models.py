"""The catalog: products with typed specifications, media rules and prices.

Every spec is typed (one-to-one spec models, child rows for port groups, breakouts and reaches):
the sizing engine reads them through `catalog.snapshot`, never from free text. Money is Decimal.
Validation lives in `clean()` so that the admin, the importer and the seed loader give the same
per-field errors."""

from __future__ import annotations

from decimal import Decimal
from enum import Enum
from typing import Any

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator, RegexValidator
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
    def is_sellable(self) -> bool:
        return self.lifecycle in SELLABLE_LIFECYCLES

    @property
    def spec(self) -> models.Model | None:
        related = SPEC_FOR_CATEGORY.get(self.category)
        if not related:
            return None
        try:
            return getattr(self, related)  # type: ignore[no-any-return]
        except models.ObjectDoesNotExist:
            return None


class NicSpec(models.Model):
    product = models.OneToOneField(
        Product, on_delete=models.CASCADE, primary_key=True, related_name="nic_spec"
    )
    ports = models.PositiveSmallIntegerField(_("ports"), validators=[MinValueValidator(1)])
    speed_gbps = models.PositiveIntegerField(
        _("port speed (Gb/s)"), validators=[MinValueValidator(1)]
    )
    form_factor = models.CharField(_("form factor"), max_length=10, choices=FORM_FACTOR_CHOICES)
    pcie_gen = models.PositiveSmallIntegerField(
        _("PCIe generation"), validators=[MinValueValidator(1)]
    )
    pcie_lanes = models.PositiveSmallIntegerField(
        _("PCIe lanes"), choices=[(n, f"x{n}") for n in (1, 2, 4, 8, 16, 32)]
    )
    rocev2 = models.BooleanField(_("RoCEv2"), default=True)
    sriov_vfs = models.PositiveIntegerField(_("SR-IOV virtual functions"), default=0)
    power_w = models.DecimalField(
        _("max power (W)"), max_digits=7, decimal_places=2, validators=[validate_positive]
    )
    history = HistoricalRecords()

    class Meta:
        verbose_name = _("NIC specification")
        verbose_name_plural = _("NIC specifications")

    def __str__(self) -> str:
        return f"{self.ports} x {self.speed_gbps}G {self.form_factor}"

    def clean(self) -> None:
        if self.pcie_gen is not None and self.pcie_gen > 6:
            raise ValidationError({"pcie_gen": _("PCIe generations run from 1 to 6.")})


class TransceiverSpec(models.Model):
    product = models.OneToOneField(
        Product, on_delete=models.CASCADE, primary_key=True, related_name="transceiver_spec"
    )
    form_factor = models.CharField(_("form factor"), max_length=10, choices=FORM_FACTOR_CHOICES)
    speed_gbps = models.PositiveIntegerField(
        _("module speed (Gb/s)"),
        validators=[MinValueValidator(1)],
        help_text=_("Per module: a twin-port 800G module serves two 400G links."),
    )
    standard = models.CharField(_("standard"), max_length=40, help_text=_("e.g. 25GBASE-SR"))
    media = models.CharField(
        _("media"),
        max_length=4,
        choices=[
            (MediaChoices.MMF.value, MediaChoices.MMF.label),
            (MediaChoices.SMF.value, MediaChoices.SMF.label),
        ],
    )
    connector = models.CharField(
        _("connector"),
        max_length=CONNECTOR_MAX_LENGTH,
        choices=CONNECTOR_CHOICES,
        help_text=_("MPO-12 is UPC polish; MPO-12/APC is angled (NVIDIA NDR/XDR-class modules)."),
    )
    power_w = models.DecimalField(
        _("max power (W)"), max_digits=7, decimal_places=2, validators=[validate_positive]
    )
    links_per_module = models.PositiveSmallIntegerField(
        _("links per module"),
        default=1,
        validators=[MinValueValidator(1)],
        help_text=_("2 for twin-port modules."),
    )
    breakout_ways = models.PositiveSmallIntegerField(
        _("breakout ways"),
        default=1,
        validators=[MinValueValidator(1)],
        help_text=_("e.g. 4 for a 400G DR4 used as 4 x 100G DR."),
    )
    history = HistoricalRecords()

    class Meta:
        verbose_name = _("transceiver specification")
        verbose_name_plural = _("transceiver specifications")

    def __str__(self) -> str:
        return f"{self.standard} {self.form_factor}"

    def clean(self) -> None:
        if self.speed_gbps and self.links_per_module and self.breakout_ways:
            split = self.links_per_module * self.breakout_ways
            if self.speed_gbps % split:
                raise ValidationError(
                    {
                        "breakout_ways": _(
                            "%(speed)sG cannot be split into %(links)s link(s) x %(ways)s ways "
                            "of whole Gb/s."
                        )
                        % {
                            "speed": self.speed_gbps,
                            "links": self.links_per_module,
                            "ways": self.breakout_ways,
                        }
                    }
                )


class TransceiverReach(models.Model):
    transceiver = models.ForeignKey(
        TransceiverSpec,
        on_delete=models.CASCADE,
        related_name="reaches",
        verbose_name=_("transceiver"),
    )
    fibre_type = models.CharField(_("fibre type"), max_length=4, choices=FIBRE_TYPE_CHOICES)
    reach_m = models.DecimalField(
        _("reach (m)"), max_digits=8, decimal_places=2, validators=[validate_positive]
    )
    history = HistoricalRecords()

    class Meta:
        verbose_name = _("reach")
        verbose_name_plural = _("reaches")
        ordering = ["fibre_type"]
        constraints = [
            models.UniqueConstraint(
                fields=["transceiver", "fibre_type"], name="catalog_reach_unique"
            ),
            models.CheckConstraint(
                condition=models.Q(reach_m__gt=0), name="catalog_reach_positive"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.reach_m} m {self.fibre_type}"

    def clean(self) -> None:
        spec = self.transceiver if self.transceiver_id else None
        if spec is None or not self.fibre_type:
            return
        single_mode = self.fibre_type == FibreType.OS2.value
        if spec.media == MediaChoices.MMF and single_mode:
            raise ValidationError({"fibre_type": _("A multimode transceiver has no OS2 reach.")})
        if spec.media == MediaChoices.SMF and not single_mode:
            raise ValidationError(
                {"fibre_type": _("A single-mode transceiver runs over OS2 only.")}
            )


class CableKind(models.TextChoices):
    ASSEMBLY = "assembly", _("Cable assembly")
    TRUNK = "trunk", _("Fibre trunk")
    PATCH_CORD = "patch_cord", _("Patch cord")


class CableSpec(models.Model):
    """Copper (DAC/AEC/UTP), AOC and passive fibre. A breakout has one A end and `breakout_ways`
    identical B legs; its speed is the A end's speed."""

    product = models.OneToOneField(
        Product, on_delete=models.CASCADE, primary_key=True, related_name="cable_spec"
    )
    kind = models.CharField(
        _("kind"), max_length=12, choices=CableKind.choices, default=CableKind.ASSEMBLY
    )
    media = models.CharField(_("media"), max_length=4, choices=MediaChoices.choices)
    end_a = models.CharField(
        _("end A form factor"), max_length=10, choices=FORM_FACTOR_CHOICES, blank=True
    )
    end_b = models.CharField(
        _("end B form factor"),
        max_length=10,
        choices=FORM_FACTOR_CHOICES,
        blank=True,
        help_text=_("For a breakout, the form factor of each leg."),
    )
    speed_gbps = models.PositiveIntegerField(
        _("speed (Gb/s)"), default=0, help_text=_("End A speed; 0 for passive fibre.")
    )
    length_m = models.DecimalField(
        _("length (m)"), max_digits=7, decimal_places=2, validators=[validate_positive]
    )
    breakout_ways = models.PositiveSmallIntegerField(
        _("breakout ways"), default=1, validators=[MinValueValidator(1)]
    )
    fibre_type = models.CharField(
        _("fibre type"), max_length=4, choices=FIBRE_TYPE_CHOICES, blank=True
    )
    connector = models.CharField(
        _("connector"),
        max_length=CONNECTOR_MAX_LENGTH,
        choices=CONNECTOR_CHOICES,
        blank=True,
        help_text=_("MPO-12 is UPC polish; MPO-12/APC is angled: the two do not mate."),
    )
    strands = models.PositiveSmallIntegerField(_("fibre strands"), default=0)
    power_w = models.DecimalField(
        _("power per cable (W)"),
        max_digits=7,
        decimal_places=2,
        default=ZERO,
        validators=[validate_not_negative],
    )
    history = HistoricalRecords()

    class Meta:
        verbose_name = _("cable specification")
        verbose_name_plural = _("cable specifications")
        constraints = [
            models.CheckConstraint(
                condition=models.Q(length_m__gt=0), name="catalog_cable_length_positive"
            ),
        ]

    def __str__(self) -> str:
        if self.media in (MediaChoices.MMF, MediaChoices.SMF):
            return f"{self.connector} {self.fibre_type} {self.length_m} m"
        legs = f"{self.breakout_ways} x {self.end_b}" if self.breakout_ways > 1 else self.end_b
        return f"{self.speed_gbps}G {self.end_a} - {legs} {self.length_m} m"

    @property
    def is_fibre(self) -> bool:
        return self.media in (MediaChoices.MMF, MediaChoices.SMF)

    @property
    def leg_speed_gbps(self) -> int:
        return self.speed_gbps // self.breakout_ways if self.breakout_ways else 0

    def clean(self) -> None:
        errors: dict[str, Any] = {}
        product = self.product if self.product_id else None
        if product is not None and product.category not in CABLE_MEDIA_FOR_CATEGORY:
            raise ValidationError(
                {
                    "product": _("%(sku)s is a %(category)s, not a cable.")
                    % {"sku": product.sku, "category": product.get_category_display()}
                }
            )
        if product is not None:
            allowed = CABLE_MEDIA_FOR_CATEGORY[product.category]
            if self.media and self.media not in allowed:
                errors["media"] = _("Media %(media)s does not fit category %(category)s.") % {
                    "media": self.media,
                    "category": product.get_category_display(),
                }
        if self.is_fibre:
            if not self.fibre_type:
                errors["fibre_type"] = _("A fibre cable needs its fibre type.")
            elif (self.media == MediaChoices.SMF) != (self.fibre_type == FibreType.OS2.value):
                errors["fibre_type"] = _("Single-mode fibre is OS2; multimode is OM3, OM4 or OM5.")
            if not self.connector:
                errors["connector"] = _("A fibre cable needs its connector.")
            if not self.strands:
                errors["strands"] = _("A fibre cable needs its strand count.")
            if self.speed_gbps:
                errors["speed_gbps"] = _("Passive fibre has no speed: enter 0.")
        else:
            if not self.end_a:
                errors["end_a"] = _("Enter the A end's form factor.")
            if not self.end_b:
                errors["end_b"] = _("Enter the B end's form factor.")
            if not self.speed_gbps:
                errors["speed_gbps"] = _("Enter the cable's speed.")
            elif self.breakout_ways and self.speed_gbps % self.breakout_ways:
                errors["breakout_ways"] = _(
                    "%(speed)sG does not divide into %(ways)s equal legs."
                ) % {"speed": self.speed_gbps, "ways": self.breakout_ways}
        if errors:
            raise ValidationError(errors)


class PatchPanelSpec(models.Model):
    """A patch panel or MPO cassette: `ports` fibre ports of one connector in `rack_units`. Every
    run through it adds one mated connector pair, which costs `insertion_loss_db`."""

    product = models.OneToOneField(
        Product, on_delete=models.CASCADE, primary_key=True, related_name="patch_panel_spec"
    )
    connector = models.CharField(
        _("connector"),
        max_length=CONNECTOR_MAX_LENGTH,
        choices=CONNECTOR_CHOICES,
        help_text=_("MPO-12 is UPC polish; MPO-12/APC is angled: the two do not mate."),
    )
    ports = models.PositiveSmallIntegerField(_("ports"), validators=[MinValueValidator(1)])
    rack_units = models.PositiveSmallIntegerField(
        _("rack units"), validators=[MinValueValidator(1)]
    )
    insertion_loss_db = models.DecimalField(
        _("insertion loss per mated pair (dB)"),
        max_digits=5,
        decimal_places=2,
        validators=[validate_positive],
        help_text=_("e.g. 0.35 dB for a low-loss MPO, 0.25 dB for an LC (NVIDIA cabling spec)."),
    )
    fibre_type = models.CharField(
        _("fibre type"),
        max_length=4,
        choices=FIBRE_TYPE_CHOICES,
        blank=True,
        help_text=_("Only for cassettes built for one fibre type; empty for plain adapter panels."),
    )
    history = HistoricalRecords()

    class Meta:
        verbose_name = _("patch panel specification")
        verbose_name_plural = _("patch panel specifications")
        constraints = [
            models.CheckConstraint(
                condition=models.Q(insertion_loss_db__gt=0),
                name="catalog_patch_panel_loss_positive",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.ports} x {self.connector}, {self.rack_units}U"

    def clean(self) -> None:
        product = self.product if self.product_id else None
        if product is not None and product.category != Category.PATCH_PANEL:
            raise ValidationError(
                {
                    "product": _("%(sku)s is a %(category)s, not a patch panel.")
                    % {"sku": product.sku, "category": product.get_category_display()}
                }
            )


class SwitchSpec(models.Model):
    product = models.OneToOneField(
        Product, on_delete=models.CASCADE, primary_key=True, related_name="switch_spec"
    )
    switching_capacity_gbps = models.PositiveIntegerField(
        _("switching capacity (Gb/s)"),
        validators=[MinValueValidator(1)],
        help_text=_("As published by the vendor (some count both directions)."),
    )
    power_typical_w = models.DecimalField(
        _("typical power (W)"), max_digits=8, decimal_places=2, validators=[validate_positive]
    )
    power_max_w = models.DecimalField(
        _("max power (W)"), max_digits=8, decimal_places=2, validators=[validate_positive]
    )
    rack_units = models.PositiveSmallIntegerField(
        _("rack units"), validators=[MinValueValidator(1)]
    )
    history = HistoricalRecords()

    class Meta:
        verbose_name = _("switch specification")
        verbose_name_plural = _("switch specifications")

    def __str__(self) -> str:
        groups = self.port_groups.all() if self.pk else []
        return " + ".join(str(group) for group in groups) or str(self.switching_capacity_gbps)

    def clean(self) -> None:
        if (
            self.power_typical_w is not None
            and self.power_max_w is not None
            and self.power_max_w < self.power_typical_w
        ):
            raise ValidationError({"power_max_w": _("Max power cannot be below typical power.")})


class PortGroup(models.Model):
    switch = models.ForeignKey(
        SwitchSpec, on_delete=models.CASCADE, related_name="port_groups", verbose_name=_("switch")
    )
    position = models.PositiveSmallIntegerField(_("position"), default=0)
    count = models.PositiveSmallIntegerField(_("ports"), validators=[MinValueValidator(1)])
    speed_gbps = models.PositiveIntegerField(
        _("port speed (Gb/s)"), validators=[MinValueValidator(1)]
    )
    form_factor = models.CharField(_("form factor"), max_length=10, choices=FORM_FACTOR_CHOICES)
    history = HistoricalRecords()

    class Meta:
        verbose_name = _("port group")
        verbose_name_plural = _("port groups")
        ordering = ["position", "id"]

    def __str__(self) -> str:
        return f"{self.count} x {self.speed_gbps}G {self.form_factor}"


def breakout_error(port_speed_gbps: int, ways: int, speed_gbps: int) -> str | None:
    """Why a breakout does not divide a port, or None when it does (ways x speed = port speed)."""
    if ways < 2:
        return str(_("A breakout splits a port into at least 2 ways."))
    if ways * speed_gbps != port_speed_gbps:
        return str(
            _(
                "%(ways)s x %(speed)sG = %(total)sG does not divide a %(port)sG port: "
                "ways x speed must equal the port speed."
            )
            % {
                "ways": ways,
                "speed": speed_gbps,
                "total": ways * speed_gbps,
                "port": port_speed_gbps,
            }
        )
    return None


class PortBreakout(models.Model):
    port_group = models.ForeignKey(
        PortGroup, on_delete=models.CASCADE, related_name="breakouts", verbose_name=_("port group")
    )
    ways = models.PositiveSmallIntegerField(_("ways"), validators=[MinValueValidator(2)])
    speed_gbps = models.PositiveIntegerField(
        _("speed per way (Gb/s)"), validators=[MinValueValidator(1)]
    )
    history = HistoricalRecords()

    class Meta:
        verbose_name = _("breakout mode")
        verbose_name_plural = _("breakout modes")
        ordering = ["ways"]
        constraints = [
            models.UniqueConstraint(
                fields=["port_group", "ways", "speed_gbps"], name="catalog_breakout_unique"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.ways} x {self.speed_gbps}G"

    def clean(self) -> None:
        if not self.port_group_id or not self.ways or not self.speed_gbps:
            return
        message = breakout_error(self.port_group.speed_gbps, self.ways, self.speed_gbps)
        if message:
            raise ValidationError({"speed_gbps": message})


class ServiceUnit(models.TextChoices):
    PROJECT = "project", _("per project")
    DAY = "day", _("per engineer-day")
    YEAR = "year", _("per year")
    SWITCH_YEAR = "switch-year", _("per switch per year")
    GPU_YEAR = "gpu-year", _("per GPU per year")


class ServiceSpec(models.Model):
    product = models.OneToOneField(
        Product, on_delete=models.CASCADE, primary_key=True, related_name="service_spec"
    )
    unit = models.CharField(_("unit"), max_length=16, choices=ServiceUnit.choices)
    history = HistoricalRecords()

    class Meta:
        verbose_name = _("service specification")
        verbose_name_plural = _("service specifications")

    def __str__(self) -> str:
        return self.get_unit_display()


class ServerSpec(models.Model):
    """A customer-supplied GPU server: not sold, but a design's endpoints."""

    product = models.OneToOneField(
        Product, on_delete=models.CASCADE, primary_key=True, related_name="server_spec"
    )
    gpus = models.PositiveSmallIntegerField(_("GPUs"), validators=[MinValueValidator(1)])
    gpu_model = models.CharField(_("GPU model"), max_length=60)
    nic_slots = models.PositiveSmallIntegerField(
        _("PCIe slots for NICs"), validators=[MinValueValidator(1)]
    )
    history = HistoricalRecords()

    class Meta:
        verbose_name = _("server specification")
        verbose_name_plural = _("server specifications")

    def __str__(self) -> str:
        return f"{self.gpus} x {self.gpu_model}"


def parse_lengths(text: str) -> tuple[Decimal, ...]:
    """'0.5, 1, 2' -> (Decimal('0.5'), Decimal('1'), Decimal('2')); raises ValueError."""
    values: list[Decimal] = []
    for part in text.replace(";", ",").split(","):
        part = part.strip()
        if not part:
            continue
        try:
            value = Decimal(part)
        except ArithmeticError as exc:
            raise ValueError(part) from exc
        if not value.is_finite() or value <= 0:
            raise ValueError(part)
        values.append(value)
    return tuple(values)


def format_lengths(values: tuple[Decimal | float, ...] | list[Decimal | float]) -> str:
    return ", ".join(format(Decimal(str(v)).normalize(), "f") for v in values)


class MediaRule(models.Model):
    """The longest link a media may carry at a speed, and the lengths sold for it."""

    speed_gbps = models.PositiveIntegerField(_("speed (Gb/s)"), validators=[MinValueValidator(1)])
    media = models.CharField(_("media"), max_length=4, choices=MediaChoices.choices)
    max_reach_m = models.DecimalField(
        _("max reach (m)"), max_digits=8, decimal_places=2, validators=[validate_positive]
    )
    stock_lengths_m = models.CharField(
        _("stock lengths (m)"),
        max_length=200,
        blank=True,
        help_text=_("Comma-separated, e.g. 0.5, 1, 2, 3"),
    )
    source = models.CharField(_("source"), max_length=300, blank=True)
    history = HistoricalRecords()

    class Meta:
        verbose_name = _("media rule")
        verbose_name_plural = _("media rules")
        ordering = ["speed_gbps", "media"]
        constraints = [
            models.UniqueConstraint(
                fields=["speed_gbps", "media"], name="catalog_media_rule_unique"
            ),
            models.CheckConstraint(
                condition=models.Q(max_reach_m__gt=0), name="catalog_media_rule_reach_positive"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.speed_gbps}G {self.media} ≤ {self.max_reach_m} m"

    @property
    def stock_lengths(self) -> tuple[Decimal, ...]:
        try:
            return parse_lengths(self.stock_lengths_m)
        except ValueError:
            return ()

    def clean(self) -> None:
        try:
            lengths = parse_lengths(self.stock_lengths_m or "")
        except ValueError as exc:
            raise ValidationError(
                {
                    "stock_lengths_m": _("'%(value)s' is not a positive length in metres.")
                    % {"value": exc}
                }
            ) from exc
        if self.max_reach_m is not None and any(length > self.max_reach_m for length in lengths):
            raise ValidationError(
                {
                    "stock_lengths_m": _("A stock length exceeds the max reach of %(reach)s m.")
                    % {"reach": self.max_reach_m}
                }
            )


# --- Prices ------------------------------------------------------------------------


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
        return f"{self.name} ({self.currency})"

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
