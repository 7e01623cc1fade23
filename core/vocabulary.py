"""The one catalogue of names, in the reader's language, for the keys the code stores: network
roles, tiers and tier pairs (`leaf`, `server-leaf`), fabric styles, planes, BOM categories, media,
plan phases and their deliverables, quote service lines and statuses, roles (groups), discount
policies, request and form fields, and the glossary. Pages (through `core.templatetags.labels`),
documents, drawings and the CLI read these, never the key and never a second wording; a key it
does not know is shown as is, and tests/test_bilingual_pages.py fails on it."""

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from django.utils.functional import Promise
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from core.roles import ROLES

ROLE_NAMES: dict[str, Promise] = {
    "server": _("Server"),
    "endpoint": _("Endpoint"),
    "storage": _("Storage node"),
    "leaf": _("Leaf"),
    "spine": _("Spine"),
    "core": _("Core"),
    # The parts of a rack-scale (NVL72-class) rack besides its compute trays (engine.scale_up).
    "spare_tray": _("Spare compute tray"),
    "nvlink_switch": _("NVLink switch tray"),
    "power_shelf": _("Power shelf"),
    "management_switch": _("In-rack management switch"),
}
# Quote lines for services are grouped by the plan phase (or support) they belong to.
SERVICE_NAMES: dict[str, Promise] = {
    "requirements": _("Requirements"),
    "design": _("Design"),
    "poc": _("POC validation"),
    "pilot": _("Pilot deployment"),
    "full": _("Full deployment"),
    "operations": _("Operations support"),
    "support": _("Operations support"),
    "install": _("Installation"),
    "installation": _("Installation"),
    "freight": _("Freight"),
}
# The six phases of the brochure's implementation path (chapter 八), as the PDF names them.
PHASE_NAMES: dict[str, Promise] = {
    "requirements": _("Requirements"),
    "design": _("Design"),
    "poc": _("POC validation"),
    "pilot": _("Pilot deployment"),
    "full": _("Full deployment"),
    "operations": _("Operations support"),
    # A payment milestone, not a plan phase: the customer's final acceptance (issue 27).
    "acceptance": _("Final acceptance"),
}
DELIVERABLE_NAMES: dict[str, Promise] = {
    "requirements_report": _("Requirements report"),
    "detailed_design": _("Detailed design with topology"),
    "poc_report": _("POC test report and performance baseline"),
    "pilot_acceptance": _("Pilot acceptance report"),
    "completion_report": _("Completion report and operations manual"),
    "monthly_health_report": _("Monthly health report"),
}
FABRIC_NAMES: dict[str, Promise] = {
    "rail": _("Rail-optimized"),
    "rail-plane": _("Rail planes"),
    "tor": _("Top of rack"),
    "packed": _("Packed"),
}
CATEGORY_NAMES: dict[str, Promise] = {
    "nic": _("NICs"),
    "switch": _("Switches"),
    "transceiver": _("Transceivers"),
    "cable": _("Cables and fibre"),
    "patch_panel": _("Patch panels"),
    "rack": _("Rack-scale systems"),
}
PLANE_NAMES: dict[str, Promise] = {
    "compute": _("Compute fabric"),
    "storage": _("Storage"),
    "frontend": _("Frontend"),
    "oob": _("Out-of-band management"),
    # Heterogeneous pools (engine.pools): other kinds of servers on the compute fabric.
    "pool2": _("Compute fabric, second pool"),
    "pool3": _("Compute fabric, third pool"),
    "pool4": _("Compute fabric, fourth pool"),
}
# DAC, AOC and AEC are written so in Chinese too; fibre and copper are named.
MEDIA_NAMES: dict[str, Promise | str] = {
    "dac": "DAC",
    "aoc": "AOC",
    "aec": "AEC",
    "acc": "ACC",
    "mmf": _("Multimode fibre"),
    "smf": _("Single-mode fibre"),
    "utp": _("Copper (RJ45)"),
}
# The request's media policy (`engine.request.MediaPolicy`), as the wizard offers it.
MEDIA_POLICY_NAMES: dict[str, Promise] = {
    "auto": _("Automatic: the cheapest media that fits and reaches"),
    "copper": _("Copper only (DAC/AEC)"),
    "optical": _("Optical only"),
    "mmf": _("Multimode optics only"),
    "smf": _("Single-mode optics only"),
}
POLICY_NAMES: dict[str, Promise] = {
    "discount_percent": _("Line discount above %(threshold)s %%"),
    "margin_percent": _("Margin below %(threshold)s %%"),
    "total_amount": _("Total above %(threshold)s"),
}
# A design request's fields (`engine.request`), named as the wizard names them: an error
# about `gpus_per_server` reads "GPUs per server" on a page (the API keeps the code).
FIELD_NAMES: dict[str, Promise] = {
    "name": _("Design name"),
    "customer": _("Customer"),
    "scenario": _("Scenario"),
    "gpus": _("GPUs"),
    "gpus_min": _("GPUs ≥"),
    "gpus_max": _("GPUs ≤"),
    "gpus_per_server": _("GPUs per server"),
    "nic": _("Compute NIC"),
    "nic_speed": _("Compute NIC port speed"),
    "rails": _("Compute ports per server (rails)"),
    "storage_plane": _("Storage plane"),
    "storage_nic_speed": _("Storage NIC port speed"),
    "storage_ports": _("Storage ports per server"),
    "storage_nodes": _("Storage nodes"),
    "storage_oversubscription": _("Storage oversubscription"),
    "frontend_plane": _("Frontend (business) plane"),
    "oob_plane": _("Out-of-band management plane"),
    "fabric": _("Fabric style"),
    "leaf": _("Leaf switch"),
    "spine": _("Spine switch"),
    "core": _("Core switch"),
    "oversubscription": _("Leaf oversubscription"),
    "media": _("Media policy"),
    "dual_homing": _("Dual-home servers to a leaf pair"),
    "rails_per_plane": _("Rails per spine plane"),
    "servers_per_su": _("Servers per scalable unit"),
    "min_spines": _("Fewest spines"),
    "oversubscription_tolerance": _("Oversubscription tolerance"),
    "planes": _("Compute planes"),
    "uplink_speed": _("Leaf-to-spine speed"),
    "build": _("Partial units"),
    "servers_per_rack": _("Servers per rack"),
    "racks_per_row": _("Racks per row"),
    "rack_width_m": _("Rack width"),
    "leaf_placement": _("Leaf placement"),
    "spine_row_distance_m": _("Distance to the spine row"),
    "cable_slack_m": _("Slack per cable"),
    "max_rack_power_w": _("Rack power limit"),
    "system": _("Rack-scale system"),
    "trays_per_rack": _("Compute trays per rack"),
    "active_trays_per_rack": _("Active trays per rack"),
    "nvlink_switch_trays": _("NVLink switch trays per rack"),
    "tray_power_w": _("Power per active tray"),
    "rack_power_kw": _("Rack power feed"),
    "cooling": _("Cooling"),
}
# Keys of the changes an audit trail records (quote, line, link), named as the forms name them.
CHANGE_NAMES: dict[str, Promise] = {
    "number": _("Number"),
    "design": _("Design"),
    "customer": _("Customer"),
    "line": _("Line"),
    "sku": _("SKU"),
    "quantity": _("Quantity"),
    "discount_percent": _("Discount %"),
    "override_unit_price": _("Override price"),
    "description": _("Description"),
    "is_optional": _("Optional"),
    "unit_price": _("Unit price"),
    "status": _("Status"),
    "valid_until": _("Valid until"),
    "link": _("Share link"),
    "user_agent": _("Browser"),
    "freight": _("Freight"),
    "terms": _("Terms"),
    "approval_reasons": _("Approval needed because"),
    "revision": _("Revision"),
    "reason": _("Reason"),
    "approval": _("Approval"),
    "approval_cleared": _("Approval withdrawn"),
    "approved_by": _("Approved by"),
    "rejected": _("Sent back because"),
    "superseded_by": _("Superseded by"),
    "archived": _("Archived"),
    "active": _("Active"),
    "note": _("Note"),
    "goods_tax_percent": _("VAT on goods (%)"),
    "services_tax_percent": _("VAT on services (%)"),
    "freight_tax_percent": _("VAT on freight (%)"),
    "tax_rate": _("VAT rate"),
    "payment_milestones": _("Payment milestones"),
    "phase": _("Phase"),
    "percent": _("Percent"),
    "validity_days": _("Validity (days)"),
}
# Why a change sent a revision back (`quotes.services.revisions._after_change`'s `what`, stored
# as a code in the audit trail) and the other fixed values the trail stores.
CHANGE_VALUES: dict[str, Promise] = {
    "line changed": _("a line changed"),
    "discount changed": _("a discount changed"),
    "line added": _("a line was added"),
    "line deleted": _("a line was deleted"),
    "terms changed": _("the terms changed"),
    "freight changed": _("the freight changed"),
    "not needed": _("not needed"),
    # A figure nobody knows yet (quotes.pricing.UNKNOWN): a margin without a line's cost.
    "unknown": _("unknown"),
}
# What an alternative design is best at (engine.search), each measured over every design sized.
ALTERNATIVE_NAMES: dict[str, Promise] = {
    "lowest_cost": _("Lowest cost"),
    "lowest_cost_so_far": _("Lowest cost of the lines priced so far"),
    "most_resilient": _("Most resilient"),
    "most_growth": _("Most growth room"),
}
STATUS_NAMES: dict[str, Promise] = {
    "draft": _("Draft"),
    "pending_approval": _("Pending approval"),
    "approved": _("Approved"),
    "sent": _("Sent"),
    "accepted": _("Accepted"),
    "declined": _("Declined"),
    "expired": _("Expired"),
    "superseded": _("Superseded"),
    "withdrawn": _("Withdrawn"),
}


def _name(names: Mapping[str, Promise | str], key: object) -> str:
    text = "" if key is None else str(key)
    return str(names.get(text, text))


def role_label(role: str) -> str:
    """ "leaf" -> "Leaf" / "叶交换机"."""
    return _name(ROLE_NAMES, role)


def tier_label(tier: str) -> str:
    """A tier ("leaf"), a tier pair ("server-leaf" -> "Server–Leaf") or a quote's service group
    ("poc" -> "POC validation")."""
    text = "" if tier is None else str(tier)
    if text in SERVICE_NAMES:
        return str(SERVICE_NAMES[text])
    return "–".join(role_label(role) for role in text.split("-")) if text else ""


def phase_label(phase: str) -> str:
    return _name(PHASE_NAMES, phase)


def deliverable_label(deliverable: str) -> str:
    return _name(DELIVERABLE_NAMES, deliverable)


def fabric_label(fabric: str) -> str:
    return _name(FABRIC_NAMES, fabric)


def plane_label(plane: str) -> str:
    return _name(PLANE_NAMES, plane)


def category_label(category: str) -> str:
    """A BOM category ("transceiver") in words ("Transceivers")."""
    return _name(CATEGORY_NAMES, category)


def media_label(media: str) -> str:
    text = "" if media is None else str(media)
    return _name(MEDIA_NAMES, text.lower()) if text.lower() in MEDIA_NAMES else text


def media_policy_label(policy: str) -> str:
    return _name(MEDIA_POLICY_NAMES, policy or "auto")


def alternative_labels(labels: Iterable[str] | str | None, label: str = "") -> str:
    """An alternative's labels (a list of codes, or one code) in words, joined: one design may
    be both the cheapest and the one that grows furthest. `label`: the single code older
    results carry instead."""
    codes = [labels] if isinstance(labels, str) else list(labels or ())
    if not codes and label:
        codes = [label]
    return " · ".join(_name(ALTERNATIVE_NAMES, code) for code in codes) or "—"


def status_label(status: str) -> str:
    return _name(STATUS_NAMES, status)


def group_label(group: object) -> str:
    """A role's group ("sales-manager", or the Group) -> "Sales manager" / "销售经理"."""
    name = str(getattr(group, "name", group) or "")
    for role in ROLES:
        if role.group_name == name:
            return str(role.label)
    return name


def grouped(value: object) -> str:
    """A number with its digits grouped in threes ("2000000.00" -> "2,000,000.00"), whatever the
    language; anything else as is."""
    if value == "unknown":  # quotes.pricing.UNKNOWN: a margin without a line's cost
        return str(CHANGE_VALUES["unknown"])
    try:
        number = Decimal(str(value))
    except (InvalidOperation, ValueError):
        return "" if value is None else str(value)
    if number == number.to_integral_value() and "." not in str(value):
        return f"{number:,.0f}"
    return f"{number:,.2f}"


def policy_label(reason: Mapping[str, Any]) -> str:
    """A discount-policy hit (`approval_reasons` entry: metric, threshold) in words, e.g. "Line
    discount above 10 %"; the policy's stored name is one language only. Unknown metrics keep
    their stored name."""
    template_text = POLICY_NAMES.get(str(reason.get("metric", "")))
    if template_text is None:
        return str(reason.get("policy", ""))
    return str(template_text) % {"threshold": grouped(reason.get("threshold"))}


def group_labels(names: object) -> str:
    """Several groups, named and joined: "sales-manager, administrator" -> "销售经理、管理员"."""
    parts = [p.strip() for p in str(names or "").split(",") if p.strip()]
    return gettext(", ").join(group_label(p) for p in parts)


def field_label(form: Any, name: str) -> str:
    """The label of `form`'s field `name` (a form's `errors` are keyed by field name); a design
    request's field when the form has none of that name."""
    fields = getattr(form, "fields", {})
    field = fields.get(name)
    if field is None or not field.label:
        return request_field_label(name)
    return str(field.label)


def request_field_label(name: str) -> str:
    """ "gpus_per_server" -> "GPUs per server" / "每台服务器 GPU 数"."""
    return _name(FIELD_NAMES, name)


def _change_value(key: str, value: object) -> str:
    if value is None or value == "":
        return "—"
    if isinstance(value, bool):
        return gettext("Yes") if value else gettext("No")
    if key == "status":
        return status_label(str(value))
    if key == "phase":
        return phase_label(str(value))
    if key == "approval_reasons" and isinstance(value, list):
        return "; ".join(
            policy_label(v) if isinstance(v, Mapping) else _change_value(key, v) for v in value
        )
    if isinstance(value, str) and value in CHANGE_VALUES:
        return str(CHANGE_VALUES[value])
    if isinstance(value, (int, float, Decimal)) or (
        isinstance(value, str) and value.replace(".", "", 1).isdigit()
    ):
        return grouped(value)
    if isinstance(value, list):
        return "; ".join(_change_value(key, v) for v in value)
    if isinstance(value, dict):
        return change_summary(value)
    return str(value)


def change_summary(change: object) -> str:
    """An audit record's before/after (a dict of field codes) in words: "Quantity: 256 ·
    Discount %: 60.00"."""
    if not isinstance(change, Mapping):
        return "" if change is None else str(change)
    return " · ".join(
        f"{_name(CHANGE_NAMES, key)}: {_change_value(str(key), value)}"
        for key, value in change.items()
    )


# --- Glossary (the help page, linked from the wizard's hints) ----------------------------------


@dataclass(frozen=True)
class Term:
    anchor: str  # the help page's fragment: /help/#oversubscription
    name: Promise
    meaning: Promise


GLOSSARY: tuple[Term, ...] = (
    Term(
        "rail-optimized",
        _("Rail-optimized fabric"),
        _(
            "Each server's n-th NIC connects to the n-th leaf of its scalable unit (its rail), so "
            "the GPUs of the same rank on different servers, the ones collective operations pair "
            "up, are one switch hop apart; any GPU still reaches any other through the spines."
        ),
    ),
    Term(
        "plane",
        _("Plane"),
        _(
            "A separate network the servers join with their own ports: compute, storage, "
            "frontend and out-of-band management are planes. A rail-optimized compute fabric can "
            "also be split into identical compute planes, each taking a share of every server's "
            "ports, so each stays two tiers where one large fabric would need three."
        ),
    ),
    Term(
        "oversubscription",
        _("Oversubscription"),
        _(
            "A leaf's bandwidth down to its servers divided by its bandwidth up to the spines: "
            "1:1 is non-blocking; at 3:1 traffic leaving the leaf gets a third of the servers' "
            "bandwidth. The tolerance lets a design go a little above the ratio asked for when "
            "that saves a tier or switches."
        ),
    ),
    Term(
        "bisection",
        _("Bisection bandwidth"),
        _(
            "The bandwidth across the narrowest cut that splits the cluster into two equal "
            "halves: what one half's GPUs can send to the other half at once. A non-blocking "
            "fabric's bisection bandwidth is half of all its NIC bandwidth."
        ),
    ),
    Term(
        "breakout",
        _("Breakout"),
        _(
            "One fast switch port run as several slower ones (a 400G port as 2 × 200G or "
            "4 × 100G) through a breakout cable or a parallel optical module with a fan-out "
            "harness, so one switch port serves several NIC ports."
        ),
    ),
    Term(
        "dac",
        _("DAC (direct-attach copper cable)"),
        _(
            "A passive copper cable with its plugs attached: the cheapest link and almost no "
            "power, but only a few metres long (about 3 m at 400G), so it suits links inside a "
            "rack or to the next one."
        ),
    ),
    Term(
        "aoc",
        _("AOC (active optical cable)"),
        _(
            "A fibre cable with the transceivers built into its ends: reaches tens of metres "
            "and is thinner than copper, but the whole cable is replaced when one end fails."
        ),
    ),
    Term(
        "twin-port",
        _("Twin-port optics"),
        _(
            "A transceiver that carries two independent ports in one switch cage (for example "
            "2 × 400G in one 800G OSFP cage), so one cage serves two links that may go to "
            "different places."
        ),
    ),
    Term(
        "su",
        _("Scalable unit (SU)"),
        _(
            "A repeatable block of servers with its own leaf switches (one per rail when "
            "rail-optimized); the cluster grows by whole units, and the spines join them."
        ),
    ),
)
# Wizard fields whose hint links to a glossary term.
FIELD_TERMS: dict[str, str] = {
    "fabric": "rail-optimized",
    "rails": "rail-optimized",
    "planes": "plane",
    "rails_per_plane": "plane",
    "storage_plane": "plane",
    "oversubscription": "oversubscription",
    "oversubscription_tolerance": "oversubscription",
    "storage_oversubscription": "oversubscription",
    "servers_per_su": "su",
    "build": "su",
    "media": "dac",
    "uplink_speed": "breakout",
    "nic_speed": "breakout",
}


def glossary_term(field_name: str) -> str:
    """The glossary anchor a wizard field's hint links to ("" for none)."""
    return FIELD_TERMS.get(str(field_name), "")


# A domain error's problem title (the API's `title`), in the reader's language, by its code.
ERROR_TITLES: dict[str, Promise] = {
    "approval_required": _("Approval required"),
    "asbuilt_upload_invalid": _("As-built file not readable"),
    "catalog_changed_since_preview": _("Catalog changed since the preview"),
    "content_changed": _("Content changed"),
    "crm_id_taken": _("CRM id already used"),
    "design_engine_changed": _("Sized by another engine version"),
    "design_frozen": _("Design is frozen"),
    "design_has_no_result": _("Design has no result"),
    "design_in_use": _("Design in use"),
    "design_is_draft": _("Design is a draft"),
    "design_not_feasible": _("No design fits"),
    "design_not_yours": _("Not your design"),
    "document_corrupt": _("Document damaged"),
    "export_corrupt": _("Export damaged"),
    "export_not_ready": _("Export not ready"),
    "frozen_design_has_no_result": _("Frozen design has no result"),
    "handover_too_large": _("Too large for one request"),
    "invalid": _("Invalid input"),
    "invalid_design_request": _("Invalid design request"),
    "invalid_job": _("Invalid training job"),
    "invalid_lines": _("Invalid quote lines"),
    "invalid_quote": _("Invalid quote"),
    "label_sheet_too_large": _("Label sheet too large"),
    "no_team": _("No team"),
    "not_allowed": _("Not allowed"),
    "not_found": _("Not found"),
    "not_permitted": _("Not permitted"),
    "permission_denied": _("Permission denied"),
    "quote_expired": _("Quote expired"),
    "quote_has_no_design": _("Quote has no design"),
    "quote_has_no_design_result": _("The quote's design has no result"),
    "quote_has_unpriced_lines": _("Quote has unpriced lines"),
    "quote_not_editable": _("Quote cannot be edited"),
    "too_many_jobs": _("Too many jobs"),
    "transition_not_allowed": _("Not allowed in this state"),
    "version_conflict": _("Changed by someone else"),
}
