"""NCCL's algorithms and protocols in the reader's words (issue 28): the engine names them as
NCCL does ("nvls_tree", "LL128"); pages and documents say what they are."""

from __future__ import annotations

from django.utils.translation import gettext as _


def nccl_label(algorithm: str, protocol: str) -> str:
    """NCCL's algorithm and protocol in the reader's words ("ring · Simple"); a composite
    ("pat+ring") names each part."""
    algorithms = {
        "ring": _("ring"),
        "tree": _("tree"),
        "nvls": _("NVLink SHARP"),
        "nvls_tree": _("NVLink SHARP with a tree across servers"),
        "pat": _("parallel aggregated trees"),
        "collnet_direct": _("in-network reduction (direct)"),
        "collnet_chain": _("in-network reduction (chain)"),
        "p2p": _("point to point"),
    }
    protocols = {
        "LL": _("low-latency protocol"),
        "LL128": _("low-latency protocol, 128-byte lines"),
        "Simple": _("simple protocol"),
    }
    said = " + ".join(algorithms.get(part, part) for part in algorithm.split("+") if part)
    how = " + ".join(protocols.get(part, part) for part in protocol.split("+") if part)
    return f"{said} · {how}" if said and how else said


__all__ = ["nccl_label"]
