"""A design whose breakouts run over splitter fibre (issue 26), through the service, the design
page and the API: the harness is named as a breakout harness in the reader's language and
flagged to be priced, the modules at both ends are the catalog's."""

import pytest

from planner.services import design_create

pytestmark = pytest.mark.django_db

# 100G leaves (NVIDIA SN2700, 32 x QSFP28) under 400G spines (Arista 7060DX5-64S, QSFP-DD) on
# single-mode: each spine cage holds a QDD-400G-DR4 split four ways to MMS1V70-CM modules.
REQUEST = {
    "gpus": 256, "nic_speed": 100, "leaf": "MSN2700-CS2F", "spine": "DCS-7060DX5-64S",
    "media": "smf", "fabric": "rail",
}  # fmt: skip


@pytest.mark.parametrize(
    ("language", "kind_label"), [("en", "Breakout harness"), ("zh-hans", "扇出跳线")]
)
def test_the_design_page_names_the_harness(catalog, engineer, client, language, kind_label):
    design = design_create(owner=engineer, name="split", request_data=REQUEST)
    fibre = [
        part
        for link in design.result["links"]
        for part in link["fibre"]
        if part["kind"] == "splitter"
    ]
    assert fibre, "the spine-leaf links run over splitters"
    client.force_login(engineer)
    page = client.get(f"/designs/{design.pk}/", HTTP_ACCEPT_LANGUAGE=language)
    assert page.status_code == 200
    html = page.content.decode()
    assert kind_label in html
    assert "QDD-400G-DR4" in html
    assert "MMS1V70-CM" in html
