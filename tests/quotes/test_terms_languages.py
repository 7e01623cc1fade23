"""Terms and the audit trail read in the reader's language (issue 15 item 1): the terms the code
writes are kept in English and Chinese (QuoteRevision.terms_written) and shown in the reader's
language until someone types their own, which are then shown as typed; the trail names its
stored codes, and a line's description, in the reader's language (quotes.history)."""

from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import translation

from quotes import services
from quotes.history import history_rows
from quotes.models import AuditAction

pytestmark = pytest.mark.django_db

# The default terms' payment clause for the default milestones (30 % design, 60 % full
# deployment, 10 % operations: quotes.services.terms.DEFAULT_MILESTONES), in each language.
PAYMENT_EN = "30% on completing Design"
PAYMENT_ZH = "完成“方案设计”时支付 30%"


def current(quote):
    quote.refresh_from_db()
    return quote.current_revision


def test_written_terms_read_in_either_language_and_stay_stored_in_the_customers(quote):
    revision = current(quote)
    assert quote.customer.preferred_language == "en"
    assert PAYMENT_EN in revision.terms  # stored (API, XLSX default) in the customer's language
    assert set(revision.terms_written) == {"en", "zh-hans"}
    assert PAYMENT_EN in revision.terms_in("en")
    assert PAYMENT_ZH in revision.terms_in("zh-hans")
    with translation.override("zh-hans"):
        assert revision.localized_terms == revision.terms_written["zh-hans"]


def test_terms_typed_by_hand_are_shown_as_typed_in_both_languages(quote, engineer):
    services.revision_commercial_update(
        user=engineer, revision=current(quote), terms="Net 30, 见合同"
    )
    revision = current(quote)
    assert revision.terms_in("en") == revision.terms_in("zh-hans") == "Net 30, 见合同"


def test_the_form_sent_back_unchanged_in_chinese_is_not_an_edit(quote, engineer, client):
    client.force_login(engineer)
    client.cookies["django_language"] = "zh-hans"
    page = client.get(reverse("quotes:quote-detail", args=[quote.pk])).content.decode()
    chinese = current(quote).terms_written["zh-hans"]
    assert chinese in page  # the form and the terms section, in the reader's language
    assert current(quote).terms_written["en"] not in page
    data = {
        "terms": chinese, "validity_days": "30", "goods_tax_percent": "13",
        "services_tax_percent": "6", "freight_tax_percent": "9", "milestone_design": "30",
        "milestone_full": "60", "milestone_operations": "10",
    }  # fmt: skip
    client.post(reverse("quotes:revision-terms", args=[quote.pk, 0]), data)
    revision = current(quote)
    assert PAYMENT_EN in revision.terms  # still the customer's language
    assert PAYMENT_ZH in revision.terms_in("zh-hans")
    assert PAYMENT_EN in revision.terms_in("en")


def test_regenerated_and_revised_terms_keep_both_languages(quote, engineer):
    services.revision_commercial_update(user=engineer, revision=current(quote), terms="Net 30")
    services.revision_commercial_update(
        user=engineer, revision=current(quote), regenerate_terms=True
    )
    assert PAYMENT_ZH in current(quote).terms_in("zh-hans")
    services.revision_send(user=engineer, revision=current(quote))
    new = services.quote_revise(user=engineer, quote=quote)
    assert new.terms_written == current(quote).terms_written
    assert PAYMENT_ZH in new.terms_in("zh-hans")


def test_the_trail_names_a_line_and_its_codes_in_the_readers_language(quote, engineer):
    from catalog.models import Product

    line = current(quote).lines.exclude(sku="").first()
    product = Product.objects.get(sku=line.sku)
    assert product.name_zh
    assert product.name_zh != product.name_en
    with translation.override("zh-hans"):  # the actor reads Chinese
        services.revision_line_update(user=engineer, line=line, discount_percent=Decimal("5"))
    events = list(quote.audit_events.filter(action=AuditAction.LINE_CHANGED))
    with translation.override("en"):
        row = history_rows(events)[0]
    assert product.name_en in row.after
    assert product.name_zh not in row.after
    assert "Discount %: 5.00" in row.after
    with translation.override("zh-hans"):
        row = history_rows(events)[0]
    assert product.name_zh in row.after
    assert "description_in" not in row.after


def test_the_trail_names_a_share_link_visitor_in_the_readers_language(quote, engineer):
    link = services.revision_send(user=engineer, revision=current(quote))
    with translation.override("zh-hans"):  # the visitor's browser asked for Chinese
        services.share_link_view_record(link=link, user_agent="")
    viewed = list(quote.audit_events.filter(action=AuditAction.SHARE_LINK_VIEWED))
    with translation.override("en"):
        assert history_rows(viewed)[0].who == "customer (share link)"
    with translation.override("zh-hans"):
        assert history_rows(viewed)[0].who == translation.gettext("customer (share link)")
        assert history_rows(viewed)[0].who != "customer (share link)"
