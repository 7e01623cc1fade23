"""Typed specifications, one-to-one with a product: NICs, transceivers and their reaches,
cables, patch panels, switches with their port groups and breakouts, services, servers."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.core.validators import MinValueValidator
from django.db import models
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords

from catalog.models.products import (
    CABLE_MEDIA_FOR_CATEGORY,
    CONNECTOR_CHOICES,
    CONNECTOR_MAX_LENGTH,
    FIBRE_TYPE_CHOICES,
    FORM_FACTOR_CHOICES,
    ZERO,
    Category,
    MediaChoices,
    Product,
    validate_not_negative,
    validate_positive,
)
from engine.catalog import FibreType


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
    SPLITTER = "splitter", _("Fibre splitter / breakout harness")


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
    leg_connector = models.CharField(
        _("leg connector"),
        max_length=CONNECTOR_MAX_LENGTH,
        choices=CONNECTOR_CHOICES,
        blank=True,
        help_text=_(
            "A splitter's legs (LC for an MPO to 4 x LC harness); blank: as the connector."
        ),
    )
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
            if (self.kind == CableKind.SPLITTER) != (self.breakout_ways > 1):
                errors["breakout_ways"] = _(
                    "A fibre splitter has two or more legs; other fibre has one."
                )
        elif self.kind == CableKind.SPLITTER:
            errors["kind"] = _("A splitter is passive fibre: choose multimode or single-mode.")
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
