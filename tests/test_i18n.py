"""Chinese and English for every user-facing string: the zh-Hans catalogue is complete and well
formed, and the engine's own messages (field errors, infeasible designs, warnings, trade-offs)
reach a Chinese reader in Chinese."""

import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from django.utils import translation
from django.utils.translation import gettext

from catalog.services import SEED_PATH
from catalog.snapshot import snapshot_from_seed
from engine.errors import DesignError
from engine.request import RequestError, parse_request
from engine.search import alternatives
from engine.sizing import size
from engine.text import Text
from planner.i18n import localized_result, translated
from tests.conftest import require_service

ROOT = Path(__file__).resolve().parent.parent
PO = ROOT / "locale" / "zh_Hans" / "LC_MESSAGES" / "django.po"
CJK = re.compile(r"[\u4e00-\u9fff]")


def _gettext_tool(name: str) -> str:
    path = shutil.which(name)
    require_service(path is not None, f"{name} (Debian's gettext) is not installed")
    assert path is not None
    return path


def _msgids(po_text: str) -> set[str]:
    """The msgids of a .po/.pot file, continuation lines joined."""
    ids = set()
    for block in re.findall(r'^msgid ((?:".*"\n)+)', po_text, re.M):
        ids.add("".join(re.findall(r'"(.*)"', block)).encode().decode("unicode_escape"))
    return ids - {""}


def test_zh_catalogue_has_no_untranslated_or_fuzzy_entry_and_compiles():
    msgattrib = _gettext_tool("msgattrib")
    for flag in ("--untranslated", "--only-fuzzy"):
        out = subprocess.run(
            [msgattrib, flag, str(PO)], capture_output=True, text=True, check=True
        ).stdout
        assert _msgids(out) == set(), flag
    # Placeholders must match between English and Chinese, or rendering would fail.
    subprocess.run(
        [_gettext_tool("msgfmt"), "--check-format", "-o", os.devnull, str(PO)], check=True
    )


def test_every_engine_template_has_a_chinese_translation():
    # The engine marks its templates with gettext_noop; extract them straight from the source,
    # so a template added without `make messages` fails here, not in front of a customer.
    xgettext = _gettext_tool("xgettext")
    sources = sorted(str(p) for p in (ROOT / "engine").glob("*.py"))
    with tempfile.TemporaryDirectory() as tmp:
        pot = Path(tmp) / "engine.pot"
        subprocess.run(
            [xgettext, "--language=Python", "--keyword=gettext_noop", "--from-code=UTF-8",
             "-o", str(pot), *sources],
            check=True,
        )  # fmt: skip
        templates = _msgids(pot.read_text(encoding="utf-8"))
    assert len(templates) >= 50  # errors, warnings and notes (engine/*.py)
    with translation.override("zh-hans"):
        untranslated = sorted(t for t in templates if gettext(t) == t)
    assert untranslated == []


def _parts(message: Text):
    yield message
    for _name, value in message.params:
        if isinstance(value, Text):
            yield from _parts(value)
        elif isinstance(value, tuple):
            for part in value:
                yield from _parts(part)


@pytest.fixture(scope="module")
def seed_catalog():
    return snapshot_from_seed(json.loads(SEED_PATH.read_text(encoding="utf-8")))


def test_engine_messages_from_real_runs_render_in_chinese(seed_catalog):
    messages: list[Text] = []
    # A 10G SFP+ NIC on 25G SFP28 ports, 32 of 48 ports used: two warnings.
    design = size(
        parse_request(
            {"gpus": 64, "rails": 4, "nic": "NETI710-4CP", "leaf": "48x25"}, seed_catalog
        ),
        seed_catalog,
    )
    assert {w.code for w in design.warnings} >= {"speed_mismatch", "unused_ports"}
    messages += [w.message_text for w in design.warnings] + [w.action_text for w in design.warnings]
    # Open choices: alternatives with their trade-off notes.
    for option in alternatives(parse_request({"gpus": 1024}, seed_catalog), seed_catalog):
        messages += list(option.notes)
    # Field errors, a media error with its reasons, and a fabric too large.
    with pytest.raises(RequestError) as bad:
        parse_request(
            {"gpus": 0, "gpus_per_server": "x", "fabric": "mesh", "leaf": "99x7", "bogus": 1,
             "dual_homing": "maybe", "oversubscription": 0.5},
            seed_catalog,
        )  # fmt: skip
    messages += list(bad.value.texts.values())
    for request in (
        {"gpus": 1024, "leaf": "64x400", "media": "copper"},
        {"gpus": 100_000, "leaf": "64x400", "fabric": "rail"},
    ):
        with pytest.raises(DesignError) as infeasible:
            size(parse_request(request, seed_catalog), seed_catalog)
        messages.append(infeasible.value.text)
    with translation.override("zh-hans"):
        for message in messages:
            for part in _parts(message):
                assert gettext(part.template) != part.template, part.template
            assert CJK.search(translated(message)), translated(message)
    with translation.override("en"):
        shown = [translated(m) for m in messages]
    # English pages read the engine's English with its keys named: the plane "compute" as
    # "Compute fabric", request fields by the wizard's labels (the English catalogue words the
    # messages that quote a field's code).
    assert shown[0] == (
        "Compute fabric: the 10G NIC ports run below the 25G ports of leaf 48x25 "
        "(SFP+ NIC in SFP28 cages)."
    )
    assert "GPUs per server must be a whole number, not 'x'." in shown
    assert "Compute fabric Leaf: 16 of 48 ports free on each 48x25." in shown
    assert not [s for s in shown if re.search(r"\b(compute|gpus_per_server|dual_homing):? ", s)]


def test_a_stored_result_shows_its_warnings_in_the_readers_language(seed_catalog):
    from engine.serialize import design_to_dict

    request = {"gpus": 64, "rails": 4, "nic": "NETI710-4CP", "leaf": "48x25"}
    result = design_to_dict(size(parse_request(request, seed_catalog), seed_catalog))
    # The stored JSON keeps the English text for the API and the CLI.
    english = [w["message"] for w in result["warnings"]]
    assert any("run below the 25G ports" in m for m in english)
    with translation.override("zh-hans"):
        chinese = localized_result(result)
    assert [w["code"] for w in chinese["warnings"]] == [w["code"] for w in result["warnings"]]
    assert any(
        "网卡端口低于叶交换机 48x25 的 25G 端口速率" in w["message"] for w in chinese["warnings"]
    )
    assert result["warnings"][0]["message"] == english[0]  # the stored copy is untouched
