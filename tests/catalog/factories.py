import factory

from catalog.models import (
    CableSpec,
    NicSpec,
    PatchPanelSpec,
    PortBreakout,
    PortGroup,
    Price,
    PriceList,
    Product,
    SwitchSpec,
    TransceiverReach,
    TransceiverSpec,
    Vendor,
)


class VendorFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Vendor
        django_get_or_create = ("code",)

    code = "EZMAX"
    name = "EZMAX"
    is_own_brand = True


class ProductFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Product

    sku = factory.Sequence(lambda n: f"TEST-{n:04d}")
    category = "nic"
    vendor = factory.SubFactory(VendorFactory)
    name_en = factory.LazyAttribute(lambda o: f"Test product {o.sku}")
    name_zh = factory.LazyAttribute(lambda o: f"测试产品 {o.sku}")
    lifecycle = "available"


class NicSpecFactory(factory.django.DjangoModelFactory):
    """Defaults: EZMAX NETI710-4CP (brochure: 4 x 10G SFP+, PCIe 3.0 x8, 64 VFs, <= 15 W)."""

    class Meta:
        model = NicSpec

    product = factory.SubFactory(ProductFactory, category="nic")
    ports = 4
    speed_gbps = 10
    form_factor = "SFP+"
    pcie_gen = 3
    pcie_lanes = 8
    rocev2 = True
    sriov_vfs = 64
    power_w = 15


class TransceiverSpecFactory(factory.django.DjangoModelFactory):
    """Defaults: 25GBASE-SR SFP28, LC (IEEE 802.3by)."""

    class Meta:
        model = TransceiverSpec

    product = factory.SubFactory(ProductFactory, category="transceiver")
    form_factor = "SFP28"
    speed_gbps = 25
    standard = "25GBASE-SR"
    media = "mmf"
    connector = "LC"
    power_w = 1


class ReachFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = TransceiverReach

    transceiver = factory.SubFactory(TransceiverSpecFactory)
    fibre_type = "OM4"
    reach_m = 100  # 25GBASE-SR over OM4, IEEE 802.3by


class CableSpecFactory(factory.django.DjangoModelFactory):
    """Defaults: 25G SFP28 passive DAC, 3 m."""

    class Meta:
        model = CableSpec

    product = factory.SubFactory(ProductFactory, category="copper_cable")
    media = "dac"
    end_a = "SFP28"
    end_b = "SFP28"
    speed_gbps = 25
    length_m = 3


class SwitchSpecFactory(factory.django.DjangoModelFactory):
    """Defaults: a 64 x 800G OSFP switch, 64 x 800 = 51,200 Gb/s."""

    class Meta:
        model = SwitchSpec

    product = factory.SubFactory(ProductFactory, category="switch")
    switching_capacity_gbps = 51200
    power_typical_w = 1000
    power_max_w = 2000
    rack_units = 2


class PortGroupFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = PortGroup

    switch = factory.SubFactory(SwitchSpecFactory)
    count = 64
    speed_gbps = 800
    form_factor = "OSFP"


class BreakoutFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = PortBreakout

    port_group = factory.SubFactory(PortGroupFactory)
    ways = 2
    speed_gbps = 400


class PriceListFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = PriceList
        django_get_or_create = ("code",)

    code = "CNY-TEST"
    name = "Test list (sample)"
    currency = "CNY"
    valid_from = factory.Faker("past_date")
    is_default = True


class PriceFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Price

    price_list = factory.SubFactory(PriceListFactory)
    product = factory.SubFactory(ProductFactory)
    amount = "100.00"


class PatchPanelSpecFactory(factory.django.DjangoModelFactory):
    """Defaults: a 1U panel of 48 MPO-12/APC adapters, 0.35 dB per mated pair (NVIDIA
    structured-cabling requirements: low-loss MPO, IL max 0.35 dB)."""

    class Meta:
        model = PatchPanelSpec

    product = factory.SubFactory(ProductFactory, category="patch_panel")
    connector = "MPO-12/APC"
    ports = 48
    rack_units = 1
    insertion_loss_db = "0.35"
