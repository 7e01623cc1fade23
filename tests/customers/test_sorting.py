"""Customers listed in the order each reader looks for them (issue 27, item 7): by the name
shown first in the reader's language, Chinese names by their pinyin, as a Chinese address book
sorts, instead of by the English name (empty for many Chinese customers, so they all came
first) or by code point (阿 U+963F after 重 U+91CD, though a comes before c)."""

import importlib

import pytest
from django.apps import apps
from django.urls import reverse
from django.utils import translation
from hypothesis import given
from hypothesis import strategies as st

from customers.models import Customer
from customers.selectors import customer_search, customers_visible_to
from customers.services import customer_create, customer_update
from customers.sorting import sort_key, sort_keys


def test_chinese_names_sort_by_their_pinyin_polyphones_by_their_words():
    # Xinhua Zidian: 阿 ā, 里 lǐ, 云 yún; 重庆 is Chóngqìng (重 zhòng alone); 银行 yínháng (行 xíng
    # alone); tones are left out, as a pinyin index ignores them first.
    assert sort_key("阿里云") == "a li yun"
    assert sort_key("重庆银行") == "chong qing yin hang"
    assert sort_key("NVIDIA 中国") == "nvidia zhong guo"  # Latin kept, case folded
    assert sort_key("阿里云") < sort_key("北京字节跳动") < sort_key("重庆银行")
    assert "阿里云" > "重庆银行"  # what code-point order would have done
    # Each reader sorts by the name they see first; one name serves both.
    assert sort_keys("Alibaba Cloud", "阿里云") == ("alibaba cloud", "a li yun")
    assert sort_keys("", "阿里云") == ("a li yun", "a li yun")


@given(st.text(max_size=40))
def test_a_key_is_case_free_and_has_no_runs_of_spaces(name):
    key = sort_key(name)
    assert key == key.casefold()
    assert "  " not in key
    assert key == key.strip()


def _names(customers) -> list[str]:
    return [c.name_en or c.name_zh for c in customers]


@pytest.mark.django_db
def test_each_reader_sees_the_list_in_their_order(client, engineer):
    # English keys: "yotta labs", "beta corp", "chong qing yin hang" -> Beta, 重庆银行, Yotta.
    # Chinese keys: "a er fa", "beta corp", "chong qing yin hang" -> 阿尔法 (Yotta), Beta, 重庆.
    customer_create(user=engineer, name_en="Yotta Labs", name_zh="阿尔法")
    customer_create(user=engineer, name_en="Beta Corp")
    customer_create(user=engineer, name_zh="重庆银行")
    with translation.override("en"):
        assert _names(customer_search(user=engineer)) == ["Beta Corp", "重庆银行", "Yotta Labs"]
        assert _names(customers_visible_to(engineer)) == ["Beta Corp", "重庆银行", "Yotta Labs"]
    with translation.override("zh-hans"):
        assert _names(customer_search(user=engineer)) == ["Yotta Labs", "Beta Corp", "重庆银行"]
    client.force_login(engineer)
    page = client.get(reverse("customers:customer-list"), headers={"Accept-Language": "zh-hans"})
    html = page.content.decode()
    assert html.index("阿尔法") < html.index("Beta Corp") < html.index("重庆银行")
    page = client.get(reverse("customers:customer-list"), headers={"Accept-Language": "en"})
    html = page.content.decode()
    assert html.index("Beta Corp") < html.index("重庆银行") < html.index("Yotta Labs")


@pytest.mark.django_db
def test_a_renamed_customer_moves_in_the_list(engineer):
    first = customer_create(user=engineer, name_en="Alpha")
    customer_create(user=engineer, name_en="Beta")
    customer_update(
        user=engineer, customer_id=first.pk, name_en="", name_zh="重庆银行",
        preferred_language="zh-hans",
    )  # fmt: skip
    first.refresh_from_db()
    assert (first.sort_en, first.sort_zh) == ("chong qing yin hang", "chong qing yin hang")
    with translation.override("en"):
        assert _names(customer_search(user=engineer)) == ["Beta", "重庆银行"]


@pytest.mark.django_db
def test_the_migration_fills_the_keys_of_existing_customers(engineer):
    customer_create(user=engineer, name_en="Alibaba Cloud", name_zh="阿里云")
    Customer.objects.update(sort_en="", sort_zh="")  # as rows were before the keys
    migration = importlib.import_module("customers.migrations.0003_customer_sort_keys")
    migration.fill_sort_keys(apps, None)
    assert Customer.objects.values_list("sort_en", "sort_zh").get() == (
        "alibaba cloud",
        "a li yun",
    )
