"""Designs are archived and deleted through the services, which decide who may and refuse once a
quote uses the design; the list hides archived designs unless asked; the design page offers
"Make a quote" on saved designs only."""

import pytest
from django.urls import reverse

from customers.models import Customer
from planner import services
from planner.models import Design
from planner.selectors import DesignNotFound
from quotes.models import Quote
from tests.quotes.factories import DesignFactory


@pytest.fixture
def saved(engineer):
    return DesignFactory(owner=engineer, name="Saved pod")


@pytest.fixture
def draft(engineer):
    return DesignFactory(owner=engineer, name="Draft pod", is_draft=True)


def _quote(design, owner):
    customer = Customer.objects.create(name_en="Lab", team=design.team)
    return Quote.objects.create(
        number="Q-2026-00001", year=2026, sequence=1, customer=customer, design=design,
        owner=owner, team=design.team,
    )  # fmt: skip


def test_archive_hides_from_the_list_and_the_filter_shows_it(engineer_client, engineer, saved):
    other = DesignFactory(owner=engineer, name="Other pod")
    services.design_archive(design=saved, user=engineer)
    saved.refresh_from_db()
    assert saved.archived_at is not None
    page = engineer_client.get(reverse("planner:design-list")).content.decode()
    assert other.name in page
    assert "Saved pod" not in page
    shown = engineer_client.get(reverse("planner:design-list") + "?archived=1").content.decode()
    assert "Saved pod" in shown
    assert "Other pod" in shown  # the filter adds the archived ones, it does not swap
    services.design_archive(design=saved, user=engineer, archived=False)
    saved.refresh_from_db()
    assert saved.archived_at is None


def test_delete_removes_a_draft_and_an_unquoted_saved_design(engineer, saved, draft):
    services.design_delete(design=draft, user=engineer)
    services.design_delete(design=saved, user=engineer)
    assert not Design.objects.filter(pk__in=[saved.pk, draft.pk]).exists()


def test_a_quoted_design_is_neither_archived_nor_deleted(engineer, saved):
    _quote(saved, engineer)
    with pytest.raises(services.DesignInUse, match="Q-2026-00001"):
        services.design_archive(design=saved, user=engineer)
    with pytest.raises(services.DesignInUse, match="Q-2026-00001"):
        services.design_delete(design=saved, user=engineer)
    saved.refresh_from_db()
    assert saved.archived_at is None


def test_only_the_author_archives_or_deletes(saved, teammate, other_engineer):
    # A teammate sees the design but did not write it.
    with pytest.raises(services.DesignNotYours):
        services.design_delete(design=saved, user=teammate)
    # Another team does not even see it: not found, as everywhere else.
    with pytest.raises(DesignNotFound):
        services.design_archive(design=saved, user=other_engineer)
    assert Design.objects.filter(pk=saved.pk, archived_at__isnull=True).exists()


def test_pages_archive_and_delete_with_a_clear_error_when_quoted(engineer_client, engineer, saved):
    url = reverse("planner:design-archive", args=[saved.pk])
    response = engineer_client.post(url, {"archived": "1"}, follow=True)
    assert "Design archived" in response.content.decode()
    saved.refresh_from_db()
    assert saved.archived_at is not None
    engineer_client.post(url, {"archived": "0"})
    _quote(saved, engineer)
    response = engineer_client.post(reverse("planner:design-delete", args=[saved.pk]), follow=True)
    text = response.content.decode()
    assert "Quote Q-2026-00001 uses this design" in text
    assert Design.objects.filter(pk=saved.pk).exists()
    # Once quoted, the page offers neither action.
    assert 'data-testid="archive"' not in text
    assert 'data-testid="delete"' not in text


def test_make_a_quote_is_offered_on_saved_designs_only(engineer_client, engineer, saved, draft):
    page = engineer_client.get(reverse("planner:design-detail", args=[saved.pk])).content.decode()
    expected = reverse("quotes:quote-create") + f"?design={saved.pk}"
    assert f'href="{expected}" data-testid="make-quote"' in page
    page = engineer_client.get(reverse("planner:design-detail", args=[draft.pk])).content.decode()
    assert 'data-testid="make-quote"' not in page
    services.design_archive(design=saved, user=engineer)
    page = engineer_client.get(reverse("planner:design-detail", args=[saved.pk])).content.decode()
    assert 'data-testid="make-quote"' not in page  # restore it first


def test_the_quote_form_preselects_the_design(engineer_client, saved):
    page = engineer_client.get(reverse("quotes:quote-create") + f"?design={saved.pk}")
    assert page.status_code == 200
    html = page.content.decode()
    assert f'<option value="{saved.pk}" selected' in html


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_in_chromium_make_a_quote_then_archive_and_delete_another_design(
    live_server, page, engineer
):
    from planner.services import design_create
    from tests.conftest import load_seed_catalog, screenshot
    from tests.planner.test_browser import console_errors

    load_seed_catalog()
    request = {"gpus": 64, "gpus_per_server": 8, "nic_speed": 400, "fabric": "rail",
               "leaf": "64x400"}  # fmt: skip
    quoted = design_create(owner=engineer, name="Pod to quote", request_data=request)
    spare = design_create(owner=engineer, name="Pod to tidy", request_data=request)
    customer = Customer.objects.create(name_en="Acme AI Lab", team=quoted.team)
    errors = console_errors(page)
    base = live_server.url
    page.goto(f"{base}/accounts/login/")
    page.fill("input[name=username]", "engineer")
    page.fill("input[name=password]", "pw-engineer")
    page.click("button[type=submit].primary")
    page.click("button[name=language][value=en]")

    # Make a quote from the design page: the form opens with the design chosen.
    page.goto(f"{base}/designs/{quoted.pk}/")
    page.get_by_test_id("make-quote").click()
    page.wait_for_selector("#id_design")
    assert page.eval_on_selector("#id_design", "e => e.value") == str(quoted.pk)
    page.select_option("#id_customer", str(customer.pk))
    page.click("button[type=submit].primary")
    page.wait_for_url(f"{base}/quotes/*/")
    quote = Quote.objects.get(design=quoted)
    # Quoted: the design page no longer offers to archive or delete it.
    page.goto(f"{base}/designs/{quoted.pk}/")
    assert page.get_by_test_id("make-quote").count() == 1
    assert page.get_by_test_id("archive").count() == 0
    assert page.get_by_test_id("delete").count() == 0

    # Archive the other one: gone from the list until "Show archived" is ticked.
    page.goto(f"{base}/designs/{spare.pk}/")
    page.get_by_test_id("archive").click()
    page.wait_for_selector("[data-testid=archived]")
    page.goto(f"{base}/designs/")
    assert page.locator("table a", has_text="Pod to tidy").count() == 0
    page.check("input[name=archived]")
    page.click("form.filters button[type=submit]")
    page.wait_for_url("**archived=1**")
    page.locator("table a", has_text="Pod to tidy").click()
    # Delete it, confirming first.
    page.get_by_test_id("delete").click()
    page.get_by_test_id("delete-confirm").click()
    page.wait_for_url(f"{base}/designs/")
    assert not Design.objects.filter(pk=spare.pk).exists()
    screenshot(page, "design-deleted")

    # The dashboard lists the draft quote among my drafts.
    page.goto(f"{base}/")
    assert quote.number in page.get_by_test_id("my-drafts").inner_text()
    assert errors == []
