"""Switch power in the seed is the switch without optics (the engine counts every module on its
own line), at typical and maximum load, each figure with its source note."""

from catalog.snapshot import snapshot_from_seed
from tests.catalog.conftest import seed_product


def test_every_seed_switch_states_power_without_optics(seed_data):
    switches = snapshot_from_seed(seed_data).switches
    assert switches
    for switch in switches:
        entry = seed_product(seed_data, switch.sku)
        assert "without optics" in entry["source"], switch.sku
        assert "without optics" in entry["description"]["en"], switch.sku
        assert 0 < switch.power_typical_w <= switch.power_max_w, switch.sku


def test_sn5600_power_is_the_switch_alone(seed_data):
    sn5600 = snapshot_from_seed(seed_data).by_sku()["MSN5600-VS2FC"]
    # ports-cages-and-plugs.md, Power: SN5610 (51.2T, 64 OSFP like the SN5600) is about 0.9 kW
    # typical without optics, about 2.1 kW with 64 twin-port optics at 15 W each.
    assert 800 <= sn5600.power_typical_w <= 1000
    assert abs(sn5600.power_max_w + 64 * 15 - 2100) <= 100
    # The old figures (1.7 kW typical) counted the optics, which the engine now adds itself.
    assert sn5600.power_typical_w < 1700
