"""An archived design is put away by its owner: the quote form does not offer it and quote
creation refuses it, in the service, the page and the API (issue 15 item 7)."""

import pytest
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from quotes.forms import QuoteCreateForm
from quotes.models import Quote
from quotes.services import QuoteInvalid, quote_create
from tests.quotes.factories import DesignFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def archived(engineer):
    return DesignFactory(owner=engineer, name="Put away", archived_at=timezone.now())


def test_the_quote_form_lists_saved_designs_but_not_archived_ones(engineer, design, archived):
    choices = QuoteCreateForm(user=engineer).fields["design"].queryset
    assert list(choices) == [design]


def test_the_service_refuses_an_archived_design(catalog, engineer, archived, customer):
    with pytest.raises(QuoteInvalid) as refused:
        quote_create(user=engineer, design=archived, customer=customer)
    assert set(refused.value.errors) == {"design"}
    assert Quote.objects.count() == 0  # nothing half-saved


def test_the_page_refuses_an_archived_design(catalog, engineer_client, archived, customer):
    response = engineer_client.post(
        reverse("quotes:quote-create"), {"design": archived.pk, "customer": customer.pk}
    )
    assert response.status_code == 200  # the form again, with its error
    assert response.context["form"].errors["design"]
    assert Quote.objects.count() == 0


def test_the_api_refuses_an_archived_design(catalog, engineer, archived, customer):
    client = APIClient()
    client.force_authenticate(engineer)
    response = client.post(
        "/api/v1/quotes/", {"design": archived.pk, "customer": customer.pk}, format="json"
    )
    assert response.status_code == 400, response.content
    assert response["Content-Type"] == "application/problem+json"
    assert "archived" in response.content.decode()
    assert Quote.objects.count() == 0
