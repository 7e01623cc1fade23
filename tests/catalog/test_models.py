"""Model validation: clear errors per field."""

from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError
from django.utils import translation

from catalog.models import MediaRule, PortBreakout
from tests.catalog.factories import (
    CableSpecFactory,
    NicSpecFactory,
    PortGroupFactory,
    PriceFactory,
    ProductFactory,
    ReachFactory,
    TransceiverSpecFactory,
)

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(("ways", "speed"), [(2, 400), (4, 200), (8, 100)])
def test_breakouts_that_divide_an_800g_port(ways, speed):
    group = PortGroupFactory(speed_gbps=800)
    PortBreakout(port_group=group, ways=ways, speed_gbps=speed).full_clean()


@pytest.mark.parametrize(("ways", "speed"), [(3, 200), (2, 200), (4, 400)])
def test_breakouts_that_do_not_divide_an_800g_port(ways, speed):
    group = PortGroupFactory(speed_gbps=800)
    with pytest.raises(ValidationError) as info:
        PortBreakout(port_group=group, ways=ways, speed_gbps=speed).full_clean()
    assert "speed_gbps" in info.value.message_dict
    assert f"{ways} x {speed}G = {ways * speed}G" in info.value.message_dict["speed_gbps"][0]


def test_negative_price_is_a_field_error_and_a_database_constraint():
    price = PriceFactory.build(amount=Decimal("-0.01"), product=ProductFactory())
    price.price_list.save()
    with pytest.raises(ValidationError) as info:
        price.full_clean()
    assert "amount" in info.value.message_dict
    with pytest.raises(IntegrityError):
        PriceFactory(amount=Decimal("-0.01"))


def test_zero_reach_is_rejected():
    reach = ReachFactory.build(transceiver=TransceiverSpecFactory(), reach_m=0)
    with pytest.raises(ValidationError) as info:
        reach.full_clean()
    assert "reach_m" in info.value.message_dict


def test_single_mode_reach_on_a_multimode_module_is_rejected():
    reach = ReachFactory.build(transceiver=TransceiverSpecFactory(media="mmf"), fibre_type="OS2")
    with pytest.raises(ValidationError) as info:
        reach.full_clean()
    assert "fibre_type" in info.value.message_dict


def test_cable_checks():
    # 100G into 3 legs: 100 / 3 is not a whole number of Gb/s.
    cable = CableSpecFactory.build(
        product=ProductFactory(category="copper_cable"),
        end_a="QSFP28",
        end_b="SFP28",
        speed_gbps=100,
        breakout_ways=3,
    )
    with pytest.raises(ValidationError) as info:
        cable.full_clean()
    assert "breakout_ways" in info.value.message_dict

    fibre = CableSpecFactory.build(
        product=ProductFactory(category="fibre"),
        media="smf",
        end_a="",
        end_b="",
        speed_gbps=0,
        fibre_type="OM4",
        connector="",
        strands=0,
    )
    with pytest.raises(ValidationError) as info:
        fibre.full_clean()
    assert {"fibre_type", "connector", "strands"} <= set(info.value.message_dict)

    dac_as_fibre = CableSpecFactory.build(product=ProductFactory(category="fibre"), media="dac")
    with pytest.raises(ValidationError) as info:
        dac_as_fibre.full_clean()
    assert "media" in info.value.message_dict

    with pytest.raises(ValidationError) as info:
        CableSpecFactory.build(
            product=ProductFactory(category="copper_cable"), length_m=0
        ).full_clean()
    assert "length_m" in info.value.message_dict


def test_nic_needs_positive_power_and_sane_pcie():
    nic = NicSpecFactory.build(product=ProductFactory(), power_w=0, pcie_gen=7)
    with pytest.raises(ValidationError) as info:
        nic.full_clean()
    assert {"power_w", "pcie_gen"} <= set(info.value.message_dict)


def test_media_rule_stock_lengths():
    rule = MediaRule(speed_gbps=25, media="dac", max_reach_m=3, stock_lengths_m="1, 2, 5")
    with pytest.raises(ValidationError) as info:
        rule.full_clean()
    assert "stock_lengths_m" in info.value.message_dict  # 5 m > 3 m
    rule.stock_lengths_m = "1, two"
    with pytest.raises(ValidationError):
        rule.full_clean()
    rule.stock_lengths_m = "0.5, 1, 2, 3"
    rule.full_clean()
    assert rule.stock_lengths == (Decimal("0.5"), Decimal("1"), Decimal("2"), Decimal("3"))
    rule.max_reach_m = 0
    with pytest.raises(ValidationError) as info:
        rule.full_clean()
    assert "max_reach_m" in info.value.message_dict


def test_sku_must_be_url_safe():
    with pytest.raises(ValidationError) as info:
        ProductFactory.build(sku="bad sku/1", vendor=ProductFactory().vendor).full_clean()
    assert "sku" in info.value.message_dict


def test_name_follows_the_active_language():
    product = ProductFactory.build(name_en="Dual-port NIC", name_zh="双口网卡")
    with translation.override("zh-hans"):
        assert product.name == "双口网卡"
    with translation.override("en"):
        assert product.name == "Dual-port NIC"
    product.name_zh = ""
    with translation.override("zh-hans"):
        assert product.name == "Dual-port NIC"
