"""The customer record a Chinese sales team can use (issue 27, item 7): either name may be the
only one, address, unified social credit code (GB 32100-2015, its check character computed
here by hand), billing contact; the same field messages from the services, the form and the
API; shown on the customer page, the quote page and the proposal's cover."""

import pytest
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation
from rest_framework.test import APIClient

from core.errors import DomainError
from customers.forms import CustomerForm
from customers.models import Customer
from customers.services import (
    contact_create,
    customer_create,
    customer_field_errors,
    customer_update,
)
from customers.tax_ids import check_character, tax_id_problem

# GB 32100-2015 4.2: C18 = 31 - (sum of Ci x Wi) mod 31, Wi = 1, 3, 9, 27, 19, 26, 16, 17, 20,
# 29, 25, 13, 8, 24, 10, 30, 28; values 0-9 then A=10 ... (no I O S V Z) ... M=21 ... Y=30.
# 91350100M000100Y4: 9x1 + 1x3 + 3x9 + 5x27 + 0x19 + 1x26 + 0x16 + 0x17 + M(21)x20 + 0x29
#   + 0x25 + 0x13 + 1x8 + 0x24 + 0x10 + Y(30)x30 + 4x28
#   = 9 + 3 + 27 + 135 + 26 + 420 + 8 + 900 + 112 = 1640; 1640 mod 31 = 28 (31 x 52 = 1612);
#   31 - 28 = 3.
VALID = "91350100M000100Y43"
# 91110000000000000: 9x1 + 1x3 + 1x9 + 1x27 = 48; 48 mod 31 = 17; 31 - 17 = 14, the letter E.
VALID_LETTER = "91110000000000000E"
# Seventeen zeros: the sum is 0, 31 - 0 = 31, written 0.
VALID_ZERO = "000000000000000000"


def test_check_character_from_first_principles():
    assert check_character(VALID[:17]) == "3"
    assert check_character(VALID_LETTER[:17]) == "E"
    assert check_character(VALID_ZERO[:17]) == "0"
    for code in (VALID, VALID_LETTER, VALID_ZERO):
        assert tax_id_problem(code) is None, code


@pytest.mark.parametrize(
    ("code", "problem"),
    [
        ("91350100M000100Y44", "check"),  # last character 4, the sum gives 3
        ("91350100M000100Y4", "length"),  # 17 characters
        ("91350100M000100Y430", "length"),  # 19
        ("91350100M000100I43", "characters"),  # I is not in the set (nor O, S, V, Z)
        ("91350100M0001O0Y43", "characters"),
        ("91A50100M000100Y43", "division"),  # characters 3-8 are the region's six digits
        ("91110000000000000F", "check"),  # E is right
    ],
)
def test_wrong_codes_are_named_by_what_is_wrong(code, problem):
    assert tax_id_problem(code) == problem


def test_either_name_is_enough_and_one_is_needed(engineer):
    customer = customer_create(
        user=engineer, name_zh=" 深圳智算中心 ", tax_id=" 91350100m000100y43 "
    )
    customer.refresh_from_db()
    assert (customer.name_en, customer.name_zh) == ("", "深圳智算中心")
    assert customer.tax_id == VALID  # spaces out, capitals: as printed on the licence
    with translation.override("en"):
        assert str(customer) == "深圳智算中心"  # no English name: the Chinese one
    with pytest.raises(DomainError) as caught:
        customer_create(user=engineer, name_en=" ", name_zh="")
    assert set(caught.value.errors) == {"name_en", "name_zh"}


def test_the_same_words_from_service_form_and_api(engineer):
    with translation.override("en"):
        expected = customer_field_errors(name_en="Lab", name_zh="", tax_id="91350100M000100Y44")
        assert expected == {
            "tax_id": "This unified social credit code's last character does not match the "
            "others: check it for a typing error."
        }
        with pytest.raises(DomainError) as caught:
            customer_create(user=engineer, name_en="Lab", tax_id="91350100M000100Y44")
        assert caught.value.errors == expected
        form = CustomerForm({"name_en": "Lab", "preferred_language": "en",
                             "tax_id": "91350100M000100Y44"})  # fmt: skip
        assert not form.is_valid()
        assert form.errors["tax_id"] == [expected["tax_id"]]
        form = CustomerForm({"name_zh": "深圳智算中心", "preferred_language": "zh-hans"})
        assert form.is_valid(), form.errors
        form = CustomerForm({"preferred_language": "zh-hans"})
        assert not form.is_valid()
        assert set(form.errors) == {"name_en", "name_zh"}
    client = APIClient()
    client.force_authenticate(engineer)
    url = "/api/v1/customers/by-external-id/crm/77/"
    response = client.put(
        url, {"name_en": "Lab", "tax_id": "91350100M000100Y44"}, format="json",
        HTTP_ACCEPT_LANGUAGE="en",
    )  # fmt: skip
    assert response.status_code == 400
    assert response.json()["errors"]["tax_id"] == [expected["tax_id"]]
    response = client.put(url, {}, format="json", HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 400
    assert set(response.json()["errors"]) == {"name_en", "name_zh"}
    response = client.put(
        url, {"name_zh": "深圳智算中心", "tax_id": VALID, "address": "深圳市南山区"}, format="json"
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["name_en"], body["name_zh"], body["tax_id"]) == ("", "深圳智算中心", VALID)
    assert body["address"] == "深圳市南山区"
    # An update that leaves out the address and tax id keeps them.
    response = client.put(url, {"name_zh": "深圳智算中心（南山）"}, format="json")
    assert response.status_code == 200
    assert (response.json()["tax_id"], response.json()["address"]) == (VALID, "深圳市南山区")


def test_billing_contact_is_one_of_the_customers_own(engineer):
    customer = customer_create(user=engineer, name_en="Lab")
    other = customer_create(user=engineer, name_en="Other lab")
    theirs = contact_create(user=engineer, customer_id=other.pk, name="Zhao")
    ours = contact_create(user=engineer, customer_id=customer.pk, name="Wang Fang",
                          email="wang@example.cn")  # fmt: skip
    fields = {"name_en": "Lab", "name_zh": "", "preferred_language": "zh-hans"}
    with pytest.raises(DomainError) as caught:
        customer_update(user=engineer, customer_id=customer.pk, billing_contact_id=theirs.pk,
                        **fields)  # fmt: skip
    assert set(caught.value.errors) == {"billing_contact"}
    customer_update(user=engineer, customer_id=customer.pk, billing_contact_id=ours.pk, **fields)
    assert Customer.objects.get(pk=customer.pk).billing_contact == ours


def _full_customer(engineer):
    customer = customer_create(
        user=engineer, name_en="Shenzhen AI Computing Center", name_zh="深圳智算中心",
        address="深圳市南山区科技园 1 号", tax_id=VALID,
    )  # fmt: skip
    contact = contact_create(user=engineer, customer_id=customer.pk, name="Wang Fang",
                             email="wang@example.cn", phone="+86 755 0000 0000")  # fmt: skip
    customer_update(
        user=engineer, customer_id=customer.pk, name_en=customer.name_en,
        name_zh=customer.name_zh, preferred_language="zh-hans", address=customer.address,
        tax_id=customer.tax_id, billing_contact_id=contact.pk,
    )  # fmt: skip
    return Customer.objects.get(pk=customer.pk)


@pytest.mark.parametrize(
    ("language", "first", "second"),
    [("zh-hans", "深圳智算中心", "Shenzhen AI Computing Center"),
     ("en", "Shenzhen AI Computing Center", "深圳智算中心")],
)  # fmt: skip
def test_customer_page_shows_the_record_reader_language_first(
    client, engineer, language, first, second
):
    customer = _full_customer(engineer)
    client.force_login(engineer)
    html = client.get(
        reverse("customers:customer-detail", args=[customer.pk]), HTTP_ACCEPT_LANGUAGE=language
    ).content.decode()
    heading = html.split('data-testid="customer-name">')[1].split("</h1>")[0]
    assert heading.index(first) < heading.index(second)
    assert "深圳市南山区科技园 1 号" in html.split('data-testid="customer-address">')[1][:80]
    assert VALID in html.split('data-testid="customer-tax-id">')[1][:80]
    billing = html.split('data-testid="customer-billing-contact">')[1][:300]
    assert "Wang Fang" in billing
    assert "wang@example.cn" in billing


def test_edit_form_picks_the_billing_contact_among_the_contacts(client, engineer):
    customer = _full_customer(engineer)
    client.force_login(engineer)
    url = reverse("customers:customer-edit", args=[customer.pk])
    html = client.get(url).content.decode()
    assert 'name="billing_contact"' in html
    assert "Wang Fang" in html
    wrong = {"name_zh": "深圳智算中心", "preferred_language": "zh-hans",
             "tax_id": "91350100M000100Y44", "billing_contact": ""}  # fmt: skip
    response = client.post(url, wrong)
    assert response.status_code == 200  # refused on the form
    assert Customer.objects.get(pk=customer.pk).tax_id == VALID
    response = client.post(url, {"name_zh": "深圳智算中心", "preferred_language": "zh-hans",
                                 "tax_id": "", "billing_contact": ""})  # fmt: skip
    assert response.status_code == 302
    saved = Customer.objects.get(pk=customer.pk)
    assert (saved.name_en, saved.tax_id, saved.billing_contact_id) == ("", "", None)


@pytest.mark.parametrize(
    ("language", "first", "second"),
    [("zh-hans", "深圳智算中心", "Shenzhen AI Computing Center"),
     ("en", "Shenzhen AI Computing Center", "深圳智算中心")],
)  # fmt: skip
def test_proposal_cover_names_the_customer_and_its_billing_details(
    engineer, language, first, second
):
    customer = _full_customer(engineer)
    with translation.override(language):
        html = render_to_string(
            "documents/cover.html",
            {"customer": customer, "revision": {"label": "Q-2026-00001"}, "contact": {},
             "result": {"gpus": 64}, "title": "Proposal"},
        )  # fmt: skip
    cell = html.split('data-testid="cover-customer">')[1].split("</td>")[0]
    # One language per document (issue 27, item 5): the name in the reader's language only.
    assert first in cell
    assert second not in cell
    assert "深圳市南山区科技园 1 号" in html
    assert VALID in html.split('data-testid="cover-tax-id">')[1][:40]
    assert "wang@example.cn" in html.split('data-testid="cover-billing-contact">')[1][:120]
