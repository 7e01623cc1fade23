"""Switch-model arithmetic and its memo: memoised answers must equal fresh ones, per model."""

from __future__ import annotations

import pickle
from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from engine.fabric import split_ports, uplink_speeds
from engine.ports import SwitchModel, inline_model, leaf_capacity

SPEEDS = (10, 25, 50, 100, 200, 400, 800)


def _fresh(ports: int, speed: int) -> SwitchModel:
    # Not through inline_model's cache: a model whose memo is empty.
    model = inline_model(ports, speed)
    return SwitchModel(
        label=model.label,
        sku=None,
        description=model.description,
        port_groups=model.port_groups,
        power_w=model.power_w,
        rack_units=model.rack_units,
    )


@given(
    ports=st.integers(min_value=1, max_value=128),
    speed=st.sampled_from(SPEEDS),
    down=st.sampled_from(SPEEDS),
    downlinks=st.integers(min_value=0, max_value=600),
)
def test_memoised_leaf_capacity_equals_a_fresh_models(
    ports: int, speed: int, down: int, downlinks: int
) -> None:
    warm = inline_model(ports, speed)
    first = leaf_capacity(warm, down, speed, downlinks)
    again = leaf_capacity(warm, down, speed, downlinks)
    assert first == again == leaf_capacity(_fresh(ports, speed), down, speed, downlinks)


def test_a_64x800_leaf_answers_from_its_ports_not_from_another_models_memo() -> None:
    # 64 x 800G broken out 2 ways gives 128 x 400G; 64 x 400G gives 64. Asking the 800G model
    # first must not leak its answer into the 400G one (the memo lives on each model).
    big, small = inline_model(64, 800), inline_model(64, 400)
    assert big.logical_ports(400) == 128
    assert small.logical_ports(400) == 64
    # 1:1 on a single pool of 128 logical 400G ports: 64 down, 64 up.
    assert split_ports(big, 400, 400, Fraction(1)) == (64, 64)
    assert split_ports(small, 400, 400, Fraction(1)) == (32, 32)


def test_uplink_speeds_are_memoised_per_upper_model() -> None:
    leaf = _fresh(48, 25)  # 48 x 25G, which also run at 10G
    # A 400G spine breaks out to 200G and 100G only (ports.INLINE_BREAKOUTS): no common speed.
    assert uplink_speeds(leaf, inline_model(64, 400), 25) == ()
    # The same leaf with another upper model gets its own answer: 100G breaks out to 4 x 25G.
    assert uplink_speeds(leaf, inline_model(64, 100), 25) == (25,)
    assert uplink_speeds(leaf, inline_model(64, 400), 25) == ()


def test_a_model_with_its_memo_survives_pickling() -> None:
    model = _fresh(64, 400)
    model.logical_ports(100)
    copy = pickle.loads(pickle.dumps(model))
    assert copy == model
    assert copy.logical_ports(100) == 256  # 64 ports x 4 ways of 100G
