"""No lost updates (issue 24, item 6): a line and a revision carry a version, every change moves
it on, and a change made from an older version is refused (VersionConflict: 412 in the API with
If-Match, a message on the page) with nothing written. Also the unit cost of a line priced by
hand (item 3's input): without it the margin is unknown, with it the margin is known.

Two "clients" here are two sessions that read the same version and both save, in turn; the
PostgreSQL test races them for real, in two threads with their own connections."""

import contextlib
import re
import threading
from decimal import Decimal

import pytest
from django.db import connection
from django.db.models.signals import pre_save
from django.urls import reverse
from rest_framework.test import APIClient

from quotes import services
from quotes.models import AuditEvent, PolicyMetric, QuoteLine, QuoteRevision
from quotes.services.errors import NotPermitted, QuoteInvalid, VersionConflict
from tests.quotes.factories import DesignFactory, manager_policy
from tests.quotes.test_catalog_gaps import with_gap

pytestmark = pytest.mark.django_db
D = Decimal
PROBLEM = "application/problem+json"
LINE_CONFLICT = (
    "Someone else changed this line since you opened it: reload the page to see their change; "
    "nothing was saved."
)
LINE_CONFLICT_ZH = "您打开此行之后，已有其他人修改了它：请重新加载页面查看其修改；未保存任何内容。"


@pytest.fixture
def gap_quote(catalog, engineer, customer):
    """A quote with a line to be priced: a catalog gap, no SKU (tests/quotes/test_catalog_gaps)."""
    design = with_gap(DesignFactory(owner=engineer))
    return services.quote_create(user=engineer, design=design, customer=customer)


def api(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def first_product_line(quote) -> QuoteLine:
    revision = quote.current_revision
    return revision.lines.filter(kind="product").exclude(sku="").order_by("position", "id")[0]


def gap_line(quote) -> QuoteLine:
    return quote.current_revision.lines.get(sku="", kind="product")


# --- Services ---------------------------------------------------------------------------------


def test_two_saves_of_one_line_from_the_same_version_one_wins(quote, engineer, teammate):
    line = first_product_line(quote)
    seen = line.version
    services.revision_line_update(user=engineer, line=line, quantity=5, expected_version=seen)
    with pytest.raises(VersionConflict) as refused:
        services.revision_line_update(
            user=teammate, line=line, quantity=7, discount_percent=D("3"), expected_version=seen
        )
    assert refused.value.http_status == 412
    assert "Someone else changed this line" in refused.value.message
    line.refresh_from_db()
    assert (line.quantity, line.discount_percent, line.version) == (5, D("0"), seen + 1)
    # One change recorded: the refused one wrote nothing, not even its audit event.
    assert AuditEvent.objects.filter(revision=line.revision, actor=teammate).count() == 0


def test_every_change_moves_the_version_on_and_a_save_without_one_is_still_taken(quote, engineer):
    line = first_product_line(quote)
    revision = line.revision
    services.revision_line_update(user=engineer, line=line, quantity=3)
    services.revision_line_update(user=engineer, line=line, quantity=4)
    line.refresh_from_db()
    assert (line.quantity, line.version) == (4, 3)
    revision.refresh_from_db()
    assert revision.version == 3  # a line's change changes the totals: the revision's moves too


def test_a_line_change_makes_an_open_terms_form_stale(quote, engineer, teammate):
    revision = quote.current_revision
    seen = revision.version
    services.revision_line_update(user=engineer, line=first_product_line(quote), quantity=2)
    with pytest.raises(VersionConflict, match=revision.label):
        services.revision_commercial_update(
            user=teammate, revision=revision, validity_days=90, expected_version=seen
        )
    revision.refresh_from_db()
    assert revision.validity_days != 90
    # Read again, the same change goes through.
    services.revision_commercial_update(
        user=teammate, revision=revision, validity_days=90, expected_version=revision.version
    )
    revision.refresh_from_db()
    assert revision.validity_days == 90


def test_a_discount_on_every_line_makes_an_open_line_form_stale(quote, engineer, teammate):
    line = first_product_line(quote)
    seen = line.version
    services.revision_discount_apply(
        user=engineer,
        revision=line.revision,
        discount_percent=D("5"),
        expected_version=line.revision.version,
    )
    with pytest.raises(VersionConflict):
        # The line form still shows 0%: saved, it would quietly undo the 5%.
        services.revision_line_update(
            user=teammate, line=line, discount_percent=D("0"), expected_version=seen
        )
    line.refresh_from_db()
    assert line.discount_percent == D("5")


@pytest.mark.parametrize("edit", ["line_add", "freight", "terms", "discount"])
def test_each_revision_edit_refuses_a_stale_version(quote, engineer, edit):
    revision = quote.current_revision
    stale = revision.version
    services.revision_line_update(user=engineer, line=first_product_line(quote), quantity=2)
    lines_before = revision.lines.count()
    calls = {
        "line_add": lambda: services.revision_line_add(
            user=engineer,
            revision=revision,
            kind="note",
            description="Delivered in two lots",
            expected_version=stale,
        ),
        "freight": lambda: services.revision_freight_set(
            user=engineer, revision=revision, amount=D("900"), expected_version=stale
        ),
        "terms": lambda: services.revision_terms_update(
            user=engineer, revision=revision, validity_days=45, expected_version=stale
        ),
        "discount": lambda: services.revision_discount_apply(
            user=engineer, revision=revision, discount_percent=D("4"), expected_version=stale
        ),
    }
    with pytest.raises(VersionConflict):
        calls[edit]()
    revision.refresh_from_db()
    assert revision.lines.count() == lines_before
    assert not revision.lines.filter(kind="freight").exists()
    assert revision.validity_days != 45
    assert not revision.lines.filter(discount_percent=D("4")).exists()
    assert revision.version == stale + 1  # only the line change moved it


def test_deleting_a_line_someone_changed_or_deleted_is_refused(quote, engineer, teammate):
    line = first_product_line(quote)
    seen = line.version
    services.revision_line_update(user=engineer, line=line, quantity=9, expected_version=seen)
    with pytest.raises(VersionConflict):
        services.revision_line_delete(user=teammate, line=line, expected_version=seen)
    assert QuoteLine.objects.filter(pk=line.pk).exists()
    services.revision_line_delete(user=teammate, line=line, expected_version=seen + 1)
    with pytest.raises(VersionConflict, match="deleted"):
        services.revision_line_update(user=engineer, line=line, quantity=1)


# --- API: ETag and If-Match -------------------------------------------------------------------


def test_api_two_clients_patch_one_line_one_gets_412(quote, engineer, teammate):
    line = first_product_line(quote)
    url = f"/api/v1/quotes/{quote.pk}/lines/{line.pk}/"
    first, second = api(engineer), api(teammate)
    read_first, read_second = first.get(url), second.get(url)
    assert read_first.status_code == 200, read_first.content
    etag = read_first["ETag"]
    assert etag == read_second["ETag"] == f'"line-{line.pk}-v{line.version}"'
    assert read_first.json()["version"] == line.version

    won = first.patch(url, {"quantity": 11}, format="json", HTTP_IF_MATCH=etag)
    lost = second.patch(url, {"quantity": 13}, format="json", HTTP_IF_MATCH=etag)

    assert won.status_code == 200, won.content
    assert won["ETag"] == f'"line-{line.pk}-v{line.version + 1}"'
    assert lost.status_code == 412, lost.content
    assert lost["Content-Type"] == PROBLEM
    assert lost.json()["code"] == "version_conflict"
    assert lost.json()["detail"] == LINE_CONFLICT
    line.refresh_from_db()
    assert line.quantity == 11
    # The loser reads again and, deciding anew, succeeds with the new ETag.
    again = second.get(url)
    assert again.json()["quantity"] == 11
    retried = second.patch(url, {"quantity": 13}, format="json", HTTP_IF_MATCH=again["ETag"])
    assert retried.status_code == 200, retried.content


def test_api_412_speaks_the_callers_language(quote, engineer):
    line = first_product_line(quote)
    url = f"/api/v1/quotes/{quote.pk}/lines/{line.pk}/"
    client = api(engineer)
    stale = client.get(url)["ETag"]
    assert client.patch(url, {"quantity": 2}, format="json", HTTP_IF_MATCH=stale).status_code == 200
    lost = client.patch(
        url, {"quantity": 3}, format="json", HTTP_IF_MATCH=stale, HTTP_ACCEPT_LANGUAGE="zh-hans"
    )
    assert lost.status_code == 412
    assert lost.json()["detail"] == LINE_CONFLICT_ZH


@pytest.mark.parametrize(
    "if_match", ['"line-{other}-v1"', "garbage", '"revision-{line}-v1"', '"line-{line}-v999"']
)
def test_api_an_if_match_naming_another_version_or_object_is_412(quote, engineer, if_match):
    line = first_product_line(quote)
    other = quote.current_revision.lines.exclude(pk=line.pk).first()
    header = if_match.format(line=line.pk, other=other.pk)
    response = api(engineer).patch(
        f"/api/v1/quotes/{quote.pk}/lines/{line.pk}/",
        {"quantity": 40},
        format="json",
        HTTP_IF_MATCH=header,
    )
    assert response.status_code == 412, response.content
    line.refresh_from_db()
    assert line.quantity != 40


def test_api_weak_star_and_missing_if_match_are_taken(quote, engineer):
    line = first_product_line(quote)
    url = f"/api/v1/quotes/{quote.pk}/lines/{line.pk}/"
    client = api(engineer)
    weak = "W/" + client.get(url)["ETag"]  # as a compressing proxy hands it on
    assert client.patch(url, {"quantity": 2}, format="json", HTTP_IF_MATCH=weak).status_code == 200
    assert client.patch(url, {"quantity": 3}, format="json", HTTP_IF_MATCH="*").status_code == 200
    assert client.patch(url, {"quantity": 4}, format="json").status_code == 200
    line.refresh_from_db()
    assert (line.quantity, line.version) == (4, 4)


def test_api_delete_a_line_honours_if_match(quote, engineer, teammate):
    line = first_product_line(quote)
    url = f"/api/v1/quotes/{quote.pk}/lines/{line.pk}/"
    stale = api(teammate).get(url)["ETag"]
    api(engineer).patch(url, {"quantity": 6}, format="json")
    refused = api(teammate).delete(url, HTTP_IF_MATCH=stale)
    assert refused.status_code == 412, refused.content
    assert QuoteLine.objects.filter(pk=line.pk).exists()
    fresh = api(teammate).get(url)["ETag"]
    deleted = api(teammate).delete(url, HTTP_IF_MATCH=fresh)
    assert deleted.status_code == 200, deleted.content
    assert line.pk not in [row["id"] for row in deleted.json()["lines"]]
    assert api(teammate).get(url).status_code == 404


def test_api_terms_and_freight_honour_the_revisions_etag(quote, engineer, teammate):
    terms = f"/api/v1/quotes/{quote.pk}/terms/"
    freight = f"/api/v1/quotes/{quote.pk}/freight/"
    revision = quote.current_revision
    read = api(teammate).get(terms)
    assert read.status_code == 200, read.content
    stale = read["ETag"]
    assert stale == f'"revision-{revision.pk}-v{revision.version}"'
    assert read.json()["version"] == revision.version
    # Someone changes a line: the revision's totals, so its version, move on.
    line = first_product_line(quote)
    api(engineer).patch(
        f"/api/v1/quotes/{quote.pk}/lines/{line.pk}/", {"quantity": 2}, format="json"
    )

    refused_terms = api(teammate).patch(
        terms, {"validity_days": 60}, format="json", HTTP_IF_MATCH=stale
    )
    refused_freight = api(teammate).put(
        freight, {"amount": "500.00"}, format="json", HTTP_IF_MATCH=stale
    )
    assert (refused_terms.status_code, refused_freight.status_code) == (412, 412)
    revision.refresh_from_db()
    assert revision.validity_days != 60
    assert not revision.lines.filter(kind="freight").exists()

    fresh = api(teammate).get(terms)["ETag"]
    saved = api(teammate).patch(terms, {"validity_days": 60}, format="json", HTTP_IF_MATCH=fresh)
    assert saved.status_code == 200, saved.content
    assert saved["ETag"] != fresh
    put = api(teammate).put(
        freight, {"amount": "500.00"}, format="json", HTTP_IF_MATCH=saved["ETag"]
    )
    assert put.status_code == 200, put.content


def test_the_schema_documents_if_match_and_412(client):
    paths = client.get("/api/v1/schema/?format=json").json()["paths"]
    for path, method in (
        ("/api/v1/quotes/{id}/lines/{line_id}/", "patch"),
        ("/api/v1/quotes/{id}/lines/{line_id}/", "delete"),
        ("/api/v1/quotes/{id}/terms/", "patch"),
        ("/api/v1/quotes/{id}/freight/", "put"),
    ):
        operation = paths[path][method]
        headers = [p for p in operation["parameters"] if p["in"] == "header"]
        assert [p["name"] for p in headers] == ["If-Match"], (path, method)
        assert "412" in operation["responses"], (path, method)


# --- Pages: the hidden version ------------------------------------------------------------------


def _line_form_version(html: str, line_pk: int) -> str:
    match = re.search(
        rf'<form id="line-{line_pk}"[^>]*>.*?name="version" value="(\d+)"', html, re.DOTALL
    )
    assert match, "the line's form carries its version"
    return match.group(1)


def _page(client, quote, language="en") -> str:
    url = reverse("quotes:quote-detail", args=[quote.pk])
    return client.get(url, HTTP_ACCEPT_LANGUAGE=language).content.decode()


@pytest.mark.parametrize(
    ("language", "message"), [("en", LINE_CONFLICT), ("zh-hans", LINE_CONFLICT_ZH)]
)
def test_page_two_users_save_one_line_the_second_is_told_to_reload(
    client, quote, engineer, teammate, language, message
):
    from django.test import Client

    line = first_product_line(quote)
    first, second = Client(), Client()
    first.force_login(engineer)
    second.force_login(teammate)
    seen_first = _line_form_version(_page(first, quote, language), line.pk)
    seen_second = _line_form_version(_page(second, quote, language), line.pk)
    assert seen_first == seen_second == str(line.version)
    url = reverse("quotes:line-update", args=[quote.pk, line.pk])

    won = first.post(url, {"quantity": "21", "version": seen_first}, follow=True,
                     HTTP_ACCEPT_LANGUAGE=language)  # fmt: skip
    lost = second.post(url, {"quantity": "23", "discount_percent": "9", "version": seen_second},
                       follow=True, HTTP_ACCEPT_LANGUAGE=language)  # fmt: skip

    assert won.status_code == lost.status_code == 200
    assert message not in won.content.decode()
    assert message in lost.content.decode()
    line.refresh_from_db()
    assert (line.quantity, line.discount_percent) == (21, D("0"))
    # The page the loser is sent back to shows the winner's values and the new version.
    assert _line_form_version(lost.content.decode(), line.pk) == str(line.version)


def test_page_revision_forms_carry_the_revision_version_and_refuse_a_stale_one(
    client, quote, engineer
):
    client.force_login(engineer)
    revision = quote.current_revision
    # Two line changes: the revision's version (3) is no line's (1 or 2).
    services.revision_line_update(user=engineer, line=first_product_line(quote), quantity=3)
    services.revision_line_update(user=engineer, line=first_product_line(quote), quantity=2)
    revision.refresh_from_db()
    html = _page(client, quote)
    posts = {
        "quotes:revision-freight": {"freight": "700"},
        "quotes:revision-discount": {"discount_percent": "8"},
        "quotes:line-add": {"kind": "note", "description": "Two lots"},
        "quotes:revision-terms": {
            "validity_days": "45", "goods_tax_percent": "13", "services_tax_percent": "6",
            "freight_tax_percent": "9", "milestone_design": "30", "milestone_full": "60",
            "milestone_operations": "10", "terms": "Delivery in two lots.",
        },
    }  # fmt: skip
    for name in posts:
        action = reverse(name, args=[quote.pk, revision.number])
        form = re.search(rf'<form [^>]*action="{action}">(.*?)</form>', html, re.DOTALL)
        assert form, name
        hidden = re.findall(r'name="version" value="(\d+)"', form.group(1))
        assert hidden == [str(revision.version)], name  # once, the revision's
    stale = str(revision.version)
    services.revision_line_update(user=engineer, line=first_product_line(quote), quantity=4)
    for name, data in posts.items():
        response = client.post(
            reverse(name, args=[quote.pk, revision.number]), {**data, "version": stale}, follow=True
        )
        assert "Someone else changed" in response.content.decode(), name
    revision.refresh_from_db()
    assert not revision.lines.filter(kind__in=["freight", "note"]).exists()
    assert not revision.lines.filter(discount_percent=D("8")).exists()
    assert revision.validity_days != 45
    # The same post from the page as it is now goes through.
    response = client.post(
        reverse("quotes:revision-terms", args=[quote.pk, revision.number]),
        {**posts["quotes:revision-terms"], "version": str(revision.version)},
        follow=True,
    )
    assert "Someone else changed" not in response.content.decode()
    revision.refresh_from_db()
    assert revision.validity_days == 45


def test_page_delete_of_a_changed_line_is_refused(client, quote, engineer):
    client.force_login(engineer)
    line = first_product_line(quote)
    stale = str(line.version)
    services.revision_line_update(user=engineer, line=line, quantity=2)
    response = client.post(
        reverse("quotes:line-delete", args=[quote.pk, line.pk]), {"version": stale}, follow=True
    )
    assert LINE_CONFLICT in response.content.decode()
    assert QuoteLine.objects.filter(pk=line.pk).exists()


# --- The unit cost of a line priced by hand ---------------------------------------------------


def test_a_unit_cost_makes_the_margin_known(gap_quote, engineer, manager):
    manager_policy(metric=PolicyMetric.MARGIN_PERCENT, threshold="5")
    line = gap_line(gap_quote)
    services.revision_line_update(user=engineer, line=line, override_unit_price=D("2350"))
    revision = QuoteRevision.objects.get(pk=line.revision_id)
    assert revision.margin_percent is None  # priced, but what it costs is not known
    assert [r["value"] for r in revision.approval_reasons] == ["unknown"]

    services.revision_line_update(user=manager, line=line, override_unit_cost=D("1500"))

    revision.refresh_from_db()
    line.refresh_from_db()
    assert line.override_unit_cost == D("1500.00")
    assert line.unit_cost == D("1500.00")  # CNY list, CNY quote
    assert revision.margin_percent is not None
    assert revision.margin_percent > D("5")
    assert revision.approval_reasons == []
    # The trail says the cost changed and who changed it, not the cost: engineers read it.
    event = AuditEvent.objects.filter(revision=revision, actor=manager).get()
    assert "1500" not in str(event.before) + str(event.after)


def test_a_unit_cost_is_refused_where_it_does_not_belong(gap_quote, engineer, manager):
    line = gap_line(gap_quote)
    with pytest.raises(NotPermitted):
        services.revision_line_update(user=engineer, line=line, override_unit_cost=D("10"))
    with pytest.raises(QuoteInvalid) as negative:
        services.revision_line_update(user=manager, line=line, override_unit_cost=D("-1"))
    assert negative.value.errors == {"override_unit_cost": "A cost cannot be negative."}
    catalog_line = first_product_line(gap_quote)
    with pytest.raises(QuoteInvalid) as catalog:
        services.revision_line_update(user=manager, line=catalog_line, override_unit_cost=D("1"))
    assert "override_unit_cost" in catalog.value.errors
    # Replacing the gap with a catalog product drops the hand-entered cost with the price.
    services.revision_line_update(user=manager, line=line, override_unit_cost=D("1500"))
    services.revision_line_update(user=manager, line=line, sku="EZMAX-QSFP28-100G-SR4")
    line.refresh_from_db()
    assert (line.override_unit_price, line.override_unit_cost) == (None, None)


def test_api_unit_cost_for_those_who_see_margins(gap_quote, engineer, manager):
    line = gap_line(gap_quote)
    url = f"/api/v1/quotes/{gap_quote.pk}/lines/{line.pk}/"
    api(engineer).patch(url, {"override_unit_price": "2350"}, format="json")
    assert "override_unit_cost" not in api(engineer).get(url).json()
    assert api(engineer).patch(url, {"override_unit_cost": "10"}, format="json").status_code == 403
    response = api(manager).patch(url, {"override_unit_cost": "1500"}, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["margin_percent"] is not None
    assert api(manager).get(url).json()["override_unit_cost"] == "1500.00"


def test_page_unit_cost_input_for_those_who_see_margins(client, gap_quote, engineer, manager):
    line = gap_line(gap_quote)
    client.force_login(engineer)
    assert 'data-testid="unit-cost-input"' not in _page(client, gap_quote)
    client.force_login(manager)
    html = _page(client, gap_quote)
    assert html.count('data-testid="unit-cost-input"') == 1  # the gap line only
    response = client.post(
        reverse("quotes:line-update", args=[gap_quote.pk, line.pk]),
        {
            "override_unit_price": "2350",
            "override_unit_cost": "1500",
            "version": _line_form_version(html, line.pk),
        },
        follow=True,
    )
    assert response.status_code == 200
    line.refresh_from_db()
    assert line.override_unit_cost == D("1500.00")
    assert QuoteRevision.objects.get(pk=line.revision_id).margin_percent is not None
    assert 'data-testid="margin-unknown"' not in response.content.decode()


# --- PostgreSQL: a real race ------------------------------------------------------------------


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_transactions_racing_for_one_line_exactly_one_wins(
    postgres_required, catalog, engineer, teammate, customer
):
    """Both saves start from the same version at the same moment, each in its own transaction
    on its own connection. The one that takes the row locks first holds them until it commits;
    the other waits, then reads the new version and is refused. Checked outside the locks, both
    would pass the check: the first to reach its write waits (up to 2 s) for the other to get
    there too, which happens only when nothing holds the other back."""
    quote = services.quote_create(
        user=engineer, design=DesignFactory(owner=engineer), customer=customer
    )
    line = first_product_line(quote)
    seen = line.version
    start, writing = threading.Barrier(2), threading.Barrier(2)
    outcomes: dict[int, str] = {}
    lock = threading.Lock()

    def at_write(sender, instance, **kwargs) -> None:
        if instance.pk == line.pk:
            # Broken after 2 s: the other save is held back (or refused), so write alone.
            with contextlib.suppress(threading.BrokenBarrierError):
                writing.wait(timeout=2)

    def save(user, quantity: int) -> None:
        try:
            start.wait(timeout=30)
            services.revision_line_update(
                user=user, line=line, quantity=quantity, expected_version=seen
            )
            outcome = "saved"
        except VersionConflict:
            outcome = "conflict"
        except BaseException as exc:  # reported below
            outcome = repr(exc)
        finally:
            connection.close()
        with lock:
            outcomes[quantity] = outcome

    pre_save.connect(at_write, sender=QuoteLine, dispatch_uid="lost-updates-race")
    try:
        threads = [
            threading.Thread(target=save, args=(engineer, 31)),
            threading.Thread(target=save, args=(teammate, 37)),
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
    finally:
        pre_save.disconnect(sender=QuoteLine, dispatch_uid="lost-updates-race")
    assert sorted(outcomes.values()) == ["conflict", "saved"], outcomes
    winner = next(quantity for quantity, outcome in outcomes.items() if outcome == "saved")
    line.refresh_from_db()
    assert (line.quantity, line.version) == (winner, seen + 1)
