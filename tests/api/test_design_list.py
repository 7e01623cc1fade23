"""The designs list's fast path (planner.api.serializers.design_summaries) answers exactly what
DesignListSerializer, the schema's description of a summary, answers for the same designs; and
the filtersets' shallow copies (core.filters.StrictFilterSet) keep each request's choices its
own."""

import pytest
from django.test import RequestFactory
from django.utils import timezone
from rest_framework.test import APIClient

from planner.api.serializers import DesignListSerializer
from planner.filters import DesignFilterSet
from planner.models import Design
from tests.quotes.factories import CustomerFactory, DesignFactory

pytestmark = pytest.mark.django_db


@pytest.mark.slow
def test_the_list_answers_what_the_serializer_says(engineer, teammate):
    customer = CustomerFactory(team=engineer.membership.team)
    source = DesignFactory(owner=engineer, customer=customer, name='Ünïcode "quoted" 设计')
    DesignFactory(owner=teammate, customer=None, is_draft=True, copied_from=source)
    DesignFactory(owner=engineer, customer=customer, gpus=None)
    api = APIClient()
    api.force_authenticate(engineer)
    with timezone.override("Asia/Shanghai"):  # a zone other than UTC: offsets are rendered
        body = api.get("/api/v1/designs/").json()
        expected = DesignListSerializer(
            Design.objects.select_related("owner", "team").order_by("-pk"), many=True
        ).data
    assert body["results"] == expected
    assert len(body["results"]) == 3


def test_paging_by_cursor_still_walks_every_design(engineer):
    for _ in range(5):
        DesignFactory(owner=engineer)
    api = APIClient()
    api.force_authenticate(engineer)
    seen, url = [], "/api/v1/designs/?limit=2"
    while url:
        body = api.get(url).json()
        seen += [row["id"] for row in body["results"]]
        url = body["next"]
    assert seen == sorted(Design.objects.values_list("pk", flat=True), reverse=True)


def test_each_filterset_has_its_own_filters_and_choices(engineer, other_engineer):
    mine = CustomerFactory(team=engineer.membership.team)
    theirs = CustomerFactory(team=other_engineer.membership.team)
    factory = RequestFactory()
    requests = []
    for user in (engineer, other_engineer):
        request = factory.get("/designs/")
        request.user = user
        requests.append(request)
    first = DesignFilterSet({}, queryset=Design.objects.all(), request=requests[0])
    second = DesignFilterSet({}, queryset=Design.objects.all(), request=requests[1])
    assert first.filters["customer"] is not second.filters["customer"]
    assert first.filters["customer"] is not DesignFilterSet.base_filters["customer"]
    assert first.filters["customer"].parent is first
    assert list(first.form.fields["customer"].queryset) == [mine]
    assert list(second.form.fields["customer"].queryset) == [theirs]
    assert not hasattr(DesignFilterSet.base_filters["customer"], "_field")


def test_a_method_filter_calls_its_own_filterset(engineer):
    """A method filter (`q` -> DesignFilterSet.search) runs on the instance that owns it."""
    DesignFactory(owner=engineer, name="alpha")
    DesignFactory(owner=engineer, name="beta")
    request = RequestFactory().get("/designs/")
    request.user = engineer
    found = DesignFilterSet({"q": "alp"}, queryset=Design.objects.all(), request=request)
    assert found.filters["q"].filter.f is found.filters["q"]
    assert [design.name for design in found.qs] == ["alpha"]
