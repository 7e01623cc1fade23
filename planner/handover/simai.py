"""SimAI-Analytical's inputs for the design: the bus bandwidths of its collectives and the
command line of its automatic mode.

Source: github.com/aliyun/SimAI, `example/busbw.yaml`, `docs/en/user_guide/simai_analytical.md`
and `docs/en/technical_reference/cli_reference.md` (README "Use SimAI-Analytical"). Both are
given because the CLI reference says the current open-source binary reads only the automatic
mode's flags (`-busbw` is kept for earlier releases). `busbw.yaml` is a test name
on its first line, then one block per parallel group: `TP`, `DP`, `EP` each list the bus
bandwidth of `allreduce,`, `allgather,`, `reducescatter,` and `alltoall,` (the keys keep their
trailing comma) in GB/s, `null` for a collective the group never runs; `PP` has one `busbw`.
The automatic mode takes `-g` (GPUs), `-g_p_s` (GPUs per server, the scale-up size), `-nic`
(one NIC port's bandwidth, GB/s), `-n_p_s` (NIC ports per server) and `-nv` (NVLink
bandwidth, GB/s).

What comes from the design: the scale-out bandwidth per GPU (bytes at `NIC_EFFICIENCY`, the
efficiency the planner's own estimate uses), divided by the oversubscription a group's traffic
meets: data-parallel and expert-parallel groups span units, so they cross the leaves' uplinks
(and, on three tiers, the spines'); pipeline neighbours cross one unit boundary at most.
NVLink is not part of the network design: the TP block and `-nv` are left for the customer's
servers (`null`, and a placeholder the script refuses to run with)."""

from __future__ import annotations

import io
import zipfile

from engine.comms import NIC_EFFICIENCY
from engine.design import Design

BUSBW_FILE = "busbw.yaml"
SCRIPT_FILE = "simai_analytical.sh"
COLLECTIVES = ("allreduce", "allgather", "reducescatter", "alltoall")
# The collectives each group runs in SimAI's example (null where it runs none).
GROUP_COLLECTIVES = {
    "TP": COLLECTIVES,
    "DP": ("allgather", "reducescatter"),
    "EP": ("allgather", "reducescatter", "alltoall"),
}


def _over(design: Design, *, spines: bool) -> float:
    plane = design.compute
    leaf, spine = plane.tier("leaf"), plane.tier("spine")
    over = max(1.0, leaf.oversubscription or 1.0) if leaf and plane.shape.tiers >= 2 else 1.0
    if spines and spine and plane.shape.tiers == 3:
        over *= max(1.0, spine.oversubscription or 1.0)
    return over


def simai_parameters(design: Design) -> dict[str, float | int]:
    """The figures both files carry: GB/s per GPU on the network, before and after the
    oversubscription the groups cross."""
    plane = design.compute
    shape = plane.shape
    per_gpu = plane.bandwidth_per_gpu_gbps / 8 * NIC_EFFICIENCY
    # SimAI's "server" is the scale-up domain its NVLink joins: a rack-scale rack (72 GPUs of a
    # GB200 NVL72 across 18 trays, with the 72 NICs of its trays), else one server.
    trays = design.scale_up_gpus // design.gpus_per_server
    return {
        "gpus": design.gpus,
        "gpus_per_server": design.scale_up_gpus,
        "nics_per_server": shape.ports_per_server * shape.fabric_planes * trays,
        # SimAI's -nic is one NIC port's bandwidth (its example: 48.5 for 400G).
        "nic_gbytes_per_s": round(shape.nic_speed_gbps / 8 * NIC_EFFICIENCY, 2),
        "dp_busbw": round(per_gpu / _over(design, spines=True), 2),
        "pp_busbw": round(per_gpu / _over(design, spines=False), 2),
    }


def busbw_yaml(design: Design, *, name: str) -> str:
    figures = simai_parameters(design)
    values = {"TP": None, "DP": figures["dp_busbw"], "EP": figures["dp_busbw"]}
    lines = [name]
    for group, runs in GROUP_COLLECTIVES.items():
        lines.append(f"{group}:")
        for collective in COLLECTIVES:
            value = values[group] if collective in runs else None
            lines.append(f"{collective},: {'null' if value is None else value}")
    lines += ["PP:", f"busbw: {figures['pp_busbw']}"]
    return "\n".join(lines) + "\n"


def analytical_script(design: Design, *, name: str) -> str:
    figures = simai_parameters(design)
    return (
        "\n".join(
            [
                "#!/bin/sh",
                f"# SimAI-Analytical for {name}: {design.gpus} GPUs, "
                f"{figures['nic_gbytes_per_s']} GB/s of network per GPU.",
                "# Set NVLINK_GBPS to your servers' NVLink bandwidth (GB/s) and WORKLOAD to an",
                "# AICB workload file, then run this from SimAI's directory.",
                'set -eu\n: "${NVLINK_GBPS:?NVLink bandwidth of the servers, GB/s}"',
                'WORKLOAD="${WORKLOAD:-example/workload_analytical.txt}"',
                f'./bin/SimAI_analytical -w "$WORKLOAD" -g {figures["gpus"]} '
                f"-g_p_s {figures['gpus_per_server']} -n_p_s {figures['nics_per_server']} "
                f'-nic {figures["nic_gbytes_per_s"]} -nv "$NVLINK_GBPS" -r {name}-',
            ]
        )
        + "\n"
    )


def simai_zip(design: Design, *, name: str) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(BUSBW_FILE, busbw_yaml(design, name=name))
        archive.writestr(SCRIPT_FILE, analytical_script(design, name=name))
    return out.getvalue()


__all__ = ["BUSBW_FILE", "SCRIPT_FILE", "busbw_yaml", "simai_parameters", "simai_zip"]
