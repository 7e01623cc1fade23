"""The wizard's product pickers name catalog products in the reader's language (issue 15 item 1):
the engine's snapshot carries only the English name, so the form reads the catalog's names when it
is built, in the language active then, with one query for both pickers."""

import pytest
from django.utils import translation

from catalog.models import Product
from catalog.selectors import catalog_snapshot
from planner.forms import WizardStepForm, step_by_key
from tests.conftest import load_seed_catalog

pytestmark = pytest.mark.django_db

# Names from catalog/seed/catalog.json (`name.en` / `name.zh` of each SKU); the ports in brackets
# are the seed's port groups (the SN2410: 48 x 25G + 8 x 100G; the ConnectX-6 Lx: 2 x 25G).
SWITCH = "MSN2410-CB2F"
SWITCH_LABEL = {
    "en": "NVIDIA Spectrum SN2410 48 x 25GbE + 8 x 100GbE top-of-rack switch (48x25G + 8x100G)",
    "zh-hans": "NVIDIA Spectrum SN2410 48 × 25GbE + 8 × 100GbE 接入交换机 (48x25G + 8x100G)",
}
NIC = "MCX631102AN-ADAT"
NIC_LABEL = {
    "en": f"{NIC}: NVIDIA ConnectX-6 Lx 2 x 25GbE SFP28 adapter (2 x 25G)",
    "zh-hans": f"{NIC}: NVIDIA ConnectX-6 Lx 双口 25GbE SFP28 网卡 (2 x 25G)",
}
# The generic entries keep their translated labels (locale/zh_Hans/LC_MESSAGES/django.po).
GENERIC_LABEL = {
    "en": "Generic 64 x 400G switch (no catalog price)",
    "zh-hans": "通用 64 x 400G 交换机（无目录价）",
}
NO_PRODUCT_LABEL = {
    "en": "No specific product: use the speed below",
    "zh-hans": "不指定产品：使用下方速率",
}


@pytest.fixture
def catalog():
    load_seed_catalog()
    return catalog_snapshot()


def _nics_form(catalog):
    step = step_by_key("nics")
    assert step is not None
    return WizardStepForm(step, catalog=catalog)


def test_pickers_follow_the_language_active_when_the_form_is_built(catalog):
    # English first, then Chinese, in one process: labels fixed at import would stay English.
    for language in ("en", "zh-hans"):
        with translation.override(language):
            form = _nics_form(catalog)
            switches = dict(form.switch_options)
            nics = {value: str(label) for value, label in form.fields["nic"].choices}
        assert switches[SWITCH] == SWITCH_LABEL[language], language
        assert switches["64x400"] == GENERIC_LABEL[language], language
        assert nics[NIC] == NIC_LABEL[language], language
        assert nics[""] == NO_PRODUCT_LABEL[language], language


def test_both_pickers_cost_one_query(catalog, django_assert_num_queries):
    # The nics step has both pickers and no customer field (whose queryset would be lazy anyway).
    with translation.override("zh-hans"), django_assert_num_queries(1):
        form = _nics_form(catalog)
    generic_switches = 4  # 64x800, 64x400, 32x400 and 48x25 (planner/forms.py)
    assert len(form.switch_options) == len(catalog.switches) + generic_switches
    assert len(form.fields["nic"].choices) == len(catalog.nics) + 1


def test_a_product_without_a_chinese_name_keeps_its_english_one(catalog):
    Product.objects.filter(sku=SWITCH).update(name_zh="")
    with translation.override("zh-hans"):
        form = _nics_form(catalog)
    assert dict(form.switch_options)[SWITCH] == SWITCH_LABEL["en"]
