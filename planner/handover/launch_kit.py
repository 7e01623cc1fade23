"""What NVIDIA's Kubernetes Launch Kit (`l8k`) takes for a Spectrum-X design: the topology file
its CIDRPools are allocated from, and the profile settings naming its plane count.

Source: github.com/NVIDIA/k8s-launch-kit, `docs/user/spectrum-x.md` ("Topology-Driven
CIDRPools") and `docs/reference/configuration.md` ("Profile"). The topology is the
spcx-gen/reference-generator JSON: top-level `nodes` (`name`, `role`, `type`) and `links`, each
link a list of two endpoints (`node`, `interface`, `attributes`). l8k reads one host-to-leaf
link for every worker rail: a host endpoint carries `attributes.rail` (and `pod` on three
tiers), a leaf endpoint `attributes.plane`; `su`, `pod` and `rail_group` complete them; every
number is zero-based. The profile (`profile.spectrumX`) carries `numberOfPlanes` (1, 2 or 4),
`multiplaneMode` (`none`, `swplb`, `hwplb`), `topologyType` (`2-tier`, `3-tier`), `ipVersion`
and `topologyFile`.

What a plane is to l8k: the planes one NIC's ports split over (a B300's ConnectX-8 on two or
four planes). The design's compute planes are that when a server has one port per GPU in each
plane; otherwise each rail sits in one plane and l8k sees single-plane NICs (`none`), the leaf
endpoints still naming the plane they belong to. Host names are the cabling schedule's: rename
them to the Kubernetes node names before handing the file to l8k (it matches them exactly)."""

from __future__ import annotations

import io
import json
import re
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass

from engine.cabling import CablingRow
from engine.design import Design
from planner.handover.cable_ids import legs

KIT_PLANES = (1, 2, 4)  # what `numberOfPlanes` accepts
SPCX_VERSION = "RA2.3"
NETWORK_OPERATOR_RELEASE = "26.7"  # the release line RA2.3 renders with (version matrix)
TOPOLOGY_FILE = "topology.json"
PROFILE_FILE = "l8k-profile.yaml"

_LEAF = re.compile(r"^(?:p(?P<plane>\d+)-)?(?:.*?su(?P<su>\d+)-)?(?:r(?P<rail>\d+)-)?.*leaf")
_PORT = re.compile(r"(\d+)$")


@dataclass(frozen=True)
class KitPlanes:
    """How l8k should see the compute plane's NICs."""

    planes: int  # numberOfPlanes
    rails: int  # NICs per server (ports / planes)
    mode: str  # multiplaneMode
    tiers: int


def kit_planes(design: Design) -> KitPlanes:
    shape = design.compute.shape
    ports = shape.ports_per_server * shape.fabric_planes
    planes = shape.fabric_planes
    # One port per GPU in each plane: every NIC spans the planes (the ConnectX-8 case).
    if planes in KIT_PLANES[1:] and ports == design.gpus_per_server * planes:
        return KitPlanes(planes=planes, rails=ports // planes, mode="swplb", tiers=shape.tiers)
    return KitPlanes(planes=1, rails=ports, mode="none", tiers=shape.tiers)


def _number(text: str | None, default: int = 1) -> int:
    return int(text) if text else default


def launch_kit_topology(design: Design, rows: Iterable[CablingRow]) -> dict[str, object]:
    """Every compute host-to-leaf link with the attributes l8k reads; switch-to-switch links
    are left out (l8k allocates host addresses from the leaf links alone)."""
    kit = kit_planes(design)
    shape = design.compute.shape
    # A pool's units and pods (engine.pools) follow the first pool's, so no two share a
    # number; its hosts' rails are its own NICs.
    first_su: dict[str, int] = {"compute": 0}
    first_pod: dict[str, int] = {"compute": 0}
    per_pod: dict[str, int] = {"compute": max(shape.groups_per_pod, 1)}
    rails: dict[str, int] = {"compute": kit.rails}
    units, pods = shape.groups, shape.pods
    for pool in design.request.pools:
        pool_plane = design.plane(pool.name)
        if pool_plane is None:
            continue
        first_su[pool.name], first_pod[pool.name], rails[pool.name] = units, pods, pool.rails
        per_pod[pool.name] = max(pool_plane.shape.groups_per_pod, 1)
        units, pods = units + pool_plane.shape.groups, pods + pool_plane.shape.pods
    nodes: dict[str, dict[str, str]] = {}
    links: list[list[dict[str, object]]] = []
    for row in rows:
        if row.plane not in rails or "leaf" not in row.a_device or "leaf" in row.b_device:
            continue
        for leaf, leaf_port, host, host_port in legs(row):
            match = _LEAF.match(leaf.removeprefix(f"{row.plane}-"))
            groups = match.groupdict() if match else {}
            unit = _number(groups.get("su")) - 1  # within its pool
            su = first_su[row.plane] + unit
            pod = first_pod[row.plane] + unit // per_pod[row.plane] if shape.tiers == 3 else 0
            port = _PORT.search(host_port)
            index = int(port.group(1)) - 1 if port else 0
            # Ports run plane by plane (c1-c8 on plane 1, c9-c16 on plane 2 for 8 GPUs).
            rail = index % rails[row.plane]
            plane = _number(groups.get("plane")) - 1
            nodes.setdefault(leaf, {"name": leaf, "role": "leaf", "type": "cumulus"})
            nodes.setdefault(host, {"name": host, "role": "host", "type": "default"})
            host_attributes: dict[str, object] = {"role": "host", "rail": rail, "su": su}
            if shape.tiers == 3:
                host_attributes["pod"] = pod
            leaf_attributes = {"role": "leaf", "plane": plane, "pod": pod, "su": su,
                               "rail_group": [rail]}  # fmt: skip
            links.append(
                [
                    {"node": leaf, "interface": leaf_port, "attributes": leaf_attributes},
                    {"node": host, "interface": host_port, "attributes": host_attributes},
                ]
            )
    hosts = sorted(name for name, node in nodes.items() if node["role"] == "host")
    leaves = sorted(name for name, node in nodes.items() if node["role"] == "leaf")
    return {"nodes": [nodes[name] for name in hosts + leaves], "links": links}


def launch_kit_profile(design: Design) -> str:
    """The `profile.spectrumX` block of l8k's configuration, as YAML (JSON scalars, which YAML
    reads as they are)."""
    kit = kit_planes(design)
    tier_text = "3-tier" if kit.tiers == 3 else "2-tier"
    values = {
        "enable": True,
        "spcxVersion": SPCX_VERSION,
        "multiplaneMode": kit.mode,
        "numberOfPlanes": kit.planes,
        "topologyType": tier_text,
        "ipVersion": "ipv4",
        "topologyFile": f"./{TOPOLOGY_FILE}",
    }
    lines = [
        "# NVIDIA Kubernetes Launch Kit (l8k): the Spectrum-X profile of the EZMAX design.",
        f"# {design.gpus_total} GPUs, {design.servers_total} servers, {kit.rails} rails per "
        "server,",
        f"# {kit.planes} plane(s) per NIC. Generate with:",
        f"#   l8k generate --network-operator-release {NETWORK_OPERATOR_RELEASE} "
        f"--spectrum-x {SPCX_VERSION} --multiplane-mode {kit.mode} "
        f"--number-of-planes {kit.planes} --topology-scheme {tier_text} "
        f"--topology-file ./{TOPOLOGY_FILE}",
        "profile:",
        "  fabric: ethernet",
        f"  multirail: {json.dumps(kit.rails > 1)}",
        "  spectrumX:",
    ]
    lines += [f"    {key}: {json.dumps(value)}" for key, value in values.items()]
    return "\n".join(lines) + "\n"


def launch_kit_zip(design: Design, rows: Iterable[CablingRow]) -> bytes:
    topology = launch_kit_topology(design, rows)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(TOPOLOGY_FILE, json.dumps(topology, indent=1) + "\n")
        archive.writestr(PROFILE_FILE, launch_kit_profile(design))
    return out.getvalue()


__all__ = [
    "PROFILE_FILE",
    "TOPOLOGY_FILE",
    "KitPlanes",
    "kit_planes",
    "launch_kit_profile",
    "launch_kit_topology",
    "launch_kit_zip",
]
