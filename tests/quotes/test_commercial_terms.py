"""Commercial terms: VAT per line kind in percent, freight, payment milestones, support priced by
size, terms written from the lines; archiving and deleting drafts; the quote form's designs.

The quote of the `quote` fixture is the one of test_services.py: products 262,450.00 (13% VAT),
services 59,000.00 (6%); subtotal 321,450.00, tax 37,658.50, total 359,108.50."""

import json
from decimal import Decimal

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from catalog.models import PriceList
from quotes import pricing, services
from quotes.forms import QuoteCreateForm, TermsForm
from quotes.models import LineKind, Quote, QuoteStatus
from quotes.services.terms import revision_default_terms
from tests.quotes.factories import DesignFactory

pytestmark = pytest.mark.django_db
D = Decimal


def current(quote):
    quote.refresh_from_db()
    return quote.current_revision


# --- Pricing: VAT per rate ------------------------------------------------------------------------


def test_tax_is_worked_out_per_rate_and_the_bases_sum_to_the_subtotal():
    lines = [
        pricing.LineInput(key="goods", kind="product", quantity=2, list_price=D("500")),
        pricing.LineInput(key="svc", kind="service", quantity=1, list_price=D("500")),
        pricing.LineInput(key="ship", kind="freight", quantity=1, override_unit_price=D("200")),
        pricing.LineInput(key="opt", kind="product", quantity=1, list_price=D("999"),
                          optional=True),
    ]  # fmt: skip
    rates = {"product": D("0.13"), "service": D("0.06"), "freight": D("0.09")}
    totals = pricing.price_quote(lines, tax_rates=rates).totals
    # Goods 1,000 x 13% = 130; services 500 x 6% = 30; freight 200 x 9% = 18: tax 178.
    assert [(t.rate, t.base.amount, t.tax.amount) for t in totals.taxes] == [
        (D("0.13"), D("1000"), D("130.00")),
        (D("0.09"), D("200.00"), D("18.00")),
        (D("0.06"), D("500"), D("30.00")),
    ]
    assert totals.subtotal.amount == D("1700.00")  # the optional line is not in it
    assert (totals.tax.amount, totals.total.amount) == (D("178.00"), D("1878.00"))


# --- VAT in percent, milestones: services, the page, the API --------------------------------------


def test_quote_starts_with_the_price_lists_rates_and_terms_from_its_lines(quote):
    revision = current(quote)
    assert (revision.tax_percent, revision.services_tax_percent) == ("13", "6")
    assert revision.tax_breakdown == [
        {"rate": "13", "base": "262450.00", "tax": "34118.50"},  # 262,450 x 13%
        {"rate": "6", "base": "59000.00", "tax": "3540.00"},  # 59,000 x 6%
    ]
    # The quote lists installation days: the terms say installation is included.
    assert "Installation and tuning are included as listed." in revision.terms
    assert "Installation is not included" not in revision.terms
    assert "30% on completing Design" in revision.terms
    assert revision.payment_milestones == [
        {"phase": "design", "percent": "30"},
        {"phase": "full", "percent": "60"},
        {"phase": "acceptance", "percent": "10"},  # falls due: not the open-ended support
    ]


def test_chinese_terms_are_punctuated_as_chinese(quote):
    """Clauses separated by a full-width semicolon, sentences by nothing (each ends in 。)."""
    revision = current(quote)
    terms = revision_default_terms(revision, language="zh-hans")
    assert "完成“方案设计”时支付 30%；完成“规模上线”时支付 60%；" in terms, terms
    assert "; " not in terms
    assert "。 " not in terms
    assert terms.count("。") >= 5  # installation, freight, delivery, payment, warranty
    english = revision_default_terms(revision, language="en")
    assert "30% on completing Design; 60% on completing" in english
    assert ". Freight" in english


def test_terms_without_installation_lines_say_so(quote, engineer):
    revision = current(quote)
    for line in revision.lines.filter(sku=pricing.SERVICE_INSTALL_DAY):
        services.revision_line_delete(user=engineer, line=line)
    services.revision_commercial_update(user=engineer, revision=revision, regenerate_terms=True)
    assert "Installation is not included." in current(quote).terms


def test_a_tax_of_150_percent_is_refused_and_nothing_is_saved(quote, engineer):
    revision = current(quote)
    with pytest.raises(services.QuoteInvalid) as refused:
        services.revision_commercial_update(
            user=engineer, revision=revision, services_tax_percent="9", goods_tax_percent="150"
        )
    assert list(refused.value.errors) == ["goods_tax_percent"]
    revision = current(quote)
    # The valid services rate given in the same call was not saved either.
    assert (revision.tax_percent, revision.services_tax_percent) == ("13", "6")
    assert revision.total == D("359108.50")  # test_services.py's TOTAL, unchanged


def test_typing_13_means_13_percent(quote, engineer):
    revision = current(quote)
    services.revision_commercial_update(
        user=engineer, revision=revision, goods_tax_percent="9", services_tax_percent="13"
    )
    revision = current(quote)
    assert (revision.tax_rate, revision.services_tax_rate) == (D("0.09"), D("0.13"))
    # Goods 262,450 x 9% = 23,620.50; services 59,000 x 13% = 7,670.00; tax 31,290.50;
    # total 321,450 + 31,290.50 = 352,740.50.
    assert revision.tax == D("31290.50")
    assert revision.total == D("352740.50")


def test_milestones_must_sum_to_100(quote, engineer):
    revision = current(quote)
    bad = [{"phase": "design", "percent": "30"}, {"phase": "full", "percent": "60"}]
    with pytest.raises(services.QuoteInvalid, match="sum to 90%") as refused:
        services.revision_commercial_update(
            user=engineer, revision=revision, payment_milestones=bad, goods_tax_percent="9"
        )
    assert list(refused.value.errors) == ["payment_milestones"]
    assert current(quote).tax_percent == "13"  # nothing half-saved
    with pytest.raises(services.QuoteInvalid, match="not a phase"):
        services.revision_commercial_update(
            user=engineer,
            revision=revision,
            payment_milestones=[{"phase": "lunch", "percent": "100"}],
        )
    good = [{"phase": "poc", "percent": "20"}, {"phase": "operations", "percent": "80"}]
    services.revision_commercial_update(user=engineer, revision=revision, payment_milestones=good)
    assert current(quote).payment_milestones == good


def test_the_terms_form_takes_percent_and_refuses_150(quote, engineer, client):
    base = {
        "terms": "Net 30", "validity_days": "30", "services_tax_percent": "6",
        "freight_tax_percent": "9", "milestone_design": "30", "milestone_full": "70",
    }  # fmt: skip
    form = TermsForm({**base, "goods_tax_percent": "150"})
    assert not form.is_valid()
    assert "goods_tax_percent" in form.errors
    assert not TermsForm({**base, "goods_tax_percent": "13", "milestone_full": "60"}).is_valid()

    client.force_login(engineer)
    url = reverse("quotes:revision-terms", args=[quote.pk, 0])
    page = client.post(url, {**base, "goods_tax_percent": "150"}, follow=True).content.decode()
    assert "VAT on goods (%)" in page  # the error names the field by its label
    assert current(quote).terms != "Net 30"
    client.post(url, {**base, "goods_tax_percent": "13"})
    revision = current(quote)
    assert (revision.terms, revision.tax_percent) == ("Net 30", "13")
    assert revision.payment_milestones == [
        {"phase": "design", "percent": "30"}, {"phase": "full", "percent": "70"},
    ]  # fmt: skip


def test_the_api_takes_percent_and_answers_400_naming_the_field(quote, engineer):
    api = APIClient()
    api.force_authenticate(engineer)
    url = f"/api/v1/quotes/{quote.pk}/terms/"
    response = api.patch(url, {"goods_tax_percent": "150"}, format="json")
    assert response.status_code == 400, response.content
    assert "goods_tax_percent" in json.dumps(response.json())
    response = api.patch(
        url,
        {"payment_milestones": [{"phase": "design", "percent": "50"}], "goods_tax_percent": "9"},
        format="json",
    )
    assert response.status_code == 400, response.content
    assert "payment_milestones" in json.dumps(response.json())
    assert current(quote).tax_percent == "13"
    response = api.patch(url, {"goods_tax_percent": "13", "services_tax_percent": "6"},
                         format="json")  # fmt: skip
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["goods_tax_percent"], body["services_tax_percent"]) == ("13", "6")
    assert body["total"] == "359108.50"  # the rates it started with: test_services.py's TOTAL


def test_freight_is_a_line_taxed_at_the_freight_rate(quote, engineer):
    revision = current(quote)
    line = services.revision_freight_set(user=engineer, revision=revision, amount=D("1000"))
    assert (line.kind, line.line_total, line.tax_rate) == (LineKind.FREIGHT, D("1000"), D("0.09"))
    revision = current(quote)
    # 359,108.50 + 1,000 + 9% of it (90) = 360,198.50.
    assert revision.total == D("360198.50")
    services.revision_freight_set(user=engineer, revision=revision, amount=D("2000"))
    assert current(quote).lines.filter(kind=LineKind.FREIGHT).count() == 1  # one freight line
    services.revision_freight_set(user=engineer, revision=revision, amount=None)
    assert current(quote).total == D("359108.50")  # without freight again


# --- Support by size ------------------------------------------------------------------------------


def test_support_is_priced_per_gpu_when_the_price_list_says_so(catalog, engineer, customer):
    PriceList.objects.filter(code="CNY-2026").update(support_basis="gpu")
    design = DesignFactory(owner=engineer)
    quote = services.quote_create(user=engineer, design=design, customer=customer,
                                  support_years=2)  # fmt: skip
    support = current(quote).lines.get(tier="support")
    # 32 GPUs x 2 years = 64 GPU-years at 2,000.00 = 128,000.00.
    assert (support.sku, support.quantity) == ("EZMAX-SVC-SUPPORT-GPU-YEAR", 64)
    assert support.line_total == D("128000.00")


def test_support_per_switch_grows_with_the_switches(quote):
    support = current(quote).lines.get(tier="support")
    # The design has 2 switches (a leaf and a management switch): 2 switch-years x 25,000.
    assert (support.sku, support.quantity, support.line_total) == (
        "EZMAX-SVC-SUPPORT-SWITCH-YEAR", 2, D("50000.00"),
    )  # fmt: skip


# --- Drafts: archive, restore, delete -------------------------------------------------------------


def test_a_draft_is_archived_restored_and_deleted(quote, engineer, client):
    client.force_login(engineer)
    listing = reverse("quotes:quote-list")
    assert quote.number in client.get(listing).content.decode()
    client.post(reverse("quotes:quote-archive", args=[quote.pk, "archive"]))
    assert quote.number not in client.get(listing).content.decode()
    assert quote.number in client.get(listing + "?archived=1").content.decode()
    page = client.get(reverse("quotes:quote-detail", args=[quote.pk])).content.decode()
    assert 'data-action="restore"' in page
    assert 'data-action="archive"' not in page
    services.quote_archive(user=engineer, quote=quote, archived=False)
    response = client.post(reverse("quotes:quote-archive", args=[quote.pk, "delete"]))
    assert response.status_code == 302
    assert not Quote.objects.filter(pk=quote.pk).exists()


def test_a_quote_once_sent_is_neither_archived_nor_deleted(quote, engineer):
    services.revision_send(user=engineer, revision=current(quote))
    with pytest.raises(services.ActionNotAllowed, match="only a draft"):
        services.quote_delete(user=engineer, quote=quote)
    revision = services.quote_revise(user=engineer, quote=quote)
    assert revision.status == QuoteStatus.DRAFT
    # Its new draft is a draft, but the quote was sent before: it stays on record.
    with pytest.raises(services.ActionNotAllowed, match="sent to the customer before"):
        services.quote_delete(user=engineer, quote=quote)
    with pytest.raises(services.ActionNotAllowed, match="sent to the customer before"):
        services.quote_archive(user=engineer, quote=quote)
    assert Quote.objects.filter(pk=quote.pk, archived_at__isnull=True).exists()


def test_the_api_archives_and_deletes_a_draft(quote, engineer):
    api = APIClient()
    api.force_authenticate(engineer)
    response = api.post(f"/api/v1/quotes/{quote.pk}/archive/")
    assert response.status_code == 200
    assert response.json()["archived_at"]
    assert api.delete(f"/api/v1/quotes/{quote.pk}/").status_code == 204
    assert api.get(f"/api/v1/quotes/{quote.pk}/").status_code == 404


# --- The quote form lists saved designs only ------------------------------------------------------


def test_the_quote_form_lists_saved_designs_with_gpus_fabric_and_date(catalog, engineer):
    saved = DesignFactory(owner=engineer, name="Phase 1")
    DesignFactory(owner=engineer, name="Phase 1", is_draft=True)
    form = QuoteCreateForm(user=engineer)
    choices = [label for value, label in form.fields["design"].choices if value]
    assert len(choices) == 1  # the draft of the same name is not offered
    label = choices[0]
    assert label.startswith(f"Phase 1 · #{saved.pk} · 32 GPUs · ")
    assert f"{saved.updated_at:%Y-%m-%d}"[:4] in label


def test_the_api_records_the_sales_engineers_phone(catalog, engineer, design, customer):
    engineer.first_name, engineer.last_name, engineer.email = "Wei", "Zhang", "wei@ezmax.example"
    engineer.save()
    api = APIClient()
    api.force_authenticate(engineer)
    body = {"design": design.pk, "customer": customer.pk, "contact_phone": "+86 21 5555 0100"}
    response = api.post("/api/v1/quotes/", body, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["sales_contact"] == {
        "name": "Wei Zhang", "email": "wei@ezmax.example", "phone": "+86 21 5555 0100",
    }  # fmt: skip
    # The next quote without a phone takes the one given last.
    response = api.post("/api/v1/quotes/", {**body, "contact_phone": None}, format="json")
    assert response.json()["sales_contact"]["phone"] == "+86 21 5555 0100"
