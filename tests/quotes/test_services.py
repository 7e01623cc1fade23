"""Quote services: creation from a design, freezing, approvals, sending, revising, the customer's
answer, expiry and the audit trail. Every amount is worked from the seed prices in
tests/quotes/factories.py (CNY, VAT 13%)."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from catalog.models import ContractPrice, PriceList, Product
from quotes import services
from quotes.models import AuditAction, AuditEvent, LineKind, QuoteStatus
from quotes.pricing import PriceSource
from quotes.services import (
    ApprovalRequired,
    NotPermitted,
    QuoteExpired,
    QuoteInvalid,
    QuoteNotEditable,
    TransitionNotAllowed,
)
from tests.quotes.factories import CustomerFactory, DesignFactory, manager_policy

pytestmark = pytest.mark.django_db
D = Decimal

# The factory's design (tests/quotes/factories.py), at the CNY-2026 list prices:
# Products: 16 NICs x 7,800 + 96,000 + DACs 8 x 520 + 16 x 600 + 8 x 700 + 22,000 + 5 x 58
#   = 124,800 + 96,000 + 4,160 + 9,600 + 5,600 + 22,000 + 290 = 262,450.00 (no tier applies:
#   no line reaches 100).
# Services (4 servers, 2 switches -> 3 engineer-days: pilot 1, full 2): POC 0 + 3 x 3,000
# + support priced per switch-year: 2 switches x 1 year x 25,000 = 50,000 -> 59,000.00.
# Subtotal 321,450.00. VAT per kind: goods 262,450 x 13% = 34,118.50, services 59,000 x 6%
# = 3,540.00; tax 37,658.50; total 359,108.50.
SUBTOTAL = D("321450.00")
TAX = D("37658.50")
TOTAL = D("359108.50")


def current(quote):
    quote.refresh_from_db()
    return quote.current_revision


def test_quote_from_design_prices_and_freezes_everything(quote, design):
    revision = current(quote)
    assert quote.number.startswith(f"Q-{timezone.localdate().year}-")
    assert revision.label == quote.number  # the first version has no -R suffix
    assert (revision.subtotal, revision.tax, revision.total) == (SUBTOTAL, TAX, TOTAL)
    assert revision.tax_rate == D("0.13")
    assert revision.validity_days == 30
    assert revision.currency == "CNY"
    assert revision.exchange_rate == D("1")
    assert revision.price_list_code == "CNY-2026"
    # Cost: 16 x 5,070 + 62,400 + 8 x 338 + 16 x 390 + 8 x 455 + 14,300 + 5 x 36
    #     + 0 + 3 x 1,950 + 2 x 16,250
    #     = 81,120 + 62,400 + 2,704 + 6,240 + 3,640 + 14,300 + 180 + 5,850 + 32,500 = 208,934.00.
    assert revision.cost_total == D("208934.00")
    # Margin (321,450 - 208,934) / 321,450 = 112,516 / 321,450 = 35.0026% -> 35.00.
    assert revision.margin_percent == D("35.00")
    # 7 BOM lines + POC + pilot + full + support = 11 lines.
    assert revision.lines.count() == 11
    assert revision.lines.filter(kind=LineKind.SERVICE).count() == 4
    # The design snapshot is a copy: changing the design later does not change the quote.
    design.result = {"bom": []}
    design.save()
    revision.refresh_from_db()
    assert len(revision.frozen_design.result["bom"]) == 7  # the design's 7 BOM lines
    nic = revision.lines.get(sku="MCX623106AN-CDAT")
    assert (nic.frozen_list_price, nic.frozen_unit_cost) == (D("7800.00"), D("5070.00"))
    # Catalog price changes do not reach the frozen line either.
    product = Product.objects.get(sku="MCX623106AN-CDAT")
    product.prices.update(amount=D("9999.00"))
    services.revision_line_update(user=quote.owner, line=nic, quantity=32)
    nic.refresh_from_db()
    assert nic.unit_price == D("7800.00")
    assert AuditEvent.objects.filter(quote=quote, action=AuditAction.CREATED).count() == 1


def test_contract_price_and_quantity_tier(catalog, engineer, customer):
    ContractPrice.objects.create(
        customer=customer,
        product=Product.objects.get(sku="MSN2700-CS2F"),
        currency="CNY",
        amount=D("90000.00"),
        valid_from=timezone.localdate() - timedelta(days=1),
    )
    design = DesignFactory(owner=engineer)
    (dacs,) = [line for line in design.result["bom"] if line["sku"] == "MCP1600-C002E30N"]
    dacs["quantity"] = 128  # 2 m DACs: the >=100 tier is 570.00
    design.save()
    quote = services.quote_create(user=engineer, design=design, customer=customer)
    revision = current(quote)
    switch = revision.lines.get(sku="MSN2700-CS2F")
    dac = revision.lines.get(sku="MCP1600-C002E30N")
    assert (switch.price_source, switch.unit_price) == (PriceSource.CONTRACT, D("90000.00"))
    assert (dac.price_source, dac.unit_price, dac.line_total) == (
        PriceSource.TIER, D("570.00"), D("72960.00"),  # 128 x 570
    )  # fmt: skip


def test_usd_quote_from_the_cny_list_at_a_stated_rate(catalog, engineer, design, customer):
    quote = services.quote_create(
        user=engineer, design=design, customer=customer, currency="USD",
        exchange_rate=D("0.14"),
    )  # fmt: skip
    revision = current(quote)
    assert revision.currency == "USD"
    # 7,800 CNY x 0.14 = 1,092.00 USD per NIC.
    assert revision.lines.get(sku="MCX623106AN-CDAT").unit_price == D("1092.00")
    # Every CNY price in this quote is whole yuan, so each converts exactly to the cent
    # (58 x 0.14 = 8.12, 520 x 0.14 = 72.80), and the subtotal is 321,450 x 0.14 = 45,003.00.
    assert revision.subtotal == D("45003.00")


def test_a_foreign_currency_needs_its_exchange_rate(catalog, engineer, design, customer):
    with pytest.raises(QuoteInvalid) as exc:
        services.quote_create(user=engineer, design=design, customer=customer, currency="USD")
    assert "exchange_rate" in exc.value.errors


def test_designs_and_customers_of_other_teams_are_refused(catalog, engineer, other_engineer):
    theirs = DesignFactory(owner=other_engineer)
    mine = DesignFactory(owner=engineer)
    with pytest.raises(QuoteInvalid) as exc:
        services.quote_create(user=engineer, design=theirs, customer=CustomerFactory())
    assert "design" in exc.value.errors
    other_customer = CustomerFactory(team__name="Team B")
    with pytest.raises(QuoteInvalid) as exc:
        services.quote_create(user=engineer, design=mine, customer=other_customer)
    assert "customer" in exc.value.errors


def test_no_policy_hit_submit_approves_and_send_freezes(quote, engineer):
    revision = current(quote)
    services.revision_submit(user=engineer, revision=revision)
    assert current(quote).status == QuoteStatus.APPROVED
    assert current(quote).approved_by is None  # no approver was needed
    link = services.revision_send(user=engineer, revision=revision)
    revision = current(quote)
    assert revision.status == QuoteStatus.SENT
    assert revision.valid_until == timezone.localdate() + timedelta(days=30)
    assert len(link.token) == 43  # token_urlsafe(32): 256 bits
    line = revision.lines.first()
    with pytest.raises(QuoteNotEditable):
        services.revision_line_update(user=engineer, line=line, quantity=1)
    with pytest.raises(QuoteNotEditable):
        services.revision_discount_apply(user=engineer, revision=revision, discount_percent=D(5))


def test_discount_above_policy_needs_a_managers_approval(
    quote, engineer, teammate, manager, discount_policy
):
    revision = current(quote)
    services.revision_discount_apply(user=engineer, revision=revision, discount_percent=D("15"))
    revision = current(quote)
    # Products 262,450 x 0.85 = 223,082.50 (every unit price is a whole number of cents:
    # 6,630; 81,600; 442; 510; 595; 18,700; 49.30) + services 59,000 = 282,082.50.
    assert revision.subtotal == D("282082.50")
    assert [r["policy"] for r in revision.approval_reasons] == [
        "Largest line discount (%) above 10"
    ]
    with pytest.raises(ApprovalRequired, match="Sales manager"):  # the role in words
        services.revision_send(user=engineer, revision=revision)
    services.revision_submit(user=engineer, revision=revision)
    assert current(quote).status == QuoteStatus.PENDING_APPROVAL
    with pytest.raises(ApprovalRequired):
        services.revision_send(user=engineer, revision=revision)
    with pytest.raises(NotPermitted):
        services.revision_approve(user=teammate, revision=revision)
    services.revision_approve(user=manager, revision=revision)
    revision = current(quote)
    assert revision.status == QuoteStatus.APPROVED
    assert revision.approved_by == manager
    assert revision.approved_at is not None
    approval = AuditEvent.objects.get(quote=quote, action=AuditAction.APPROVED)
    assert approval.actor == manager
    assert approval.after["total"] == str(revision.total)

    # Issue 24: what was approved cannot change. A change means withdrawing the revision, which
    # opens a new draft revision to be submitted (and approved) again; the approved one stays.
    nic = revision.lines.get(sku="MCX623106AN-CDAT")
    with pytest.raises(services.QuoteNotEditable):
        services.revision_line_update(user=engineer, line=nic, discount_percent=D("20"))
    draft = services.revision_withdraw(user=engineer, revision=revision)
    nic = draft.lines.get(sku="MCX623106AN-CDAT")
    services.revision_line_update(user=engineer, line=nic, discount_percent=D("20"))
    services.revision_submit(user=engineer, revision=draft)
    draft = current(quote)
    assert (draft.number, draft.status, draft.approved_by) == (
        1, QuoteStatus.PENDING_APPROVAL, None,
    )  # fmt: skip
    services.revision_approve(user=manager, revision=draft)
    services.revision_send(user=engineer, revision=draft)
    assert current(quote).status == QuoteStatus.SENT
    revision.refresh_from_db()
    assert (revision.status, revision.approved_by) == (QuoteStatus.WITHDRAWN, manager)


def test_managers_cannot_approve_their_own_quotes(catalog, manager, customer, discount_policy):
    design = DesignFactory(owner=manager)
    quote = services.quote_create(user=manager, design=design, customer=customer)
    revision = current(quote)
    services.revision_discount_apply(user=manager, revision=revision, discount_percent=D("12"))
    services.revision_submit(user=manager, revision=revision)
    with pytest.raises(NotPermitted, match="own quote"):
        services.revision_approve(user=manager, revision=revision)


def test_reject_sends_back_to_draft_with_a_reason(quote, engineer, manager, discount_policy):
    revision = current(quote)
    services.revision_discount_apply(user=engineer, revision=revision, discount_percent=D("30"))
    services.revision_submit(user=engineer, revision=revision)
    with pytest.raises(QuoteInvalid):
        services.revision_reject(user=manager, revision=revision, reason=" ")
    services.revision_reject(user=manager, revision=revision, reason="30% is too much")
    assert current(quote).status == QuoteStatus.DRAFT


def test_transitions_refused_with_a_reason(quote, engineer, manager):
    revision = current(quote)
    with pytest.raises(TransitionNotAllowed, match="pending approval"):
        services.revision_approve(user=manager, revision=revision)
    with pytest.raises(TransitionNotAllowed, match="change it instead"):
        services.quote_revise(user=engineer, quote=quote)
    services.revision_send(user=engineer, revision=revision)
    with pytest.raises(TransitionNotAllowed, match="Only a draft"):
        services.revision_submit(user=engineer, revision=revision)
    with pytest.raises(TransitionNotAllowed):
        services.revision_send(user=engineer, revision=revision)


def test_revise_copies_into_a_new_draft_and_sending_it_supersedes(quote, engineer):
    first = current(quote)
    nic = first.lines.get(sku="MCX623106AN-CDAT")
    services.revision_line_update(user=engineer, line=nic, discount_percent=D("5"))
    services.revision_send(user=engineer, revision=current(quote))
    first = current(quote)
    second = services.quote_revise(user=engineer, quote=quote)
    assert second.number == 1
    assert second.label == f"{quote.number}-R1"
    assert second.status == QuoteStatus.DRAFT
    assert second.total == first.total
    assert second.lines.count() == first.lines.count()
    assert second.lines.get(sku="MCX623106AN-CDAT").discount_percent == D("5.00")
    assert second.frozen_design_id == first.frozen_design_id
    services.revision_send(user=engineer, revision=second)
    first.refresh_from_db()
    assert first.status == QuoteStatus.SUPERSEDED
    quote.refresh_from_db()
    assert quote.status == QuoteStatus.SENT


def test_customer_accepts_through_the_link(quote, engineer):
    revision = current(quote)
    option = services.revision_line_add(
        user=engineer, revision=revision, sku="EZMAX-QSFP28-100G-SR4", quantity=10,
        is_optional=True,
    )  # fmt: skip
    revision = current(quote)
    assert revision.total == TOTAL  # optional lines are not in the totals
    assert revision.optional_total == D("9800.00")  # 10 x 980
    link = services.revision_send(user=engineer, revision=revision)
    services.share_link_view_record(link=link, ip="203.0.113.7", user_agent="test")
    decision = services.revision_accept(
        link=link, name="Li Wei", email="li.wei@example.com", ip="203.0.113.7",
        optional_line_ids=[option.pk], pdf_sha256="a" * 64,
    )  # fmt: skip
    # Accepted with the option (a product, 13%): goods (262,450 + 9,800) x 13% = 35,392.50,
    # services 59,000 x 6% = 3,540.00; subtotal 321,450 + 9,800 = 331,250 + tax 38,932.50
    # = 370,182.50.
    assert decision.accepted_total == D("370182.50")
    assert (decision.name, decision.email, decision.ip) == (
        "Li Wei", "li.wei@example.com", "203.0.113.7",
    )  # fmt: skip
    assert decision.pdf_sha256 == "a" * 64
    assert current(quote).status == QuoteStatus.ACCEPTED
    with pytest.raises(TransitionNotAllowed):
        services.revision_decline(link=link, name="X", email="x@example.com", reason="late")
    with pytest.raises(TransitionNotAllowed, match="closed"):
        services.quote_revise(user=engineer, quote=quote)
    viewed = AuditEvent.objects.get(quote=quote, action=AuditAction.SHARE_LINK_VIEWED)
    assert viewed.ip == "203.0.113.7"


def test_decline_needs_a_reason_and_a_revoked_link_answers_nothing(quote, engineer):
    link = services.revision_send(user=engineer, revision=current(quote))
    with pytest.raises(QuoteInvalid):
        services.revision_decline(link=link, name="Li", email="li@example.com", reason="")
    services.share_link_revoke(user=engineer, link=link)
    link.refresh_from_db()
    with pytest.raises(TransitionNotAllowed, match="withdrawn"):
        services.revision_accept(link=link, name="Li", email="li@example.com")
    second = services.share_link_create(user=engineer, revision=current(quote))
    services.revision_decline(link=second, name="Li", email="li@example.com", reason="Budget")
    assert current(quote).status == QuoteStatus.DECLINED
    assert current(quote).decision.reason == "Budget"


def test_expiry_task_is_idempotent(quote, engineer):
    from quotes.tasks import expire_quotes

    link = services.revision_send(user=engineer, revision=current(quote))
    revision = current(quote)
    assert expire_quotes() == 0  # still valid
    revision.valid_until = timezone.localdate() - timedelta(days=1)
    revision.save(update_fields=["valid_until"])
    with pytest.raises(QuoteExpired):
        services.revision_accept(link=link, name="Li", email="li@example.com")
    assert expire_quotes() == 1
    assert expire_quotes() == 0  # a second scan finds nothing left to do
    assert current(quote).status == QuoteStatus.EXPIRED
    # An expired quote can be revised into a new draft.
    assert services.quote_revise(user=engineer, quote=quote).status == QuoteStatus.DRAFT


def test_price_override_and_status_changes_are_audited(quote, engineer):
    nic = current(quote).lines.get(sku="MCX623106AN-CDAT")
    services.revision_line_update(user=engineer, line=nic, override_unit_price=D("7000"))
    event = AuditEvent.objects.get(quote=quote, action=AuditAction.PRICE_OVERRIDE)
    assert event.actor == engineer
    assert event.before["override_unit_price"] is None
    assert event.after["override_unit_price"] == "7000.00"
    assert event.after["unit_price"] == "7000.00"
    services.revision_send(user=engineer, revision=current(quote))
    changes = AuditEvent.objects.filter(quote=quote, action=AuditAction.STATUS_CHANGED)
    # Sending a draft that needs no approval submits it on the way: what is sent is what was
    # submitted (its content hash, issue 24), and the trail says so.
    assert [(e.before["status"], e.after["status"]) for e in changes.order_by("pk")] == [
        ("draft", "approved"),
        ("approved", "sent"),
    ]


def test_total_and_margin_policies(quote, engineer):
    manager_policy(metric="total_amount", threshold="359000", currency="CNY")
    manager_policy(metric="margin_percent", threshold="36")
    revision = current(quote)
    services.revision_terms_update(user=engineer, revision=revision, terms="Net 30")
    revision = current(quote)
    # Total 359,108.50 > 359,000 and margin 35.00% < 36%.
    assert sorted(r["metric"] for r in revision.approval_reasons) == [
        "margin_percent", "total_amount",
    ]  # fmt: skip


def test_note_lines_and_missing_prices(quote, engineer):
    revision = current(quote)
    services.revision_line_add(
        user=engineer, revision=revision, kind=LineKind.NOTE, description="Servers by customer"
    )
    assert current(quote).total == TOTAL
    with pytest.raises(QuoteInvalid, match="No product"):
        services.revision_line_add(user=engineer, revision=revision, sku="NO-SUCH-SKU")
    PriceList.objects.all().delete()
    with pytest.raises(QuoteInvalid):
        services.revision_line_add(user=engineer, revision=revision, sku="MSN2700-CS2F")


def test_a_line_whose_amounts_would_overflow_is_refused_and_nothing_changes(quote, engineer):
    from rest_framework.test import APIClient

    revision = current(quote)
    nic = revision.lines.get(sku="MCX623106AN-CDAT")
    before = (nic.quantity, nic.override_unit_price, nic.line_total, revision.total)
    # The largest quantity (100,000,000) at the largest unit price (14 digits: just under 10^12)
    # is about 10^20, past a line total's 14 digits before the point.
    with pytest.raises(QuoteInvalid, match="exceed what a quote holds"):
        services.revision_line_update(
            user=engineer, line=nic, quantity=100_000_000, override_unit_price=D("999999999999.99")
        )
    client = APIClient()
    client.force_authenticate(engineer)
    # Schemathesis's case, 85,736 at 53,660.97 (4.6 x 10^9), fits: what overflowed there was the
    # derived discount (below). 10^8 at 9,999,999.99 is about 10^15: it does not.
    response = client.patch(
        f"/api/v1/quotes/{quote.pk}/lines/{nic.pk}/",
        {"quantity": 100_000_000, "override_unit_price": "9999999.99"},
        format="json",
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert response.status_code == 400, response.content
    assert "exceed what a quote holds" in response.json()["detail"]
    nic.refresh_from_db()
    revision.refresh_from_db()
    assert (nic.quantity, nic.override_unit_price, nic.line_total, revision.total) == before

    # A markup the percent column once could not hold (7 digits): 10,000 times the base price
    # is a discount of (1 - 10,000) x 100 = -999,900 %.
    services.revision_line_update(
        user=engineer, line=nic, override_unit_price=nic.base_unit_price * 10_000
    )
    nic.refresh_from_db()
    assert nic.effective_discount_percent == D("-999900.00")
    assert client.get(f"/api/v1/quotes/{quote.pk}/").status_code == 200
