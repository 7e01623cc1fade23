"""The wizard and design pages through Django's test client: permissions, step validation with
errors next to the field, drafts, alternatives, exports and copy."""

import csv
import io
import json
import re
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse
from openpyxl import load_workbook

from catalog.services import SEED_PATH
from catalog.snapshot import snapshot_from_seed
from planner import services
from planner.models import Design

REQUEST = {
    "gpus": 1024,
    "gpus_per_server": 8,
    "nic_speed": 400,
    "fabric": "rail",
    "leaf": "64x400",
    "spine": "64x400",
    "oversubscription": 1,
}
SMALL = {**REQUEST, "gpus": 64}


@pytest.fixture(autouse=True)
def english(settings):
    settings.LANGUAGE_CODE = "en"


@pytest.fixture(scope="session")
def seed_snapshot():
    data = json.loads(SEED_PATH.read_text(encoding="utf-8"))
    prices = next(p for p in data["price_lists"] if p.get("default"))
    return snapshot_from_seed(data), {p["sku"]: Decimal(p["amount"]) for p in prices["prices"]}


@pytest.fixture
def catalog(db, monkeypatch, seed_snapshot):
    """The seed catalog without the database (loading it takes seconds; the browser test and
    test_with_the_database_catalog load it for real)."""
    snapshot, prices = seed_snapshot
    monkeypatch.setattr("planner.selectors.current_catalog", lambda: snapshot)
    monkeypatch.setattr("planner.services.current_catalog", lambda: snapshot)
    monkeypatch.setattr("planner.views.price_map", lambda *a: prices)


@pytest.fixture
def design(catalog, engineer):
    return services.design_create(owner=engineer, name="Pod A", request_data=REQUEST)


@pytest.fixture
def draft(catalog, engineer):
    return services.design_save_draft(owner=engineer, request_data=dict(REQUEST), name="Draft A")


def field_errors(html: str, field: str) -> str:
    match = re.search(rf'<div class="field-errors" id="err-{field}"[^>]*>(.*?)</div>', html, re.S)
    assert match, f"no error box for {field}"
    return match.group(1)


def wizard_url(design, step):
    return reverse("planner:wizard", args=[design.pk, step])


# --- permissions ---------------------------------------------------------------------------------


def test_anonymous_is_sent_to_login(client, design):
    for url in (
        reverse("planner:design-list"),
        reverse("planner:design-new"),
        reverse("planner:design-detail", args=[design.pk]),
        reverse("planner:bom-csv", args=[design.pk]),
        reverse("planner:cabling-csv", args=[design.pk]),
        wizard_url(design, "gpus"),
    ):
        response = client.get(url)
        assert response.status_code == 302, url
        assert response["Location"].startswith(reverse("login")), url


def test_other_teams_design_is_404(client, design, other_engineer):
    client.force_login(other_engineer)
    for name in ("design-detail", "bom-csv", "bom-xlsx", "cabling-csv", "request-json"):
        assert client.get(reverse(f"planner:{name}", args=[design.pk])).status_code == 404, name
    assert client.post(reverse("planner:design-copy", args=[design.pk])).status_code == 404
    assert client.get(wizard_url(design, "gpus")).status_code == 404
    response = client.get(reverse("planner:design-list"))
    assert design.name not in response.content.decode()


def test_teammate_sees_and_copies_but_does_not_edit(client, draft, teammate):
    client.force_login(teammate)
    assert client.get(reverse("planner:design-detail", args=[draft.pk])).status_code == 200
    assert client.get(wizard_url(draft, "gpus")).status_code == 404
    response = client.post(reverse("planner:design-copy", args=[draft.pk]))
    copy = Design.objects.exclude(pk=draft.pk).get()
    assert response.status_code == 302
    assert response["Location"] == wizard_url(copy, "gpus")
    assert copy.owner == teammate
    assert copy.copied_from == draft
    assert copy.is_draft
    assert copy.request == draft.request


def test_nav_shows_designs(engineer_client, catalog):
    response = engineer_client.get("/")
    assert reverse("planner:design-list") in response.content.decode()


# --- wizard --------------------------------------------------------------------------------------


def test_new_design_creates_a_draft_with_the_scenarios_defaults(engineer_client, catalog):
    response = engineer_client.get(reverse("planner:design-new"))
    assert response.status_code == 200
    assert 'data-testid="leaf-count"' in response.content.decode() or "Live result" in (
        response.content.decode()
    )
    response = engineer_client.post(
        reverse("planner:design-new"), {"name": "Inference farm", "scenario": "inference"}
    )
    draft = Design.objects.get()
    assert response["Location"] == wizard_url(draft, "gpus")
    assert draft.is_draft
    assert draft.name == "Inference farm"
    assert draft.scenario == "inference"
    assert draft.request["fabric"] == "tor"
    assert draft.request["oversubscription"] == "2:1"
    assert draft.result is not None  # the defaults size as they are


def test_changing_scenario_resets_its_choices(engineer_client, draft):
    engineer_client.post(
        wizard_url(draft, "customer"),
        {"name": "Storage pod", "scenario": "storage", "action": "next"},
    )
    draft.refresh_from_db()
    assert draft.scenario == "storage"
    assert draft.request["storage"]["storage_nodes"] == 16
    assert draft.result
    assert draft.result["switches"].get("storage_leaf")


def test_step_error_is_shown_next_to_its_field(engineer_client, draft):
    response = engineer_client.post(
        wizard_url(draft, "gpus"), {"gpus": "1001", "gpus_per_server": "8", "action": "next"}
    )
    assert response.status_code == 200  # stays on the step
    html = response.content.decode()
    assert "must be a multiple of GPUs per server" in field_errors(html, "gpus")  # its label
    assert field_errors(html, "gpus_per_server").strip() == ""
    assert 'aria-invalid="true"' in html
    draft.refresh_from_db()
    assert draft.request["gpus"] == 1001  # kept as typed: leaving loses nothing
    assert draft.result is None


def test_nested_engine_errors_land_on_their_field(engineer_client, draft):
    response = engineer_client.post(
        wizard_url(draft, "nics"),
        {"nic_speed": "400", "storage_plane": "on", "storage_ports": "0", "action": "next"},
    )
    assert "must be between 1 and 64" in field_errors(response.content.decode(), "storage_ports")
    response = engineer_client.post(
        wizard_url(draft, "fabric"),
        {"fabric": "rail", "leaf": "64x100", "media": "auto", "action": "next"},
    )
    html = response.content.decode()
    assert "faster than" in field_errors(html, "leaf")


def test_errors_of_other_steps_link_to_their_step(engineer_client, draft):
    draft.request["gpus"] = 1001
    draft.save()
    response = engineer_client.get(wizard_url(draft, "fabric"))
    html = response.content.decode()
    assert wizard_url(draft, "gpus") in html
    assert "must be a multiple" in html


def test_valid_step_saves_the_draft_and_moves_on(engineer_client, draft):
    response = engineer_client.post(
        wizard_url(draft, "gpus"), {"gpus": "2,048", "gpus_per_server": "8", "action": "next"}
    )
    assert response.status_code == 302
    assert response["Location"] == wizard_url(draft, "nics")
    draft.refresh_from_db()
    assert draft.request["gpus"] == 2048
    assert draft.result["gpus"] == 2048
    # Coming back shows what was saved.
    html = engineer_client.get(wizard_url(draft, "gpus")).content.decode()
    assert 'value="2048"' in html


def test_live_preview_recomputes_and_saves(engineer_client, draft):
    url = reverse("planner:wizard-preview", args=[draft.pk, "gpus"])
    response = engineer_client.post(
        url, {"gpus": "512", "gpus_per_server": "8"}, headers={"HX-Request": "true"}
    )
    html = response.content.decode()
    assert response.status_code == 200
    assert 'data-testid="count-leaf" data-value="16"' in html
    assert 'data-testid="count-spine" data-value="8"' in html
    assert 'id="err-gpus"' in html
    assert 'hx-swap-oob="true"' in html
    draft.refresh_from_db()
    assert draft.request["gpus"] == 512
    response = engineer_client.post(url, {"gpus": "-3", "gpus_per_server": "8"})
    assert "between" in field_errors(response.content.decode(), "gpus")


def test_results_show_price_and_say_inline_switches_have_none(engineer_client, draft):
    html = engineer_client.get(wizard_url(draft, "fabric")).content.decode()
    assert "Estimated list price" in html
    assert "64x400" in html
    assert "Not priced" in html


def test_review_offers_alternatives_and_pick_replaces_open_choices(
    engineer_client, draft, seed_snapshot
):
    response = engineer_client.get(wizard_url(draft, "review"))
    html = response.content.decode()
    assert response.status_code == 200
    assert "Use option 1" in html
    options = services.design_alternatives(request_data=draft.request, prices=seed_snapshot[1])
    response = engineer_client.post(reverse("planner:wizard-pick", args=[draft.pk]), {"index": 0})
    assert response.status_code == 302
    draft.refresh_from_db()
    chosen = options[0].result["request"]
    assert draft.request["fabric"] == chosen["fabric"]
    assert draft.request.get("leaf") == chosen.get("leaf")
    assert draft.request["gpus"] == 1024


def test_finish_saves_the_design(engineer_client, draft):
    response = engineer_client.post(wizard_url(draft, "review"), {"action": "finish"})
    assert response["Location"] == reverse("planner:design-detail", args=[draft.pk])
    draft.refresh_from_db()
    assert not draft.is_draft
    assert draft.result == services.design_size(request_data=REQUEST).result
    # A saved design is changed by copying it.
    assert engineer_client.get(wizard_url(draft, "gpus")).status_code == 404


def test_finish_refused_while_invalid(engineer_client, draft):
    draft.request["gpus"] = 1001
    draft.save()
    response = engineer_client.post(wizard_url(draft, "review"), {"action": "finish"})
    assert response.status_code == 200
    draft.refresh_from_db()
    assert draft.is_draft


# --- design page and exports ---------------------------------------------------------------------


def test_design_page_shows_diagram_and_tables(engineer_client, design):
    response = engineer_client.get(reverse("planner:design-detail", args=[design.pk]))
    html = response.content.decode()
    assert response.status_code == 200
    assert "<svg" in html
    assert "Network topology" in html
    assert 'data-testid="tier-compute-leaf" data-value="32"' in html
    assert 'data-testid="tier-compute-spine" data-value="16"' in html
    for heading in ("Bill of materials", "Power", "Implementation plan", "Cable lengths"):
        assert heading in html
    assert "style=" not in html.split("<main", 1)[1]  # the CSP forbids inline styles


def test_bom_csv_quantities_equal_the_designs_bom(engineer_client, design):
    response = engineer_client.get(reverse("planner:bom-csv", args=[design.pk]))
    assert response["Content-Type"] == "text/csv"
    rows = list(csv.DictReader(io.StringIO(response.content.decode("utf-8-sig"))))
    # The page's CSV is for people: headings in words (the API's keeps the keys).
    assert [(r["SKU"], int(r["Quantity"])) for r in rows] == [
        (line["sku"], line["quantity"]) for line in design.result["bom"]
    ]


@pytest.mark.slow
def test_bom_xlsx(engineer_client, design):
    response = engineer_client.get(reverse("planner:bom-xlsx", args=[design.pk]))
    sheet = load_workbook(io.BytesIO(response.content)).active
    rows = list(sheet.iter_rows(min_row=3, values_only=True))
    # A generic line (catalog gap) has no SKU: an empty cell, which openpyxl reads as None.
    expected = [(b["sku"], b["quantity"]) for b in design.result["bom"]]
    assert [(r[0] or "", r[2]) for r in rows] == expected


def test_cabling_csv_one_row_per_cable_without_duplicates(engineer_client, catalog, engineer):
    small = services.design_create(owner=engineer, name="Small", request_data=SMALL)
    response = engineer_client.get(reverse("planner:cabling-csv", args=[small.pk]))
    body = b"".join(response.streaming_content).decode("utf-8-sig")
    rows = list(csv.DictReader(io.StringIO(body)))
    assert len(rows) == small.result["cables_total"]
    pairs = [frozenset({(r["a_device"], r["a_port"]), (r["b_device"], r["b_port"])}) for r in rows]
    assert len(set(pairs)) == len(pairs)
    assert all(r["label"] and r["media"] and r["length_m"] for r in rows)


def test_request_json_is_accepted_back(engineer_client, design):
    response = engineer_client.get(reverse("planner:request-json", args=[design.pk]))
    data = json.loads(response.content)
    assert services.design_size(request_data=data).result == design.result


def test_draft_that_does_not_size_has_no_exports(engineer_client, draft):
    draft.request["gpus"] = 1001
    draft.result = None
    draft.save()
    assert engineer_client.get(reverse("planner:bom-csv", args=[draft.pk])).status_code == 404
    html = engineer_client.get(reverse("planner:design-detail", args=[draft.pk])).content.decode()
    assert "does not size yet" in html


# --- list ----------------------------------------------------------------------------------------


def test_list_filters_and_paginates(engineer_client, catalog, engineer, teammate):
    services.design_create(owner=engineer, name="Small pod", request_data=SMALL)
    services.design_create(owner=teammate, name="Big pod", request_data=REQUEST)
    url = reverse("planner:design-list")
    html = engineer_client.get(url).content.decode()
    assert "Small pod" in html
    assert "Big pod" in html
    html = engineer_client.get(url, {"gpus_min": 100}).content.decode()
    assert "Big pod" in html
    assert "Small pod" not in html
    html = engineer_client.get(url, {"q": "small"}).content.decode()
    assert "Small pod" in html
    assert "Big pod" not in html
    html = engineer_client.get(url, {"author": teammate.pk}).content.decode()
    assert "Big pod" in html
    assert "Small pod" not in html
    for n in range(26):
        Design.objects.create(name=f"Extra {n}", owner=engineer, team=teammate.membership.team)
    response = engineer_client.get(url)
    assert response.context["is_paginated"]
    assert len(response.context["designs"]) == 25


@pytest.mark.slow
def test_with_the_database_catalog(engineer_client, db):
    """Once end to end with the catalog loaded the way production loads it."""
    call_command("load_catalog", stdout=StringIO())
    response = engineer_client.post(
        reverse("planner:design-new"), {"name": "DB", "scenario": "llm_training"}
    )
    draft = Design.objects.get()
    assert response.status_code == 302
    assert draft.result["switches"] == {"leaf": 32, "spine": 16}
    html = engineer_client.get(wizard_url(draft, "nics")).content.decode()
    assert "MCX75310AAS-NEAT" in html  # the catalog's 400G NIC is offered
    html = engineer_client.get(wizard_url(draft, "review")).content.decode()
    assert "CNY" in html


def test_design_page_shows_engine_warnings_in_the_readers_language(
    catalog, engineer_client, engineer
):
    # A 10G SFP+ NIC on a 25G leaf with a third of its ports idle: two warnings from the engine.
    design = services.design_create(
        owner=engineer,
        name="Small 10G",
        request_data={"gpus": 64, "rails": 4, "nic": "NETI710-4CP", "leaf": "48x25"},
    )
    url = reverse("planner:design-detail", args=[design.pk])
    english = engineer_client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "16 of 48 ports free on each 48x25." in english
    chinese = engineer_client.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "每台 48x25 的 48 个端口中有 16 个空闲。" in chinese
    assert "16 of 48 ports free" not in chinese


# --- how each link is built ---------------------------------------------------------------------

# The EZMAX brochure's 64-GPU example: 8 servers x 8 ports of 25G on one SN2410 (48 x SFP28 +
# 8 x QSFP28). Past the SFP28 ports the leaf breaks QSFP28 cages out 4x25G, and the catalog sells
# no 10 m QSFP28-to-4xSFP28 AOC: a generic assembly stands in, to be priced.
BROCHURE = {"gpus": 64, "gpus_per_server": 8, "rails": 8, "nic": "MCX631102AN-ADAT",
            "leaf": "MSN2410-CB2F", "fabric": "tor"}  # fmt: skip


def cells(html: str, testid: str) -> list[str]:
    """The text of every table cell marked `data-testid`, tags dropped and spaces collapsed."""
    found = re.findall(rf'<td[^>]*data-testid="{testid}"[^>]*>(.*?)</td>', html, re.S)
    return [" ".join(re.sub(r"<[^>]+>", " ", cell).split()) for cell in found]


def rows(html: str, testid: str) -> list[str]:
    """The text of each body row of the table marked `data-testid`."""
    table = re.search(rf'<table[^>]*data-testid="{testid}".*?<tbody>(.*?)</tbody>', html, re.S)
    assert table, testid
    return [
        " ".join(re.sub(r"<[^>]+>", " ", row).split())
        for row in re.findall(r"<tr[^>]*>(.*?)</tr>", table.group(1), re.S)
    ]


def gap_name(result, language: str) -> str:
    """The generic part's name as the engine wrote it, in `language` (planner.i18n)."""
    from django.utils import translation

    from engine.text import from_dict
    from planner.i18n import translated

    [entry] = [line for line in result["bom"] if line["catalog_gap"]]
    with translation.override(language):
        return translated(from_dict(entry["description_text"]))


@pytest.mark.parametrize(
    ("language", "server", "marker", "cord"),
    [("en", "Server", "to be priced", "Patch cord"), ("zh-hans", "服务器", "待定价", "跳线")],
)
def test_design_page_shows_both_ends_parts_and_the_gap(
    catalog, engineer_client, engineer, language, server, marker, cord
):
    design = services.design_create(owner=engineer, name="Brochure", request_data=BROCHURE)
    result = design.result
    url = reverse("planner:design-detail", args=[design.pk])
    html = engineer_client.get(url, HTTP_ACCEPT_LANGUAGE=language).content.decode()

    # Both ends of every link group, in the order of the result: "Leaf · QSFP28 × 4 (4x25G)".
    links = result["links"]
    expected_a = [f"{server} · {link['end_a']['form_factor']} × {link['end_a']['cages']}"
                  for link in links]  # fmt: skip
    leaf = {"en": "Leaf", "zh-hans": "叶交换机"}[language]  # the tier in the reader's language
    expected_b = [
        f"{leaf} · {link['end_b']['form_factor']} × {link['end_b']['cages']}"
        + (f" ({n}x{link['speed_gbps']}G)" if (n := link["end_b"]["links_per_cage"]) > 1 else "")
        for link in links
    ]
    assert cells(html, "end-a") == expected_a
    assert cells(html, "end-b") == expected_b
    [breakout] = [link for link in links if link["end_b"]["links_per_cage"] > 1]
    # 16 server ports on 4 QSFP28 cages of 4 lanes each.
    assert (breakout["count"], breakout["end_b"]["cages"]) == (16, 4)
    assert f"{leaf} · QSFP28 × 4 (4x25G)" in expected_b

    # The generic assembly: its name in the reader's language, its count and the marker; the
    # catalog parts by SKU with their counts, modules at each end, the optics' patch cords.
    link_rows = rows(html, "links-table")
    assert len(link_rows) == len(links)
    gap_row = link_rows[links.index(breakout)]
    assert breakout["catalog_gap"]
    assert breakout["cable_sku"] == ""
    assert f"{gap_name(result, language)} × {breakout['cables']}" in gap_row
    assert marker in gap_row
    assert html.count('data-catalog-gap="true"') == 2  # the link group and its BOM line
    [optics] = [link for link in links if link["transceivers"]]
    optics_row = link_rows[links.index(optics)]
    [fibre] = optics["fibre"]
    assert f"{cord}: {fibre['sku']} × {fibre['quantity']}" in optics_row
    assert f"{server}: {optics['transceiver_sku_a']} × {optics['transceivers_a']}" in optics_row
    assert f"{leaf}: {optics['transceiver_sku_b']} × {optics['transceivers_b']}" in optics_row
    for link in links:
        if link["cable_sku"] and not link["fibre"]:
            assert f"{link['cable_sku']} × {link['cables']}" in link_rows[links.index(link)]
    assert 'data-testid="gap-note"' in html

    # The BOM: the generic line with the marker and its translated name; power typical and max.
    bom_rows = rows(html, "bom-table")
    [gap_line] = [row for row in bom_rows if gap_name(result, language) in row]
    assert gap_line.startswith(marker)
    # Switch without optics + NICs + the SR modules: typical and maximum, each the BOM's sum.
    assert sum(line["power_w"] for line in result["bom"]) == result["power_w"]
    assert sum(line["power_max_w"] for line in result["bom"]) == result["power_max_w"]
    assert result["power_max_w"] > result["power_w"]
    assert f'data-testid="power-typical" data-value="{result["power_w"]}"' in html
    assert f'data-testid="power-max" data-value="{result["power_max_w"]}"' in html
    # No raw keys and no empty part cells.
    for raw in ("patch_cord", "catalog_gap", "server-leaf", "None ×", "× None"):
        assert raw not in html.split("<main", 1)[1], raw
    if language != "en":
        assert "to be priced" not in html
        assert "Patch cord" not in html


def test_design_page_reads_a_result_stored_before_links_were_described(
    catalog, engineer_client, engineer
):
    design = services.design_create(owner=engineer, name="Old", request_data=BROCHURE)
    for link in design.result["links"]:
        for key in ("end_a", "end_b", "fibre", "cable_description", "catalog_gap"):
            link.pop(key)
    for line in design.result["bom"]:
        line.pop("power_max_w")
    design.result.pop("power_max_w")
    design.save()
    response = engineer_client.get(reverse("planner:design-detail", args=[design.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    assert cells(html, "end-a") == ["Server"] * len(design.result["links"])
    # Without maxima, the maximum is the typical figure.
    assert f'data-testid="power-max" data-value="{design.result["power_w"]}"' in html
