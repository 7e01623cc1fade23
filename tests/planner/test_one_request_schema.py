"""One request schema (issue 26, item 4): the REST API, the CLI and the wizard take the same
request fields, the engine's (`engine.request.REQUEST_FIELDS`). For each field a valid value
other than its default goes through each door, and the request the engine sized (`request` in
its result, `to_dict` of the parsed request) must hold it. A tester found `uplink_speed`,
`planes`, `build` and `oversubscription_tolerance` refused by the API as unknown fields, and a
NIC chosen in the wizard left the request at another speed, so that no design fitted."""

import json
import re
from dataclasses import dataclass, field
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.urls import reverse
from rest_framework.test import APIClient

from engine.request import (
    FIELDS,
    PLANE_DEFAULTS,
    PLANE_FIELDS,
    REQUEST_FIELDS,
    FieldKind,
    parse_request,
    to_dict,
)
from planner import services
from planner.forms import (
    PLANE_SWITCHES,
    STORAGE_FIELDS,
    WizardStepForm,
    step_by_key,
    step_of_field,
)
from planner.management.commands.size import Command
from planner.selectors import current_catalog
from planner.serializers import DesignCreateSerializer, DesignRequestSerializer

pytestmark = pytest.mark.django_db

# What every case starts from: a small rail fabric (8 servers of 8 GPUs) that sizes, with the
# choices the wizard's scenarios always fill in (a leaf placement and a media policy).
BASE: dict[str, Any] = {
    "gpus": 64,
    "gpus_per_server": 8,
    "nic_speed": 400,
    "fabric": "rail",
    "leaf": "64x400",
    "leaf_placement": "mor",
    "media": "auto",
}
NIC_200G = "MCX653105A-ECAT"  # seed catalog: ConnectX-6 VPI, 1 x 200G, QSFP56 cage
NIC_400G = "MCX75310AAS-NEAT"  # seed catalog: ConnectX-7, 1 x 400G, OSFP cage


@dataclass(frozen=True)
class Case:
    """A request field, a valid value that is not its default, and where the engine's request
    (to_dict) shows it: `path` into it, and the value expected there."""

    name: str
    value: Any
    expected: Any
    path: tuple[str, ...] = ()
    base: dict[str, Any] = field(default_factory=dict)  # what the value needs beside it
    wizard: dict[str, str] | None = None  # as the wizard's form posts it, when not str(value)

    @property
    def where(self) -> tuple[str, ...]:
        return self.path or (self.name,)


CASES = (
    Case("gpus", 128, 128),
    Case("gpus_per_server", 4, 4),
    Case("rails", 4, 4),  # default: one per GPU, 8
    Case("nic_speed", 200, 200),
    Case("nic", NIC_400G, NIC_400G),
    Case("fabric", "tor", "tor"),
    Case("leaf", "32x400", "32x400"),
    Case("spine", "64x800", "64x800"),
    Case("core", "64x800", "64x800"),
    # "3:1" is a leaf ratio; the spine tier stays non-blocking.
    Case("oversubscription", "3:1", {"leaf": 3.0, "spine": 1.0}),
    Case("media", "optical", "optical"),
    Case("dual_homing", True, True, base={"fabric": "tor"}, wizard={"dual_homing": "on"}),
    Case("rails_per_plane", 2, 2, base={"fabric": "rail-plane"}),
    Case("servers_per_su", 4, 4),
    Case("min_spines", 4, 4),
    # A search field: the engine sizes what it allows. 33 servers (264 GPUs) put 33 ports on
    # each 64-port rail leaf; at 1:1 that leaves 31 uplinks for 33 downlinks, too few, and
    # 10 % lets the leaf run 33:31 = 1.065:1 (README) to save spines. The wizard takes the
    # tolerance in %, the request a fraction: 10 % is 0.1.
    Case(
        "oversubscription_tolerance",
        0.1,
        pytest.approx(33 / 31),
        path=("oversubscription", "leaf"),
        base={"gpus": 264},
        wizard={"oversubscription_tolerance": "10"},
    ),
    Case("planes", 2, 2),  # 8 rails split over 2 planes of 4
    Case("uplink_speed", 400, 400),
    Case("build", "today", "today"),
    Case("servers_per_rack", 2, 2),
    Case("rack_width_m", 0.8, 0.8),
    Case("racks_per_row", 5, 5),
    Case("leaf_placement", "eor", "eor"),
    Case("spine_row_distance_m", 30.0, 30.0),
    Case("cable_slack_m", 1.0, 1.0),
    Case("max_rack_power_w", 20000, 20000),
    Case(
        "storage",
        {"storage_nodes": 4},
        4,
        path=("storage", "storage_nodes"),
        wizard={"storage_plane": "on", "storage_nodes": "4"},
    ),
    # A plane with its defaults (PLANE_DEFAULTS: frontend 100G, out-of-band 1G per port).
    Case(
        "frontend",
        {},
        PLANE_DEFAULTS["frontend"]["nic_speed"],
        path=("frontend", "nic_speed"),
        wizard={"frontend_plane": "on"},
    ),
    Case(
        "oob",
        {},
        PLANE_DEFAULTS["oob"]["nic_speed"],
        path=("oob", "nic_speed"),
        wizard={"oob_plane": "on"},
    ),
    # Heterogeneous pools (issue 28): 32 servers of 8 GPUs at 200G beside the 8 at 400G. The
    # wizard asks for one pool, on the GPUs step.
    Case(
        "pools",
        [{"gpus": 256, "nic_speed": 200}],
        256,
        path=("pools", "0", "gpus"),
        wizard={"pool_gpus": "256", "pool_nic_speed": "200"},
    ),
    # Rack-scale systems (issue 28, item 1). A system fills in its tray (4 GPUs, 4 NICs); the
    # wizard, choosing it, drops the 8-GPU server the scenario filled in for it.
    Case("system", "gb200-nvl72", "gb200-nvl72"),
    # Trays per rack alone make the server a tray of a rack-scale rack (8 trays of 8 GPUs).
    Case("trays_per_rack", 16, 16),
    Case("active_trays_per_rack", 4, 4, base={"trays_per_rack": 8}),  # default: all 8 run
    Case("nvlink_switch_trays", 6, 6, base={"trays_per_rack": 8}),  # default: 4, one per two
    Case("tray_power_w", 6000, 6000, base={"trays_per_rack": 8}),  # default 5,400
    Case("rack_power_kw", 100.0, 100.0, base={"trays_per_rack": 8}),  # default 132
    Case("cooling", "air", "air", base={"trays_per_rack": 8}),  # default liquid
)
CASE_IDS = [case.name for case in CASES]

# Plane options the wizard does not show, with why: the wizard switches the frontend and
# out-of-band planes on with the planes chapter's defaults (6.2.3, 6.3.2: 2 x 100G at 2:1; one
# 1G BMC port on 48-port management switches), and asks only the storage plane's speed, ports,
# nodes and ratio; the switches, a catalog NIC and storage node ports of a plane are set
# through the API, the CLI (--storage '{...}') or a request file.
WIZARD_PLANE_OPTIONS_LEFT_OUT = {
    "storage": {"nic", "leaf", "spine", "storage_node_ports"},
    "frontend": set(PLANE_FIELDS),
    "oob": set(PLANE_FIELDS),
}
# Top-level request fields the wizard leaves out: none.
WIZARD_FIELDS_LEFT_OUT: set[str] = set()


def _at(data: Any, path: tuple[str, ...]) -> Any:
    for key in path:
        data = data[int(key)] if isinstance(data, list) else data[key]
    return data


def _request(case: Case) -> dict[str, Any]:
    return {**BASE, **case.base, case.name: case.value}


def test_every_engine_field_has_a_case(catalog):
    # A field added to the engine without a case here fails: it must be walked through the doors.
    assert [case.name for case in CASES] == [spec.name for spec in REQUEST_FIELDS]
    for case in CASES:
        assert case.name in FIELDS
        # The value is a change: the engine's request without it differs.
        catalog = current_catalog()
        without = to_dict(parse_request({**BASE, **case.base}, catalog))
        if case.where[0] in without:
            assert _at(without, case.where) != case.expected, case.name


# --- the API ----------------------------------------------------------------------------------


def test_the_api_serializer_has_exactly_the_engine_fields_with_its_ranges():
    fields = DesignRequestSerializer().fields
    assert set(fields) == set(FIELDS)
    assert set(DesignCreateSerializer().fields) == set(FIELDS) | DesignCreateSerializer.META_FIELDS
    assert set(fields["storage"].fields) == set(PLANE_FIELDS)
    for spec in REQUEST_FIELDS:
        api_field = fields[spec.name]
        if spec.kind in (FieldKind.INTEGER, FieldKind.NUMBER):
            # The schema's bounds are the ones parse_request checks (one definition).
            assert (api_field.min_value, api_field.max_value) == (spec.low, spec.high), spec.name
        if spec.kind is FieldKind.CHOICE:
            assert list(api_field.choices) == list(spec.choices), spec.name
        assert api_field.required is spec.required, spec.name


def test_the_schema_documents_every_field_with_its_help(client):
    properties = client.get("/api/v1/schema/?format=json").json()["components"]["schemas"][
        "DesignRequest"
    ]["properties"]
    assert set(properties) == set(FIELDS)
    assert properties["uplink_speed"]["minimum"] == 0  # 0: left open, as the engine reads it
    assert properties["uplink_speed"]["maximum"] == 800
    for spec in REQUEST_FIELDS:
        # drf-spectacular adds a choice field's values after its help.
        assert properties[spec.name].get("description", "").startswith(spec.help), spec.name


@pytest.fixture
def api(engineer) -> APIClient:
    client = APIClient()
    client.force_authenticate(engineer)
    return client


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_the_api_preview_takes_the_field(catalog, api, case):
    response = api.post("/api/v1/designs/preview/", _request(case), format="json")
    assert response.status_code == 200, response.content
    # The request the engine sized (a search field resolved), as every door below checks it.
    assert _at(response.json()["result"]["request"], case.where) == case.expected


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_the_api_create_takes_the_field(catalog, api, case):
    response = api.post("/api/v1/designs/", {**_request(case), "name": case.name}, format="json")
    assert response.status_code == 201, response.content
    assert _at(response.json()["result"]["request"], case.where) == case.expected


def test_the_api_alternatives_take_the_search_fields(catalog, api):
    body = {**BASE, "uplink_speed": 400, "planes": 2, "build": "today",
            "oversubscription_tolerance": 0.1}  # fmt: skip
    response = api.post("/api/v1/designs/alternatives/", body, format="json")
    assert response.status_code == 200, response.content
    for option in response.json():
        # What the request fixes, every alternative keeps (README: alternatives).
        request = option["design"]["request"]
        assert (request["uplink_speed"], request["planes"], request["build"]) == (400, 2, "today")


def test_uplink_speed_reaches_the_engine_through_the_api_as_through_the_cli(catalog, api):
    """A set uplink speed holds (tests/engine/test_search.py): 200G NICs on 64x400 leaves and
    spines. Left open, the leaves go up at 400G, one native port each; set to 200, each 400G
    cage is split in two (2x200G) at both ends. The API's answer is the CLI's, the same engine.
    (Under 64x800 spines a forced 200G would join 50G lanes to 100G ones: refused, as in
    tests/engine/test_worked_examples.py.)"""
    fields = {"gpus": 512, "nic_speed": 200, "leaf": "64x400", "spine": "64x400"}
    open_ = api.post("/api/v1/designs/preview/", fields, format="json").json()["result"]
    body = {**fields, "uplink_speed": 200}
    response = api.post("/api/v1/designs/preview/", body, format="json")
    assert response.status_code == 200, response.content
    result = response.json()["result"]
    leaf = {tier["role"]: tier for tier in result["planes"][0]["tiers"]}["leaf"]
    assert (leaf["uplink_speed_gbps"], leaf["uplink_breakout"]) == (200, "2x200G")
    open_leaf = {tier["role"]: tier for tier in open_["planes"][0]["tiers"]}["leaf"]
    assert open_leaf["uplink_speed_gbps"] == 400
    cli = _cli(["--gpus", "512", "--nic-speed", "200", "--leaf", "64x400", "--spine", "64x400",
                "--uplink-speed", "200"])  # fmt: skip
    assert cli == result


# --- the CLI ----------------------------------------------------------------------------------


def _cli(args: list[str]) -> dict[str, Any]:
    out = StringIO()
    call_command("size", *args, "--format", "json", stdout=out)
    result: dict[str, Any] = json.loads(out.getvalue())
    return result


def _cli_args(request: dict[str, Any]) -> list[str]:
    """The request as `manage.py size` options: one per field, named by REQUEST_FIELDS."""
    args: list[str] = []
    for name, value in request.items():
        option = FIELDS[name].option
        if value is True:
            args.append(option)
        elif isinstance(value, dict | list):
            args += [option, json.dumps(value)]
        else:
            args += [option, str(value)]
    return args


def test_the_cli_has_an_option_for_every_field():
    parser = Command().create_parser("manage.py", "size")
    options = {option for action in parser._actions for option in action.option_strings}
    assert {spec.option for spec in REQUEST_FIELDS} <= options


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_the_cli_takes_the_field(catalog, case):
    result = _cli(_cli_args(_request(case)))
    assert _at(result["request"], case.where) == case.expected


def test_a_cli_plane_option_that_is_no_object_is_one_line(catalog):
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="--storage takes a JSON object"):
        _cli(["--gpus", "64", "--storage", "[1]"])


# --- the wizard -------------------------------------------------------------------------------


def _form_field(name: str) -> str:
    """The wizard's form field that sets request field `name`."""
    fields = {plane: switch for switch, plane in PLANE_SWITCHES.items()} | {"pools": "pool_gpus"}
    return fields.get(name, name)


def test_the_wizard_shows_every_field_but_those_it_leaves_out():
    shown = {name for name in FIELDS if step_of_field(_form_field(name)) is not None}
    assert set(FIELDS) - shown == WIZARD_FIELDS_LEFT_OUT
    storage_options = set(STORAGE_FIELDS.values())
    assert set(PLANE_FIELDS) - storage_options == WIZARD_PLANE_OPTIONS_LEFT_OUT["storage"]
    # Frontend and out-of-band: one switch each, no option.
    assert not any(key.startswith(("frontend_", "oob_")) for key in WizardStepForm.base_fields
                   if key not in PLANE_SWITCHES)  # fmt: skip


def _step_post(step_key: str, request: dict[str, Any]) -> dict[str, Any]:
    """What the step's page submits unchanged for this request (its fields' initial values)."""
    step = step_by_key(step_key)
    assert step is not None
    form = WizardStepForm(step, initial=WizardStepForm.initial_from(request))
    data: dict[str, Any] = {}
    for name, form_field in form.fields.items():
        value = form.initial.get(name, form_field.initial)
        if value is None or value is False:
            continue
        data[name] = "on" if value is True else value
    return data


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_the_wizard_takes_the_field(catalog, engineer, engineer_client, case):
    if case.name in WIZARD_FIELDS_LEFT_OUT:
        pytest.skip("the wizard leaves it out (WIZARD_FIELDS_LEFT_OUT)")
    base = {**BASE, **case.base}
    draft = services.design_save_draft(owner=engineer, request_data=base, name=case.name)
    step = step_of_field(_form_field(case.name))
    assert step is not None
    posted = case.wizard if case.wizard is not None else {case.name: str(case.value)}
    data = {**_step_post(step.key, base), **posted, "action": "next"}
    response = engineer_client.post(reverse("planner:wizard", args=[draft.pk, step.key]), data)
    assert response.status_code == 302, response.content.decode()[:2000]
    draft.refresh_from_db()
    assert draft.result is not None, draft.request  # it sized
    assert _at(draft.result["request"], case.where) == case.expected


# --- a NIC sets its speed ---------------------------------------------------------------------


def test_the_engine_takes_a_nics_speed_when_none_is_given(catalog):
    request = parse_request({"gpus": 64, "nic": NIC_200G, "leaf": "64x400"}, current_catalog())
    assert request.nic_speed_gbps == 200  # the ConnectX-6's one port speed
    assert request.nic is not None
    assert request.nic.form_factor.value == "QSFP56"


def test_an_api_nic_without_a_speed_takes_the_nics(catalog, api):
    body = {"gpus": 64, "nic": NIC_200G, "fabric": "rail", "leaf": "64x400"}
    response = api.post("/api/v1/designs/preview/", body, format="json")
    assert response.status_code == 200, response.content
    result = response.json()["result"]
    assert result["request"]["nic_speed"] == 200
    server_links = [link for link in result["links"] if link["a"] == "server"]
    # 8 servers x 8 rails = 64 server ports, each a QSFP56 cage of the NIC at 200G.
    assert {link["speed_gbps"] for link in server_links} == {200}
    assert {link["end_a"]["form_factor"] for link in server_links} == {"QSFP56"}
    assert sum(link["end_a"]["cages"] for link in server_links) == 64


def test_choosing_a_nic_in_the_wizard_sets_its_speed_and_the_review_sizes(
    catalog, engineer, engineer_client
):
    """The training scenario asks for 400G; choosing the 200G ConnectX-6 posts the speed picker
    still at 400. The NIC decides: the draft asks 200G, sizes, and the review shows a design."""
    base = {**BASE, "nic_speed": 400}
    draft = services.design_save_draft(owner=engineer, request_data=base, name="NIC")
    data = {**_step_post("nics", base), "nic": NIC_200G, "nic_speed": "400", "action": "next"}
    response = engineer_client.post(reverse("planner:wizard", args=[draft.pk, "nics"]), data)
    assert response.status_code == 302, response.content.decode()[:2000]
    draft.refresh_from_db()
    assert (draft.request["nic"], draft.request["nic_speed"]) == (NIC_200G, 200)
    assert draft.result is not None
    server_links = [link for link in draft.result["links"] if link["a"] == "server"]
    assert {link["end_a"]["form_factor"] for link in server_links} == {"QSFP56"}
    review = engineer_client.get(reverse("planner:wizard", args=[draft.pk, "review"]))
    html = review.content.decode()
    assert "does not size yet" not in html
    assert "No network satisfies" not in html
    # The step shows the speed the NIC runs at, not the one the picker held.
    page = engineer_client.get(reverse("planner:wizard", args=[draft.pk, "nics"])).content
    assert _selected_speed(page.decode()) == "200"


def test_a_wizard_step_posting_the_nic_shows_its_speed_again(catalog, engineer, engineer_client):
    # "Save draft" renders the step again: its speed picker shows the NIC's speed.
    draft = services.design_save_draft(owner=engineer, request_data=dict(BASE), name="NIC")
    data = {**_step_post("nics", BASE), "nic": NIC_200G, "nic_speed": "400", "action": "save"}
    response = engineer_client.post(reverse("planner:wizard", args=[draft.pk, "nics"]), data)
    assert response.status_code == 200
    assert _selected_speed(response.content.decode()) == "200"


def _selected_speed(html: str) -> str:
    """The option selected in the compute NIC speed picker (the storage one has its own)."""
    picker = re.search(r'<select name="nic_speed".*?</select>', html, re.S)
    assert picker is not None
    selected = re.findall(r'<option value="(\d+)" selected>', picker.group(0))
    assert len(selected) == 1, selected
    return str(selected[0])


# --- a rack-scale system in the wizard ---------------------------------------------------------


def test_choosing_a_system_in_the_wizard_takes_its_tray(catalog, engineer, engineer_client):
    """The scenario filled in 8-GPU servers; choosing GB200 NVL72 on the same step makes each
    server a tray of 4 GPUs with 4 NICs at 400G (DGX GB200 user guide, "Compute Trays":
    https://docs.nvidia.com/dgx/dgxgb200-user-guide/hardware.html), 18 to a rack."""
    base = {**BASE, "gpus": 576}
    draft = services.design_save_draft(owner=engineer, request_data=base, name="NVL72")
    data = {**_step_post("gpus", base), "system": "gb200-nvl72", "action": "next"}
    response = engineer_client.post(reverse("planner:wizard", args=[draft.pk, "gpus"]), data)
    assert response.status_code == 302, response.content.decode()[:2000]
    draft.refresh_from_db()
    assert draft.result is not None, draft.request
    request = draft.result["request"]
    assert (request["gpus_per_server"], request["rails"], request["nic_speed"]) == (4, 4, 400)
    assert (request["trays_per_rack"], request["servers_per_rack"]) == (18, 18)
    assert draft.result["racks"] == 8
    assert draft.result["scale_up"]["nvlink_switch_trays"] == 72
    # Taking the system away again: the racks hold servers, with the tray the page still shows.
    base = dict(request)
    data = {**_step_post("gpus", base), "system": "", "action": "next"}
    response = engineer_client.post(reverse("planner:wizard", args=[draft.pk, "gpus"]), data)
    assert response.status_code == 302, response.content.decode()[:2000]
    draft.refresh_from_db()
    assert draft.result is not None, draft.request
    assert "scale_up" not in draft.result
    assert not {"system", "trays_per_rack"} & set(draft.result["request"])
