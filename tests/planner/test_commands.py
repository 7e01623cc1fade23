"""`manage.py size`: the same request as the API, text or JSON out, one line on bad input."""

import json
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from tests.conftest import worker_env

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


def size(*args: str) -> str:
    out = StringIO()
    call_command("size", *args, stdout=out)
    return out.getvalue()


def test_json_output_for_two_superpod_sus(catalog):
    out = size(
        "--gpus", "512", "--gpus-per-server", "8", "--nic-speed", "400", "--rails", "8",
        "--fabric", "rail", "--leaf", "64x400", "--spine", "64x400", "--oversubscription", "1",
        "--format", "json",
    )  # fmt: skip
    result = json.loads(out)
    # RA-11333, 2 SU: 64 servers x 8 rails, 64-port switches at 1:1 -> 16 leaves, 8 spines.
    assert result["switches"] == {"leaf": 16, "spine": 8}
    # 512 GPUs x 400G, half of them talking across the cut: 512 * 400 / 2 Gbps.
    assert result["bisection_gbps"] == 512 * 400 // 2
    for key in ("servers", "links", "cables_total", "transceivers_total", "oversubscription",
                "bom", "warnings"):  # fmt: skip
        assert key in result


def test_text_output_is_a_table(catalog):
    out = size("--gpus", "256", "--nic-speed", "400", "--leaf", "64x400")
    assert "leaf" in out
    assert "spine" in out


def test_request_file_round_trips(catalog, tmp_path):
    first = json.loads(size("--gpus", "256", "--nic-speed", "400", "--leaf", "64x400",
                            "--format", "json"))  # fmt: skip
    path = tmp_path / "request.json"
    path.write_text(json.dumps(first["request"]))
    again = json.loads(size("--request", str(path), "--format", "json"))
    assert again["switches"] == first["switches"]
    assert again["bom"] == first["bom"]


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--gpus", "0", "--nic-speed", "400"], "gpus"),
        (["--gpus", "-8", "--nic-speed", "400"], "gpus"),
        (["--gpus", "10000000", "--nic-speed", "400"], "gpus"),
        (["--gpus", "256", "--nic-speed", "400", "--leaf", "NOPE-1"], "leaf"),
        (["--gpus", "256", "--nic-speed", "800", "--leaf", "64x400"], "leaf"),
        (["--gpus", "256", "--nic-speed", "400", "--oversubscription", "0.5"], "oversubscription"),
    ],
)
def test_bad_input_is_one_clear_line(catalog, args, needle):
    with pytest.raises(CommandError) as excinfo:
        size(*args)
    message = str(excinfo.value)
    assert needle in message
    assert "\n" not in message


def test_missing_request_file_is_one_line(tmp_path):
    with pytest.raises(CommandError, match="Cannot read"):
        size("--request", str(tmp_path / "nope.json"))


def test_bad_json_file_is_one_line(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text("{gpus: 8")
    with pytest.raises(CommandError, match="not valid JSON"):
        size("--request", str(path))


@pytest.mark.slow
def test_exit_status_is_non_zero_and_nothing_is_printed_as_a_design(settings):
    result = subprocess.run(
        [sys.executable, "manage.py", "size", "--gpus", "0", "--nic-speed", "400"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        # INFO, as a shell on the default settings logs: nothing logged at start-up (django-axes
        # announced its version there) may come between the user and the one line.
        env={**worker_env(settings), "LOG_LEVEL": "INFO"},
    )
    assert result.returncode != 0
    assert result.stdout == ""
    error_lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(error_lines) == 1, result.stderr
    assert "gpus" in error_lines[0]


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({"LANG": "en_US.UTF-8"}, "en"),
        ({"LANG": "zh_CN.UTF-8"}, "zh-hans"),
        ({"LANG": "zh_CN.UTF-8", "LC_ALL": "en_GB.UTF-8"}, "en"),  # LC_ALL wins, as in POSIX
        ({"LANG": "en_US.UTF-8", "LC_MESSAGES": "zh_TW.UTF-8"}, "zh-hans"),
        ({"LANG": "C.UTF-8"}, "zh-hans"),  # no language asked for: the site's (LANGUAGE_CODE)
        ({}, "zh-hans"),
    ],
)
def test_the_cli_speaks_the_shells_language(environ, expected, settings):
    from planner.management.commands.size import language_from_environment

    settings.LANGUAGE_CODE = "zh-hans"
    assert language_from_environment(environ) == expected


@pytest.mark.parametrize(
    ("lang", "message"),
    [("en", "GPUs must be between 1 and 1,000,000; got 0."), ("zh-hans", "当前为 0")],
)
def test_cli_errors_come_in_the_language_asked_for(catalog, lang, message):
    """Found: errors came in Chinese in an English shell (issue 26's minor defects)."""
    with pytest.raises(CommandError) as refused:
        call_command("size", "--gpus", "0", "--lang", lang)
    assert message in str(refused.value)
