"""What a sales engineer asks for, validated against the catalog.

`parse_request` takes the same mapping whether it came from the CLI, the REST API or a saved JSON
file (field names are the CLI option names with underscores) and returns a `DesignRequest`, or
raises `RequestError` with one sentence per offending field. The package's modules: `model`
(the typed request and its JSON form), `fields` (the one schema every door reads) and `parse`."""

from engine.request.fields import (
    FIELDS,
    PLANE_DEFAULTS,
    PLANE_FIELDS,
    REQUEST_FIELDS,
    TOP_FIELDS,
    FieldKind,
    RequestField,
)
from engine.request.model import (
    MAX_GPUS,
    MAX_OVERSUBSCRIPTION,
    MAX_POOLS,
    NIC_SPEEDS_GBPS,
    Build,
    DesignRequest,
    Fabric,
    Layout,
    LeafPlacement,
    MediaPolicy,
    Oversubscription,
    PlaneRequest,
    PoolRequest,
    RequestError,
    ScaleUpRequest,
    SwitchChoice,
    planned_products,
    to_dict,
)
from engine.request.parse import parse_request, resolve_switch

__all__ = [
    "FIELDS",
    "MAX_GPUS",
    "MAX_OVERSUBSCRIPTION",
    "MAX_POOLS",
    "NIC_SPEEDS_GBPS",
    "PLANE_DEFAULTS",
    "PLANE_FIELDS",
    "REQUEST_FIELDS",
    "TOP_FIELDS",
    "Build",
    "DesignRequest",
    "Fabric",
    "FieldKind",
    "Layout",
    "LeafPlacement",
    "MediaPolicy",
    "Oversubscription",
    "PlaneRequest",
    "PoolRequest",
    "RequestError",
    "RequestField",
    "ScaleUpRequest",
    "SwitchChoice",
    "parse_request",
    "planned_products",
    "resolve_switch",
    "to_dict",
]
