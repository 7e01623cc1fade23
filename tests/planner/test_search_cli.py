"""`manage.py size` with the search's request fields (issue 13): tolerance, planes, uplink speed
and build, and one line on bad input."""

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

pytestmark = pytest.mark.django_db


def size(*args: str) -> str:
    out = StringIO()
    call_command("size", *args, stdout=out)
    return out.getvalue()


def test_tolerance_keeps_two_tiers_from_the_cli(catalog):
    args = ("--gpus 2056 --nic-speed 400 --leaf 64x400 --spine 64x400 --fabric rail "
            "--oversubscription 1 --oversubscription-tolerance 0.1 --format json")  # fmt: skip
    result = json.loads(size(*args.split()))
    # 257 servers: 33 down / 31 up leaves (1.0645:1) keep 64 leaves under 64-port spines:
    # 64 leaves + 64 x 31 / 64 = 31 spines (tests/engine/test_search.py has the arithmetic).
    assert result["switches"] == {"leaf": 64, "spine": 31}


def test_build_today_and_planes_from_the_cli(catalog):
    today = json.loads(
        size("--gpus", "320", "--leaf", "64x400", "--build", "today", "--format", "json")
    )
    # 40 servers in 2 units of 20: 16 leaves, 16 x 20 uplinks / 64 ports -> 5 spines.
    assert today["switches"] == {"leaf": 16, "spine": 5}
    args = "--gpus 8192 --rails 16 --leaf 64x800 --planes 2 --format json"
    planes = json.loads(size(*args.split()))
    # Two planes of 8 rails, each k^2/2 = 8,192 endpoints of 128-port leaves: 2 x (128 + 64).
    assert planes["switches"] == {"leaf": 256, "spine": 128}


@pytest.mark.parametrize(
    ("option", "value", "field"),
    [
        ("--oversubscription-tolerance", "-0.5", "oversubscription_tolerance"),
        ("--planes", "3", "planes"),
        ("--uplink-speed", "300", "uplink_speed"),
        ("--build", "someday", "build"),
        ("--servers-per-su", "0", "servers_per_su"),
    ],
)
def test_bad_search_fields_are_one_line_naming_the_field(catalog, option, value, field):
    with pytest.raises(CommandError) as caught:
        size("--gpus", "1024", "--rails", "16", "--leaf", "64x400", option, value)
    message = str(caught.value)
    assert field in message
    assert "\n" not in message.strip()
